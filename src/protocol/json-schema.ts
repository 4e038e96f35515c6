import * as z from "zod";
import type { AnyCommentKind } from "./comment-kind.ts";
import { PROTOCOL_KINDS } from "./comment-kinds.ts";
import type { KindRegistry } from "./comment-kinds.ts";
import { JsonValueSchema, jsonValueJsonSchema } from "./json-value.ts";

/**
 * JSON Schema (draft 2020-12) of the data model, for agents in other languages.
 * Written to schema/checkpost.schema.json by `npm run schema`; a test keeps the
 * committed file equal to this. One $defs entry per comment kind (its registry line's `jsonSchema`).
 */
export function protocolJsonSchema(kinds: KindRegistry<readonly AnyCommentKind[]> = PROTOCOL_KINDS): Record<string, unknown> {
  const registry = z.registry<{ id: string; description: string }>();
  const [first, ...rest] = kinds.kinds;
  // The first kind, then JsonValue, then the rest: the order the committed file has always had.
  if (first) registry.add(first.schema, first.jsonSchema);
  registry.add(JsonValueSchema, { id: "JsonValue", description: "Any JSON value (finite numbers only)." });
  for (const k of rest) registry.add(k.schema, k.jsonSchema);
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
