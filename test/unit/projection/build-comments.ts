import { formatCheckpoint, formatHealth, signCheckpoint } from "../../../src/protocol/index.ts";
import type { CheckpointInput, JsonObject } from "../../../src/protocol/index.ts";
import type { CommentEvent, CommentRecord, TrustPolicy } from "../../../src/projection/index.ts";

export const T0 = Date.parse("2026-11-29T10:00:00Z");
export const KEY = "s3cret-signing-key";
export const policy: TrustPolicy = { trustedAuthors: new Set(["CI-Bot", "worker"]) };
export const signedPolicy: TrustPolicy = { ...policy, signingKey: KEY };

/** Server time `s` seconds after T0, as Forgejo writes it. */
export const at = (s: number) => new Date(T0 + s * 1000).toISOString().replace(".000Z", "Z");

type Cp = Partial<CheckpointInput> & { sign?: string };

export function cpBody(o: Cp = {}): string {
  const input: CheckpointInput = {
    agent: "implementation-worker",
    session: "s1",
    phase: "clone_complete",
    timestamp: "2026-11-29T10:00:00.500000Z",
    data: { branch_name: "feat/x" } as JsonObject,
    ...o,
  };
  delete (input as Cp).sign;
  if (o.sign !== undefined) input.signature = signCheckpoint(input, o.sign);
  return formatCheckpoint(input);
}

export function healthBody(o: { agent?: string; session?: string; status?: string; timestamp?: string; metrics?: JsonObject } = {}): string {
  return formatHealth({
    agent: o.agent ?? "implementation-worker",
    session: o.session ?? "s1",
    timestamp: o.timestamp ?? "2026-11-29T10:00:00Z",
    status: o.status ?? "Active",
    metrics: o.metrics ?? { cycle: 1 },
  });
}

/** A comment posted at T0 + id seconds (server order = id order) and never edited. */
export function comment(id: number, body: string, o: Partial<CommentRecord> = {}): CommentRecord {
  const t = at(o.createdAt === undefined ? id : 0);
  return {
    id,
    author: "worker",
    body,
    createdAt: t,
    updatedAt: t,
    htmlUrl: `https://forge.example/o/r/issues/1#issuecomment-${id}`,
    ...o,
    ...(o.createdAt !== undefined && o.updatedAt === undefined ? { updatedAt: o.createdAt } : {}),
  };
}

export const up = (c: CommentRecord): CommentEvent => ({ type: "upsert", comment: c });
export const del = (commentId: number): CommentEvent => ({ type: "delete", commentId });
