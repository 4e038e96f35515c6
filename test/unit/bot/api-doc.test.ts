import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { accessOfPath } from "../../../src/bot/api/api-access.ts";
import { CONTROLS } from "../../../src/protocol/index.ts";
import { apiRoutes } from "../../../src/bot/api/api-routes.ts";

type Operation = { security?: Record<string, string[]>[]; responses: Record<string, unknown> };
const doc = parse(readFileSync(new URL("../../../docs/bot-api.openapi.yaml", import.meta.url), "utf8")) as {
  openapi: string;
  security: Record<string, string[]>[];
  paths: Record<string, { get: Operation }>;
  components: { securitySchemes: Record<string, { type: string; scheme: string }> };
};

describe("docs/bot-api.openapi.yaml", () => {
  it("documents exactly the routes the bot's API answers", () => {
    const served = Object.keys(apiRoutes).sort();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(served);
  });

  it("documents the access rule the bot applies to each route", () => {
    expect(doc.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: "http", scheme: "bearer" }));
    expect(doc.security).toEqual([{ bearer: [] }]);
    for (const [path, item] of Object.entries(doc.paths)) {
      const security = item.get.security ?? doc.security;
      const access = accessOfPath(path);
      if (access === "open") expect(security, path).toEqual([]);
      if (access === "token") expect(security, path).toEqual([{ bearer: [] }]);
      if (access === "token-or-loopback") expect(security, path).toEqual([{ bearer: [] }, {}]);
      if (access !== "open") expect(Object.keys(item.get.responses), path).toContain("401");
    }
  });

  it("lists as directive kinds exactly the control registry's directives (protocol/controls)", () => {
    const text = readFileSync(new URL("../../../docs/bot-api.openapi.yaml", import.meta.url), "utf8");
    // Each `directive:` property's first `kind` enum (other kinds, such as anomalies', are not directives).
    const enums = [...text.matchAll(/ directive:\n[\s\S]*?kind: \{ type: string, enum: \[([^\]]*)\] \}/g)].map((m) => (m[1] ?? "").split(/,\s*/));
    expect(enums.length, "the directive's kind enum").toBeGreaterThan(0);
    for (const e of enums) expect(e, "docs/bot-api.openapi.yaml's directive kinds: update them from src/protocol/controls").toEqual([...CONTROLS.directives]);
  });
});
