/**
 * The reference model of the mixed-fleet suite: what every reader must answer, written from the
 * documents (docs/dashboard.md "Controls", docs/reliability.md "Fencing" and "Mixed fleets"), not
 * from the projection's code, and kept as simple as the rules allow. It sees only what the harness
 * did, in the order it did it (each step waits for the previous one, so that order is the forge's
 * comment order): a save is believed unless its epoch is below the fence; a person's control is in
 * effect from the moment it was given. Which issue a save landed on, rollovers, compaction, bot
 * restarts: none of these change the truth, so the model does not know about them.
 */

export type DirectiveKind = "pause" | "rewind" | "release";

/** One save the harness made: `n` is unique in the run and written into the checkpoint's data. */
export interface SaveFact {
  n: number;
  phase: string;
  /** The epoch written (`Epoch:`), 0 when none (the seed's 1.0 writer, or a checkpost save before any resume). */
  epoch: number;
  /** The checkpoint's `Id:` (checkpost writers), for a rewind by slash command. */
  id?: string;
  /** The comment the save made (unknown for the seed's writer, which does not print it). */
  commentId?: number;
}

export interface TruthAnswer {
  /** The save the agent resumes from (its data's `n`), null for none. */
  n: number | null;
  phase: string | null;
  directive: DirectiveKind | null;
}

interface AgentTruth {
  /** The believed save in effect (the resume point), null before any. */
  current: SaveFact | null;
  /** Believed saves, oldest first (rewind targets). */
  believed: SaveFact[];
  /** The fence: the highest epoch of a believed checkpoint or a rewind/release. */
  fence: number;
  paused: boolean;
  pending: "rewind" | "release" | null;
}

/**
 * How many believed checkpoints (the current one included) the truth keeps as rewind targets. Written
 * here, not imported, so that the model stays independent of the code it judges; a unit test holds it
 * equal to the projection's RECENT_CHECKPOINTS.
 */
export const RECENT_BELIEVED = 5;

const k = (agent: string, session: string) => JSON.stringify([agent, session]);

export class FleetModel {
  private readonly agents = new Map<string, AgentTruth>();
  /** Saves refused as below the fence (for the figures). */
  zombies = 0;

  private get(agent: string, session: string): AgentTruth {
    let a = this.agents.get(k(agent, session));
    if (!a) {
      a = { current: null, believed: [], fence: 0, paused: false, pending: null };
      this.agents.set(k(agent, session), a);
    }
    return a;
  }

  /** A save by a trusted writer landed (on whichever issue of the session). Returns whether it is believed. */
  save(agent: string, session: string, s: SaveFact): boolean {
    const a = this.get(agent, session);
    // docs/reliability.md: a checkpoint whose epoch is below one already seen is a zombie (a missing Epoch reads as 0).
    if (s.epoch < a.fence) {
      this.zombies++;
      return false;
    }
    a.fence = s.epoch;
    a.current = s;
    a.believed.push(s);
    // docs/reliability.md: a believed checkpoint ends a pending rewind or release; a pause stays until unpaused.
    a.pending = null;
    return true;
  }

  pause(agent: string, session: string): void {
    this.get(agent, session).paused = true;
  }

  unpause(agent: string, session: string): void {
    this.get(agent, session).paused = false;
  }

  /**
   * docs/dashboard.md: rewind to that trusted checkpoint, with a new fence two above the highest epoch
   * (a worker that resumed without writing holds one above it, and must be fenced off too).
   */
  rewind(agent: string, session: string, to: SaveFact): void {
    const a = this.get(agent, session);
    a.current = to;
    a.fence += 2;
    a.pending = "rewind";
  }

  /** docs/dashboard.md: release with a new fence (two above the highest epoch, as a rewind) at the current checkpoint. */
  release(agent: string, session: string): void {
    const a = this.get(agent, session);
    a.fence += 2;
    a.pending = "release";
  }

  /** What every reader must answer for this agent+session. Pause is reported before a pending rewind or release. */
  answer(agent: string, session: string): TruthAnswer {
    const a = this.agents.get(k(agent, session));
    if (!a) return { n: null, phase: null, directive: null };
    return { n: a.current?.n ?? null, phase: a.current?.phase ?? null, directive: a.paused ? "pause" : a.pending };
  }

  current(agent: string, session: string): SaveFact | null {
    return this.agents.get(k(agent, session))?.current ?? null;
  }

  /**
   * The believed saves before the current one among the last five believed, newest first: what every
   * reader can still go back to. The bot's fold keeps five believed checkpoints, the newest among them
   * (RECENT_CHECKPOINTS, src/projection/bounded-history.ts), so a rewind reaches four back, not five: a
   * sixth-newest target would be a `rejected-control` for the bot while a full cold fold accepted it.
   * Seed 2031's schedule 91 asked for the fifth one back and the bot rightly refused it.
   */
  rewindTargets(agent: string, session: string): SaveFact[] {
    const a = this.agents.get(k(agent, session));
    if (!a?.current) return [];
    const cur = a.current.n;
    return a.believed
      .slice(-RECENT_BELIEVED)
      .filter((s) => s.n < cur)
      .reverse();
  }

  fence(agent: string, session: string): number {
    return this.agents.get(k(agent, session))?.fence ?? 0;
  }

  paused(agent: string, session: string): boolean {
    return this.agents.get(k(agent, session))?.paused ?? false;
  }
}
