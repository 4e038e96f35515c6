import type { JsonValue } from "./json-value.ts";
import type { ParsedComment } from "./schemas.ts";

/** The flat JSON shape `checkpost parse` prints, for agents in other languages. */
export type ParseOutput =
  | ({ kind: "checkpoint"; agent: string; session: string; phase: string; version: string; timestamp: string | null; data: JsonValue } & {
      id?: string;
      seq?: number;
      epoch?: number;
      signature?: string;
    })
  | { kind: "health"; agent: string; session: string; status: string; timestamp: string | null; metrics: JsonValue }
  | { kind: "invalid"; agent: string | null; error: string; marker: "checkpoint" | "health" }
  | { kind: "none" };

export function toParseOutput(p: ParsedComment): ParseOutput {
  switch (p.kind) {
    case "checkpoint": {
      const { agent, session, phase, version, timestamp, data, ...extra } = p.checkpoint;
      return { kind: "checkpoint", agent, session, phase, version, timestamp, data, ...extra };
    }
    case "health": {
      const { agent, session, status, timestamp, metrics } = p.health;
      return { kind: "health", agent, session, status, timestamp, metrics };
    }
    case "invalid":
      return { kind: "invalid", agent: p.agent, error: p.error, marker: p.marker };
    case "none":
      return { kind: "none" };
  }
}
