// What `npm run generate` derives from the registries (issue 31, item 4): the Python client's table of kinds
// and control actions and the docs' control tables. This fails when a committed file differs from what
// scripts/generate.ts writes from src/protocol now, so neither can drift from the registry.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BLOCK_END, PYTHON_TABLE, generatedFiles, generatedPython, spliceBlock } from "../../scripts/generate.ts";
import { CONTROLS, CONTROL_ACTIONS, PROTOCOL_KINDS, controlActionRegistry } from "../../src/protocol/index.ts";
import { hide } from "../../src/protocol/controls/hide.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, "utf8");

describe("generated files", () => {
  for (const f of generatedFiles()) {
    it(`${f.path} is what \`npm run generate\` writes from the registries now`, () => {
      const current = read(f.path);
      expect(f.render(current) === current, `${f.path} differs from the registries: run \`npm run generate\` and commit the result`).toBe(true);
    });
  }

  it("are not vacuous: the Python table holds every kind's marker and every action", () => {
    const py = read(PYTHON_TABLE);
    for (const k of PROTOCOL_KINDS.kinds) expect(py).toContain(JSON.stringify(k.marker));
    for (const a of CONTROLS.actions) expect(py).toContain(`"action": ${JSON.stringify(a.action)}`);
    for (const a of CONTROLS.actions) expect(read("docs/protocol.md")).toContain(`| \`${a.action}\` |`);
    for (const v of CONTROLS.verbs) expect(read("docs/dashboard.md")).toContain(`\`/checkpost ${v} <agent> <session>`);
  });

  it("would catch a change: an action more, or a marker lost", () => {
    const more = controlActionRegistry([...CONTROL_ACTIONS, { ...hide, action: "toy", verbs: ["toy"] }]);
    expect(generatedPython(PROTOCOL_KINDS, more)).not.toBe(read(PYTHON_TABLE));
    const doc = read("docs/protocol.md");
    const stale = generatedFiles(more).find((f) => f.path === "docs/protocol.md");
    expect(stale?.render(doc)).not.toBe(doc);
    expect(() => spliceBlock(doc.replace(BLOCK_END, ""), "control-actions", "x", "docs/protocol.md")).toThrow(/markers/);
  });
});
