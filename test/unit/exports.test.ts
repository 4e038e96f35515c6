import { describe, expect, it } from "vitest";
import * as checkpost from "../../src/index.ts";
import * as bot from "../../src/app/bot-package.ts";
import * as main from "../../src/app/library.ts";

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

  it("the package's entry (src/app/library.ts) is src/index.ts plus SessionStore.fromEnv", () => {
    expect(Object.keys(main).sort()).toEqual(Object.keys(checkpost).sort());
    expect(typeof main.SessionStore.fromEnv).toBe("function");
    expect(new main.SessionStore({ api: {} as never, repo: { owner: "o", repo: "r" } })).toBeInstanceOf(checkpost.SessionStore);
  });

  it("keeps the bot out of the main entry: checkpost/bot has it", () => {
    expect((checkpost as Record<string, unknown>).createBot).toBeUndefined();
    expect(typeof bot.createBot).toBe("function");
    expect(typeof bot.botConfigFromEnv).toBe("function");
  });
});
