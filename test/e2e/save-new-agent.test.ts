// Issue 33, item 8: `save` of an agent the bot's index does not know, beside agents it does, prints one
// line on stderr (with "did you mean" for a name one typo away); a known agent's save prints nothing.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/app/cli.ts";
import { botWorld, type BotWorld } from "../helpers/bot-world.ts";

let w: BotWorld | undefined;
afterEach(async () => w?.close());

describe("save of a new agent beside known ones", () => {
  it("says so in one stderr line; the answer and exit code are unchanged", async () => {
    w = await botWorld();
    const world = w;
    const env = {
      FORGEJO_URL: world.forge.url,
      FORGEJO_TOKEN: world.agentToken,
      FORGEJO_REPO: "agent/work",
      CHECKPOST_TRUSTED_AUTHORS: "checkpost-bot",
      CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "cp-new-")),
    };
    const save = async (agent: string) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(["save", "--agent", agent, "--session", "s1", "--phase", "clone_complete", "--data", "{}"], {
        out: (t) => out.push(t),
        err: (t) => err.push(t),
        readStdin: async () => "",
        cwd: tmpdir(),
        env,
      });
      await world.settle();
      return { code, err, out };
    };
    // The first agent of all: nobody to compare with, nothing said.
    expect((await save("known-worker")).err).toEqual([]);
    // The same agent again: known.
    expect((await save("known-worker")).err).toEqual([]);
    const typo = await save("known-workr");
    expect(typo.code).toBe(0);
    expect(JSON.parse(typo.out.join(""))).toMatchObject({ agent: "known-workr" });
    expect(typo.err).toEqual(["checkpost: known-workr is a new agent on this issue (known: known-worker); did you mean known-worker?"]);
    // Once the bot has it, it is known.
    expect((await save("known-workr")).err).toEqual([]);
  });
});
