import { describe, expect, it } from "vitest";
import * as checkpost from "../../src/index.ts";

describe("public surface", () => {
  it("exports what the README shows", () => {
    for (const name of ["SessionStore", "ForgejoApi", "ForgejoClient", "IMPLEMENTATION_WORKER_PHASE_MAP", "formatCheckpoint", "formatHealth", "parseComment", "parseCheckpoint", "safeParseCheckpoint", "signCheckpoint", "createProjection", "projectComments", "liveness", "renderDashboard", "spliceDashboard", "extractResumeIndex", "createBot"])
      expect(typeof (checkpost as Record<string, unknown>)[name], name).not.toBe("undefined");
  });
});
