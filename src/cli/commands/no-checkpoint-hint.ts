import type { CliContext } from "../context.ts";
import type { CliIo } from "../io.ts";
import type { ProjectionSnapshot } from "../../projection/index.ts";
import { compareCodePoints } from "../../protocol/index.ts";
import { ExitError } from "../../errors.ts";
import { closeNames } from "../../util/close-names.ts";
import { EXIT } from "../exit-codes.ts";

/** Most agent names a hint lists; the rest are counted. */
const MAX_NAMES = 20;

const list = (names: string[]) => (names.length === 0 ? "none" : names.length <= MAX_NAMES ? names.join(", ") : `${names.slice(0, MAX_NAMES).join(", ")} … (${names.length - MAX_NAMES} more)`);

/**
 * What `resume`/`latest` print on stderr when an agent has no checkpoint: a typo in --agent or --session
 * otherwise reads as a fresh start. Names the agents that do have one (in that session, or in any), and
 * the sessions this agent has checkpoints in when the session is the mismatch. The answer on stdout and
 * the exit code are unchanged: a fresh agent is a normal case, unless --existing asked for one
 * (`existingRequired`), which exits EXIT.unknownAgent (4).
 */
export function noCheckpointHint(snapshot: ProjectionSnapshot, agent: string, session: string | undefined): string {
  const withCheckpoint = snapshot.entries.filter((e) => e.latest !== null);
  const inScope = withCheckpoint.filter((e) => session === undefined || e.session === session);
  const agents = [...new Set(inScope.map((e) => e.agent))].sort(compareCodePoints);
  const where = session === undefined ? "any session" : `session ${session}`;
  let hint = `no checkpoint for ${agent} in ${where}; known agents: ${list(agents)}`;
  // A typo otherwise starts a new worker from scratch beside the one that was meant.
  const near = closeNames(agent, [...new Set(withCheckpoint.map((e) => e.agent))]);
  if (near.length) hint += `; did you mean ${near.slice(0, 3).join(" or ")}?`;
  if (session !== undefined) {
    const elsewhere = [...new Set(withCheckpoint.filter((e) => e.agent === agent).map((e) => e.session))].sort(compareCodePoints);
    if (elsewhere.length) hint += `; ${agent} has checkpoints in sessions: ${list(elsewhere)}`;
  }
  return hint;
}

/**
 * Print noCheckpointHint on stderr. It costs a read of the issue, paid only when there was nothing to
 * resume from; if that read fails, the answer already printed stands and the failure is named instead.
 */
export async function warnNoCheckpoint(io: CliIo, ctx: Pick<CliContext, "withStore">, agent: string, session: string | undefined, existing = false): Promise<void> {
  try {
    io.err(`checkpost: ${noCheckpointHint(await ctx.withStore((s) => s.snapshot()), agent, session)}`);
  } catch (e) {
    io.err(`checkpost: no checkpoint for ${agent}${session === undefined ? "" : ` in session ${session}`} (could not list the known agents: ${e instanceof Error ? e.message : String(e)})`);
  }
  existingRequired(existing);
}

/** With --existing, an agent with no checkpoint is an error (exit 4); the hint above already said why. */
export function existingRequired(existing: boolean | undefined): void {
  if (existing) throw new ExitError(EXIT.unknownAgent, "--existing: that agent has no checkpoint (exit 4)");
}
