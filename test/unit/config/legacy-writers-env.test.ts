import { describe, expect, it } from "vitest";
import { ClientEnvSchema, parseEnv } from "../../../src/config/env.ts";
import { botConfigFromEnv, loadBotEnv } from "../../../src/config/bot-env.ts";
import { ConfigError } from "../../../src/errors.ts";

describe("CHECKPOST_LEGACY_WRITERS", () => {
  it("defaults to fence (also when empty), takes accept, and names the variable and its values otherwise", () => {
    expect(parseEnv(ClientEnvSchema, {}).CHECKPOST_LEGACY_WRITERS).toBe("fence");
    expect(parseEnv(ClientEnvSchema, { CHECKPOST_LEGACY_WRITERS: "" }).CHECKPOST_LEGACY_WRITERS).toBe("fence");
    expect(parseEnv(ClientEnvSchema, { CHECKPOST_LEGACY_WRITERS: "accept" }).CHECKPOST_LEGACY_WRITERS).toBe("accept");
    expect(() => parseEnv(ClientEnvSchema, { CHECKPOST_LEGACY_WRITERS: "Accept" })).toThrow(ConfigError);
    expect(() => parseEnv(ClientEnvSchema, { CHECKPOST_LEGACY_WRITERS: "yes" })).toThrow(/CHECKPOST_LEGACY_WRITERS: must be "fence" .* or "accept"/);
  });

  it("reaches the bot's config", () => {
    const env = loadBotEnv({ CHECKPOST_INSECURE_NO_WEBHOOK_SECRET: "1", FORGEJO_REPO: "o/r", CHECKPOST_LEGACY_WRITERS: "accept" });
    expect(botConfigFromEnv(env, { url: "http://127.0.0.1:3001", token: "t" }).legacyWriters).toBe("accept");
    expect(botConfigFromEnv(loadBotEnv({ CHECKPOST_INSECURE_NO_WEBHOOK_SECRET: "1", FORGEJO_REPO: "o/r" }), { url: "http://x", token: "t" }).legacyWriters).toBe("fence");
  });
});
