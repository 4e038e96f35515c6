import { formatCheckpoint, formatControl, formatHealth, pythonUtcIsoformat } from "../../protocol/index.ts";
import type { ControlAction } from "../../protocol/index.ts";
import { type CliIo, clockOf } from "../io.ts";
import { jsonObjectArg } from "../parse-json-arg.ts";

export interface FormatCheckpointOptions {
  agent: string;
  session: string;
  phase: string;
  data?: string;
  dataFile?: string;
  time?: string;
  id?: string;
  seq?: number;
  epoch?: number;
}

/** `checkpost format checkpoint`: print a body in the seed's format. */
export async function formatCheckpointCommand(io: CliIo, o: FormatCheckpointOptions): Promise<void> {
  const data = await jsonObjectArg("--data", o.data, o.dataFile, io);
  io.out(
    formatCheckpoint({
      agent: o.agent,
      session: o.session,
      phase: o.phase,
      data,
      timestamp: o.time ?? pythonUtcIsoformat(clockOf(io)()),
      ...(o.id !== undefined ? { id: o.id } : {}),
      ...(o.seq !== undefined ? { seq: o.seq } : {}),
      ...(o.epoch !== undefined ? { epoch: o.epoch } : {}),
    }),
  );
}

export interface FormatHealthOptions {
  agent: string;
  session: string;
  metrics?: string;
  metricsFile?: string;
  status?: string;
  time?: string;
}

/** `checkpost format health`: print a health body in the seed's format. */
export async function formatHealthCommand(io: CliIo, o: FormatHealthOptions): Promise<void> {
  const metrics = await jsonObjectArg("--metrics", o.metrics, o.metricsFile, io);
  io.out(formatHealth({ agent: o.agent, session: o.session, metrics, timestamp: o.time ?? pythonUtcIsoformat(clockOf(io)()), ...(o.status ? { status: o.status } : {}) }));
}

export interface FormatControlOptions {
  agent: string;
  session: string;
  /** One of the control registry's actions (commander checks the choice). */
  action: ControlAction;
  target?: number;
  targetId?: string;
  epoch?: number;
  by?: string;
  reason?: string;
  time?: string;
}

/** `checkpost format control`: print a `[CONTROL]` body, as the bot records a command. */
export async function formatControlCommand(io: CliIo, o: FormatControlOptions): Promise<void> {
  io.out(
    formatControl({
      agent: o.agent,
      session: o.session,
      action: o.action,
      timestamp: o.time ?? pythonUtcIsoformat(clockOf(io)()),
      ...(o.target !== undefined ? { target: o.target } : {}),
      ...(o.targetId !== undefined ? { targetId: o.targetId } : {}),
      ...(o.epoch !== undefined ? { epoch: o.epoch } : {}),
      ...(o.by !== undefined ? { by: o.by } : {}),
      ...(o.reason !== undefined ? { reason: o.reason } : {}),
    }),
  );
}
