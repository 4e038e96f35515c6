import { describe, expect, it } from "vitest";
import * as checkpost from "../../src/index.ts";
import * as bot from "../../src/app/bot-package.ts";

describe("public surface", () => {
  it("exports what the README shows", () => {
    for (const name of [
      "SessionStore",
      "ForgejoApi",
      "ForgejoClient",
      "IMPLEMENTATION_WORKER_PHASE_MAP",
      "formatCheckpoint",
      "formatHealth",
      "parseComment",
      "parseCheckpoint",
      "safeParseCheckpoint",
      "signCheckpoint",
      "createProjection",
      "projectComments",
      "liveness",
      "renderDashboard",
      "spliceDashboard",
      "extractResumeIndex",
    ])
      expect(typeof (checkpost as Record<string, unknown>)[name], name).not.toBe("undefined");
  });

  it("keeps the bot out of the main entry: checkpost/bot has it", () => {
    expect((checkpost as Record<string, unknown>).createBot).toBeUndefined();
    expect(typeof bot.createBot).toBe("function");
    expect(typeof bot.botConfigFromEnv).toBe("function");
  });
});
