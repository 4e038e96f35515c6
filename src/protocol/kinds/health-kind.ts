import type { CommentKind } from "../comment-kind.ts";
import { HEALTH_MARKER, HealthSchema } from "../schemas.ts";
import type { Health } from "../schemas.ts";
import { requireHeader } from "./header-values.ts";

/** `[HEALTH] <agent>`: the seed's health signal. */
export const healthKind: CommentKind<"health", Health> = {
  kind: "health",
  marker: HEALTH_MARKER,
  label: "health signal",
  schema: HealthSchema,
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
