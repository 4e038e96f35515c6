import { describe, expect, it } from "vitest";
import { parseSlashCommands } from "../../../src/bot/controls/slash-commands.ts";

describe("parseSlashCommands", () => {
  it("reads each verb, quoted names, and maps resume to unpause", () => {
    expect(
      parseSlashCommands(
        'please:\n/checkpost pause implementation-worker s1\n/checkpost resume "my agent" "sess 42"\n/checkpost rewind w s cp-0123456789ab\n/checkpost release w s\n/checkpost hide w s',
      ),
    ).toEqual([
      { action: "pause", agent: "implementation-worker", session: "s1", line: "/checkpost pause implementation-worker s1" },
      { action: "unpause", agent: "my agent", session: "sess 42", line: '/checkpost resume "my agent" "sess 42"' },
      { action: "rewind", agent: "w", session: "s", target: "cp-0123456789ab", line: "/checkpost rewind w s cp-0123456789ab" },
      { action: "release", agent: "w", session: "s", line: "/checkpost release w s" },
      { action: "hide", agent: "w", session: "s", line: "/checkpost hide w s" },
    ]);
  });

  it("ignores quotes, code blocks and text that only mentions the command", () => {
    expect(parseSlashCommands("> /checkpost pause a b\n```\n/checkpost pause a b\n```\nuse /checkpost pause a b")).toEqual([]);
  });

  it("says what is wrong with a malformed command", () => {
    const r = parseSlashCommands("/checkpost explode a b\n/checkpost pause a\n/checkpost rewind a b\n/checkpost pause a b c");
    expect(r.map((x) => ("error" in x ? x.error.split(":")[0] : "ok"))).toEqual(['unknown command "explode"', "usage", "usage", "too many words"]);
  });

  it("reads at most ten commands from one comment", () => {
    expect(parseSlashCommands(Array.from({ length: 30 }, () => "/checkpost hide a b").join("\n"))).toHaveLength(10);
  });
});
