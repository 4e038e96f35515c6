// docs/architecture.md's figures are generated (issue 31, item 7): this fails on `npm test` when the
// committed block differs from what scripts/architecture.ts computes from src/ now.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ARCHITECTURE_DOC, architectureFigures, FIGURES_BEGIN, FIGURES_END, spliceFigures } from "../../scripts/architecture.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const STALE = `${ARCHITECTURE_DOC}'s figures differ from src/: run \`npm run architecture\` and commit the result (after a merge, regenerate; do not resolve the block by hand)`;

describe("docs/architecture.md's figures", () => {
  const doc = readFileSync(`${root}${ARCHITECTURE_DOC}`, "utf8");
  const figures = architectureFigures(root);

  it("are what `npm run architecture` generates from src/ now", () => {
    expect(spliceFigures(doc, figures) === doc, STALE).toBe(true);
  });

  it("are not vacuous: the block names every top folder of src/ and the totals", () => {
    expect(doc.indexOf(FIGURES_BEGIN)).toBeGreaterThan(0);
    for (const folder of ["src/app", "src/bot", "src/protocol", "src/forgejo-client"]) expect(figures).toContain(`| ${folder} |`);
    expect(figures).toMatch(/^\| files \| folders \| lines \|/);
  });

  it("would catch a change: one more file, or a marker lost", () => {
    const changed = figures.replace(/^\| (\d+) \|/m, (_m, n: string) => `| ${Number(n) + 1} |`);
    const current = spliceFigures(doc, figures);
    expect(changed).not.toBe(figures);
    expect(spliceFigures(current, changed) === current).toBe(false);
    expect(spliceFigures(spliceFigures(current, changed), figures)).toBe(current);
    expect(() => spliceFigures(doc.replace(FIGURES_END, ""), figures)).toThrow(/markers/);
  });

  it("a merge conflict inside the block is resolved by regenerating it", () => {
    const current = spliceFigures(doc, figures);
    const conflicted = spliceFigures(current, `<<<<<<< HEAD\n| 1 |\n=======\n| 2 |\n>>>>>>> main\n${figures}`);
    expect(conflicted).toContain("<<<<<<< HEAD");
    expect(spliceFigures(conflicted, figures)).toBe(current);
  });
});
