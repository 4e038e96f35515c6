import type { CommentKind } from "../comment-kind.ts";
import { formatHealth } from "../format-comment.ts";
import type { JsonValue } from "../json-value.ts";
import { HEALTH_MARKER, HealthSchema } from "../schemas.ts";
import type { Health, HealthInput } from "../schemas.ts";
import { requireHeader } from "./header-values.ts";

/** `[HEALTH] <agent>`: the seed's health signal. */
export const healthKind: CommentKind<"health", Health, HealthInput, { agent: string; session: string; status: string; timestamp: string | null; metrics: JsonValue }> = {
  kind: "health",
  marker: HEALTH_MARKER,
  label: "health signal",
  schema: HealthSchema,
  jsonSchema: { id: "Health", description: "A [HEALTH] comment's fields." },
  format: formatHealth,
  output: ({ agent, session, status, timestamp, metrics }) => ({ agent, session, status, timestamp, metrics }),
  entryOf: ({ agent, session }) => ({ agent, session }),
  headers: new Map([
    ["session", "session"],
    ["time", "time"],
    ["status", "status"],
    ["next check", "nextCheck"],
  ]),
  json: "required",
  read(agent, headers, metrics) {
    return {
      agent,
      session: requireHeader(headers, "session", "Session"),
      timestamp: headers.get("time") || null,
      status: headers.get("status") || "Unknown",
      metrics: metrics ?? null,
      nextCheck: headers.get("nextCheck") ?? null,
    };
  },
};
