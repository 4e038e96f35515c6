import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../../src/bot/api-routes.ts";

const doc = parse(readFileSync(new URL("../../../docs/bot-api.openapi.yaml", import.meta.url), "utf8")) as { openapi: string; paths: Record<string, unknown> };

describe("docs/bot-api.openapi.yaml", () => {
  it("documents exactly the routes the bot's API answers", () => {
    const served = Object.keys(apiRoutes).sort();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(served);
  });
});
