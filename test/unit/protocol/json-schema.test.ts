import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parseComment, protocolJsonSchema } from "../../../src/protocol/index.ts";
import { commentFixture } from "../../../fixtures/index.ts";

const committed = JSON.parse(readFileSync(new URL("../../../schema/checkpost.schema.json", import.meta.url), "utf8")) as Record<string, unknown>;

describe("exported JSON Schema", () => {
  it("is up to date with the zod schemas (run `npm run schema` after changing them)", () => {
    expect(committed).toEqual(protocolJsonSchema());
  });

  it("accepts what the reader produces and rejects a malformed checkpoint", () => {
    const ajv = new Ajv2020.default({ strict: false });
    ajv.addSchema(committed, "checkpost");
    const validate = ajv.getSchema("checkpost#/$defs/Checkpoint");
    expect(validate).toBeDefined();
    const p = parseComment(commentFixture("seed-fenced"));
    if (p.kind !== "checkpoint") throw new Error("fixture must parse");
    expect(validate?.(p.checkpoint)).toBe(true);
    expect(validate?.({ ...p.checkpoint, seq: 0 })).toBe(false);
    expect(validate?.({ ...p.checkpoint, agent: undefined })).toBe(false);
  });
});
