// Test folders are named as the src/ folders they test (issue 31, item 5): the unit tests of src/<x>/ are
// in test/unit/<x>/, at any depth (test/unit/snapshot/core/ would test src/snapshot/core/). Tests of
// what is not in src/ (scripts, the reliability model) go beside their kind (test/reliability/), shared
// helpers in test/helpers/; tests across folders stay at the top of test/unit/.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

function foldersUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => [`${dir}/${d.name}`, ...foldersUnder(`${dir}/${d.name}`)]);
}

describe("test/unit's folders", () => {
  const folders = foldersUnder("test/unit").map((f) => f.slice("test/unit/".length));

  it("reads test/unit (not vacuous)", () => {
    expect(folders.length).toBeGreaterThan(5);
  });

  it("each names a folder of src/", () => {
    const unmatched = folders.filter((f) => !(existsSync(join(root, "src", f)) && statSync(join(root, "src", f)).isDirectory()));
    expect(unmatched, "rename these to the src/ folder they test (git mv), or move them out of test/unit (helpers to test/helpers/)").toEqual([]);
  });
});
