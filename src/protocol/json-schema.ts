import * as z from "zod";
import { CheckpointSchema, ControlSchema, HealthSchema } from "./schemas.ts";
import { JsonValueSchema, jsonValueJsonSchema } from "./json-value.ts";

/**
 * JSON Schema (draft 2020-12) of the data model, for agents in other languages.
 * Written to schema/checkpost.schema.json by `npm run schema`; a test keeps the
 * committed file equal to this.
 */
export function protocolJsonSchema(): Record<string, unknown> {
  const registry = z.registry<{ id: string; description: string }>();
  registry.add(CheckpointSchema, { id: "Checkpoint", description: "A [CHECKPOINT] comment's fields (protocol 1.0 plus checkpost's additive Id/Seq/Epoch/Signature)." });
  registry.add(JsonValueSchema, { id: "JsonValue", description: "Any JSON value (finite numbers only)." });
  registry.add(HealthSchema, { id: "Health", description: "A [HEALTH] comment's fields." });
  registry.add(ControlSchema, { id: "Control", description: "A [CONTROL] comment's fields (checkpost's additive kind; 1.0 readers ignore it)." });
  const out = z.toJSONSchema(registry, {
    unrepresentable: "any",
    io: "output",
    uri: (id) => `#/$defs/${id}`,
    // JsonValueSchema is a custom check (fast, see json-value.ts): spell out what it accepts.
    override: (ctx) => {
      if ((ctx.zodSchema as unknown) === JsonValueSchema) Object.assign(ctx.jsonSchema, jsonValueJsonSchema("#/$defs/JsonValue"));
    },
  }) as { schemas: Record<string, Record<string, unknown>> };
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://checkpost.invalid/schema/checkpost.schema.json",
    title: "checkpost session-state protocol 1.0",
    $defs: Object.fromEntries(Object.entries(out.schemas).map(([k, { $schema: _s, $id: _i, ...v }]) => [k, v])),
  };
}
