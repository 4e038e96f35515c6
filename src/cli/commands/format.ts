import { formatCheckpoint, formatHealth, pythonUtcIsoformat } from "../../protocol/index.ts";
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
