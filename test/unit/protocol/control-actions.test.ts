// The control registry (src/protocol/controls): what controlActionRegistry checks and what it derives.
import { describe, expect, it } from "vitest";
import { CONTROLS, CONTROL_ACTIONS, controlActionRegistry } from "../../../src/protocol/index.ts";
import type { ControlActionSpec } from "../../../src/protocol/index.ts";
import { hide } from "../../../src/protocol/controls/hide.ts";
import { pause } from "../../../src/protocol/controls/pause.ts";
import { unpause } from "../../../src/protocol/controls/unpause.ts";

const note: ControlActionSpec = { action: "note", summary: "x", verbs: ["note"], target: false, effect: "hide", box: null };

describe("the control registry", () => {
  it("derives the lists every part reads, in registry order", () => {
    expect(CONTROLS.names).toEqual(["pause", "unpause", "rewind", "release", "hide"]);
    expect(CONTROLS.verbs).toEqual(["pause", "resume", "rewind", "release", "hide", "unpause"]);
    expect(CONTROLS.rowBoxes.map((a) => a.action)).toEqual(["pause", "release", "hide"]);
    expect(CONTROLS.checkpointBoxes.map((a) => a.action)).toEqual(["rewind"]);
    expect(CONTROLS.boxed).toEqual(["pause", "rewind", "release", "hide"]);
    expect(CONTROLS.directives).toEqual(["pause", "rewind", "release"]);
    expect(CONTROLS.untickOf("unpause")?.action).toBe("pause");
    expect(CONTROLS.untickOf("hide")).toBeUndefined();
  });

  it("finds an action by verb whatever its case, and nothing for an unknown verb", () => {
    expect(CONTROLS.byVerb("Resume")?.action).toBe("unpause");
    expect(CONTROLS.byVerb("unpause")?.action).toBe("unpause");
    expect(CONTROLS.byVerb("explode")).toBeUndefined();
    expect(CONTROLS.byName("rewind")?.target).toBe(true);
  });

  it("refuses a list that would make two things mean one, or an action that says what its effect cannot do", () => {
    expect(() => controlActionRegistry([...CONTROL_ACTIONS, { ...hide }])).toThrow(/two control actions named "hide"/);
    expect(() => controlActionRegistry([...CONTROL_ACTIONS, { ...note, verbs: ["resume"] }])).toThrow(/verb "resume" names two/);
    expect(() => controlActionRegistry([{ ...note, verbs: [] }])).toThrow(/no slash verb/);
    expect(() => controlActionRegistry([{ ...note, action: "Note" }])).toThrow(/lower-case/);
    expect(() => controlActionRegistry([{ ...note, directive: "do it" }])).toThrow(/"hide" effect has no directive/);
    expect(() => controlActionRegistry([{ ...note, effect: "fence" }])).toThrow(/"fence" effect needs directive/);
    expect(() => controlActionRegistry([{ ...note, target: true }])).toThrow(/only a "fence" effect can take a target/);
    expect(() => controlActionRegistry([pause])).toThrow(/untick "unpause" must name an unpause-effect action/);
    expect(controlActionRegistry([pause, unpause, note]).names).toEqual(["pause", "unpause", "note"]);
  });
});
