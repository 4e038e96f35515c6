import type { JsonValue } from "./json-value.ts";
import type { Control, ControlAction, ParsedComment } from "./schemas.ts";

/** The flat JSON shape `checkpost parse` prints, for agents in other languages. */
export type ParseOutput =
  | ({ kind: "checkpoint"; agent: string; session: string; phase: string; version: string; timestamp: string | null; data: JsonValue } & {
      id?: string;
      seq?: number;
      epoch?: number;
      signature?: string;
    })
  | { kind: "health"; agent: string; session: string; status: string; timestamp: string | null; metrics: JsonValue }
  | ({ kind: "control"; agent: string; session: string; action: ControlAction; timestamp: string | null } & Omit<Control, "agent" | "session" | "action" | "timestamp" | "version">)
  | { kind: "invalid"; agent: string | null; error: string; marker: "checkpoint" | "health" | "control" }
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
    case "control": {
      const { agent, session, action, timestamp, version: _v, ...extra } = p.control;
      return { kind: "control", agent, session, action, timestamp, ...extra };
    }
    case "invalid":
      return { kind: "invalid", agent: p.agent, error: p.error, marker: p.marker };
    case "none":
      return { kind: "none" };
  }
}
