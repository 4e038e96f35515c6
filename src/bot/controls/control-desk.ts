import type { Logger } from "pino";
import type { HostComment, IssueHost, RepoRef } from "../../ports/issue-host.ts";
import { CONTROLS, formatControl, pythonUtcIsoformat, signControl } from "../../protocol/index.ts";
import type { ControlAction, ControlInput } from "../../protocol/index.ts";
import { checkboxCommands, confirmCommand, escapeCode, escapeMarkdown, tickCommandKey } from "../../dashboard/index.ts";
import type { UnconfirmedChange } from "../../dashboard/index.ts";
import type { CommandClaims } from "../../bot-state/index.ts";
import { isProtocolBody } from "../../bot-state/index.ts";
import type { Projection } from "../../projection/index.ts";
import type { BotMetrics } from "../bot-metrics.ts";
import { parseSlashCommands } from "./slash-commands.ts";
import { CommanderCheck } from "./commander-check.ts";
import type { ChainRewindTarget } from "./chain-rewind-target.ts";
import { carriedBody } from "../../chain/carried-body.ts";

export interface ControlDeskOptions {
  api: IssueHost;
  repo: RepoRef;
  issue: number;
  projection: Projection;
  selfLogin: string;
  signingKey?: string;
  logger: Pick<Logger, "info" | "warn">;
  metrics: Pick<BotMetrics, "controls">;
  now: () => Date;
  /** Fold the bot's own new comment at once (the webhook for it may come later or never). */
  applyOwn: (c: HostComment) => void;
  /** Rewrite the dashboard now (reverts a refused tick). */
  refreshDashboard: () => Promise<void>;
  /** Rewrite the dashboard when its hold allows (after an accepted tick: see DashboardWriter). */
  dashboardChanged?: () => void;
  /** Where each command's once-key is claimed (durable, shared by replicas). */
  store: CommandClaims;
  /** The store's key of this issue. */
  storeKey: string;
  /** A rewind target the head does not hold: looked for on the closed predecessors (see chain-rewind-target.ts). */
  chainTarget?: (agent: string, session: string, target: string) => Promise<ChainRewindTarget | null>;
  /**
   * Box changes made while the bot was down and not run (the issue's poster may not command): kept so the
   * dashboard shows each with its confirming command. Called before the dashboard is put back.
   */
  unconfirmed?: (changes: UnconfirmedChange[]) => Promise<void>;
  /** A person's command for this agent+session was accepted: any unconfirmed change for it is settled. */
  commanded?: (agent: string, session: string) => Promise<void>;
}

export type CommandResult = "accepted" | "refused" | "invalid" | "duplicate" | "restored";

/**
 * Who changed the body: the sender of an `issues.edited` webhook; or (polling) only the issue's poster is
 * known; or the change was made while the bot was down (found on restart against the body it last saw).
 */
export type BodyEditor = { login: string } | { unknownEditorOfIssuePostedBy: string } | { whileDownOnIssuePostedBy: string };

/** What a change made while the bot was down is recorded as (`By:`): Forgejo names no body editor. */
export const WHILE_DOWN_BY = "a writer, while the bot was down";

interface Command {
  action: ControlAction;
  agent: string;
  session: string;
  target?: string | number;
}

/**
 * People's commands → `[CONTROL]` comments. Each command is authorized as
 * Forgejo authorizes an issue write (CommanderCheck: the collaborator permission,
 * then the teams that may write issues), checked
 * against the projection (the agent+session must have a row; a rewind target
 * must be one of its recent trusted checkpoints), then recorded as one
 * `[CONTROL]` comment by the bot (signed when a key is set). Refusals get a
 * short reply and are counted; nothing a refused person wrote is repeated
 * unescaped.
 */
export class ControlDesk {
  private readonly refusedReplies = new Map<string, number>();
  private readonly commanders: CommanderCheck;

  constructor(private readonly o: ControlDeskOptions) {
    this.commanders = new CommanderCheck({ api: o.api, repo: o.repo, logger: o.logger, now: o.now });
  }

  /**
   * A comment seen for the first time, by any path (webhook, poll, reconcile):
   * act on its `/checkpost` lines, once ever (the comment id is claimed in the
   * store first). `baseline`: seen on the bot's first read of an older issue:
   * claimed, not run, so history is never replayed. Protocol comments and the
   * bot's own comments are never commands (see selfCommandIgnored).
   */
  async onComment(comment: { id: number; body: string; author: string }, opts: { baseline?: boolean } = {}): Promise<CommandResult[]> {
    if (isProtocolBody(comment.body)) return [];
    const parsed = parseSlashCommands(comment.body);
    if (!parsed.length) return [];
    if (comment.author.toLowerCase() === this.o.selfLogin.toLowerCase()) {
      // Design (issue 19.8): never honoured, said loudly (doctor and the start-up log say it too).
      if (!opts.baseline) this.o.logger.warn({ commentId: comment.id, login: comment.author }, selfCommandIgnored(comment.author));
      return [];
    }
    if (!(await this.o.store.claimCommand(this.o.storeKey, `comment:${comment.id}`, opts.baseline ? "baseline" : "run"))) {
      this.o.logger.info({ commentId: comment.id }, "slash command already handled (redelivered, replayed or read again); not run again");
      return parsed.map((p) => this.count("action" in p ? p.action : "unknown", "duplicate"));
    }
    if (opts.baseline) return [];
    const results: CommandResult[] = [];
    const allowed = await this.commanders.mayCommand(comment.author);
    for (const p of parsed) {
      if (!allowed) {
        results.push(this.count("action" in p ? p.action : "unknown", "refused"));
        continue;
      }
      if ("error" in p) {
        await this.reply(`checkpost: \`${escapeCode(p.line)}\` was not understood: ${escapeMarkdown(p.error, 200)}.`);
        results.push(this.count("unknown", "invalid"));
        continue;
      }
      results.push(await this.execute(p, comment.author, `comment ${comment.id}`));
    }
    if (!allowed && this.mayReplyTo(comment.author))
      await this.reply(`checkpost: only users with write access to this repository can command agents; ${escapeMarkdown(comment.author, 40)}'s command in comment ${comment.id} was ignored.`);
    return results;
  }

  /**
   * A person's edit of the issue body (webhook, poll, or found on restart): act on the control boxes
   * they changed between `before` (the body they edited, or the last one the bot saw) and `after`, each
   * once ever (keyed by the edit, `editKey` from bodyEditKey, and the box's own identity, claimed in the
   * store first).
   */
  async onBodyEdit(before: string, after: string, editor: BodyEditor, editKey: string): Promise<CommandResult[]> {
    const commands = checkboxCommands(before, after);
    if (!commands.length) return [];
    const fresh: typeof commands = [];
    for (const c of commands) if (await this.o.store.claimCommand(this.o.storeKey, tickCommandKey(editKey, c), "run")) fresh.push(c);
    if (fresh.length < commands.length) this.o.logger.info({ duplicates: commands.length - fresh.length }, "dashboard tick already handled (redelivered, replayed or read again); not run again");
    const results: CommandResult[] = commands.filter((c) => !fresh.includes(c)).map((c) => this.count(c.action, "duplicate"));
    if (!fresh.length) {
      this.o.dashboardChanged?.(); // show the boxes as the state is, when the hold allows
      return results;
    }
    const login = "login" in editor ? editor.login : null;
    const allowed =
      "login" in editor
        ? await this.commanders.mayCommand(editor.login)
        : await this.mayEditorCommand("unknownEditorOfIssuePostedBy" in editor ? editor.unknownEditorOfIssuePostedBy : editor.whileDownOnIssuePostedBy);
    if (!allowed && "whileDownOnIssuePostedBy" in editor) {
      // Someone who may edit the body but not command may have made it: never lost, never run unasked.
      // Shown on the dashboard (until confirmed or superseded) and said in a reply, which notifies people.
      await this.o.unconfirmed?.(fresh);
      await this.o.refreshDashboard();
      const confirm = fresh.map((c) => `\`${confirmCommand(c)}\``).join(", ");
      await this.reply(
        `checkpost: while the bot was down, the dashboard's boxes were changed (${confirm}). Forgejo does not say who edits a body, and not everyone who may edit this issue may command agents, so nothing was done and the boxes are shown as the state is. To do it, a person with write access comments: ${confirm}.`,
      );
      this.o.logger.warn({ commands: fresh.length }, "a dashboard change made while the bot was down was not run: the issue's poster may not command, so its editor is unknown");
      return [...results, ...fresh.map((c) => this.count(c.action, "refused"))];
    }
    if (!allowed) {
      await this.o.refreshDashboard(); // put the boxes back as they were
      const who = login ?? "someone";
      if (this.mayReplyTo(who)) await this.reply(`checkpost: only users with write access to this repository can tick the dashboard's controls; ${escapeMarkdown(who, 40)}'s change was reverted.`);
      return [...results, ...fresh.map((c) => this.count(c.action, "refused"))];
    }
    // Polling: Forgejo's API does not name who edited a body; the record says how it came.
    const by = login ?? ("whileDownOnIssuePostedBy" in editor ? WHILE_DOWN_BY : "a writer (dashboard tick seen by polling)");
    for (const c of fresh) results.push(await this.execute(c, by, "checkbox"));
    // Not at once: a rewrite now would make the person's next tick on the same page stale (content_version).
    if (this.o.dashboardChanged) this.o.dashboardChanged();
    else await this.o.refreshDashboard();
    return results;
  }

  /**
   * Polling cannot name a body's editor. Forgejo lets only the issue's poster or
   * someone who may write issues edit it (routers/web/repo/issue.go:2339,
   * UpdateIssueContent; the API's EditIssue alike), so when the poster is the
   * bot or may command, whoever edited may command too.
   */
  private async mayEditorCommand(poster: string): Promise<boolean> {
    if (poster.toLowerCase() === this.o.selfLogin.toLowerCase()) return true;
    return this.commanders.mayCommand(poster);
  }

  /** One refusal reply per login per 10 minutes: an outsider cannot make the bot flood the issue. */
  private mayReplyTo(login: string): boolean {
    const now = this.o.now().getTime();
    const last = this.refusedReplies.get(login.toLowerCase());
    if (last !== undefined && now - last < 600_000) return false;
    if (this.refusedReplies.size > 1000) this.refusedReplies.clear();
    this.refusedReplies.set(login.toLowerCase(), now);
    return true;
  }

  private async execute(c: Command, by: string, reason: string): Promise<CommandResult> {
    const entry = this.o.projection.snapshot().entries.find((e) => e.agent === c.agent && e.session === c.session && e.lastSignalAt !== null);
    if (!entry) {
      await this.reply(`checkpost: no agent ${escapeMarkdown(c.agent, 60)} with session ${escapeMarkdown(c.session, 60)} has a trusted checkpoint or health signal here; nothing done.`);
      return this.count(c.action, "invalid");
    }
    // What each action needs and does is the registry's (protocol/controls).
    const spec = CONTROLS.byName(c.action);
    // Pause is a state: asking for the state it is in records nothing (a tick read twice, two renders compared).
    if ((spec?.effect === "pause" && entry.control?.paused) || (spec?.effect === "unpause" && !entry.control?.paused)) {
      this.o.logger.info({ action: c.action, agent: c.agent, session: c.session, by }, "control asks for the state the agent is already in; nothing recorded");
      await this.o.commanded?.(c.agent, c.session);
      return this.count(c.action, "accepted");
    }
    const input: ControlInput = { agent: c.agent, session: c.session, action: c.action, by, reason, timestamp: pythonUtcIsoformat(this.o.now()) };
    if (spec?.target) {
      const t = String(c.target ?? "");
      let target = entry.recent?.find((r) => String(r.commentId) === t || r.id === t);
      if (!target && this.o.chainTarget) {
        // Saved before a rollover and not carried (a rollover carries only the newest): bring it into the head.
        const older = await this.o.chainTarget(c.agent, c.session, t);
        const held = older?.id !== undefined ? entry.recent?.find((r) => r.id === older.id) : undefined;
        if (held) target = held;
        else if (older) {
          if (older.epoch < entry.maxEpoch) {
            this.o.logger.info(
              { action: c.action, agent: c.agent, session: c.session, by, target: t, issue: older.issue, epoch: older.epoch, maxEpoch: entry.maxEpoch },
              "rewind target is from before a take-over; nothing recorded",
            );
            await this.reply(
              `checkpost: \`${escapeCode(t)}\` is on closed #${older.issue} at epoch ${older.epoch}, from before a take-over (epoch ${entry.maxEpoch} now); a copy would be fenced off, so nothing done. Rewind to a checkpoint listed on the dashboard.`,
            );
            return this.count(c.action, "invalid");
          }
          const copy = await this.o.api.postRecord(this.o.repo, this.o.issue, carriedBody(older.body, { issue: older.issue, commentId: older.commentId }));
          this.o.applyOwn(copy);
          this.o.logger.info({ agent: c.agent, session: c.session, from: older.issue, commentId: older.commentId, copy: copy.id }, "rewind target on a closed issue carried into the head");
          // The copy is the newest checkpoint now (folded in id order before the rewind), and the rewind goes back to it.
          input.target = copy.id;
          if (older.id !== undefined) input.targetId = older.id;
        }
      }
      if (input.target === undefined) {
        if (!target || target.commentId === entry.latest?.commentId) {
          // Logged as well as answered: an operator reading the log sees why a person's rewind did nothing.
          const held = (entry.recent ?? []).map((r) => r.commentId);
          this.o.logger.info({ action: c.action, agent: c.agent, session: c.session, by, target: t, held }, "rewind target is not an earlier trusted checkpoint the bot holds (its last five)");
          await this.reply(`checkpost: \`${escapeCode(t)}\` is not one of ${escapeMarkdown(c.agent, 60)}'s earlier trusted checkpoints listed on the dashboard; nothing done.`);
          return this.count(c.action, "invalid");
        }
        input.target = target.commentId;
        if (target.id !== undefined) input.targetId = target.id;
      }
    }
    // A new epoch above every one handed out: the current worker's next save (at its old epoch) is a zombie.
    // Two above: a worker that resumed without writing holds the highest written epoch + 1 (issue 28.5).
    if (spec?.effect === "fence") input.epoch = entry.maxEpoch + 2;
    if (this.o.signingKey) input.signature = signControl({ ...input, version: "1.0" }, this.o.signingKey);
    const posted = await this.o.api.postRecord(this.o.repo, this.o.issue, formatControl(input));
    this.o.applyOwn(posted);
    this.o.logger.info({ action: c.action, agent: c.agent, session: c.session, by, commentId: posted.id }, "control accepted");
    await this.o.commanded?.(c.agent, c.session);
    return this.count(c.action, "accepted");
  }

  /**
   * Record again a control whose [CONTROL] comment was edited or deleted (issue 19.7: control
   * records are immutable in effect). The new record carries the same action, fence epoch and
   * rewind target, and says which comment it restores; claimed once per comment version.
   */
  async restore(
    agent: string,
    session: string,
    ref: { action: ControlAction; by: string | null; epoch?: number; to?: { commentId: number; id?: string } },
    why: string,
    onceKey: string,
  ): Promise<boolean> {
    if (!(await this.o.store.claimCommand(this.o.storeKey, onceKey, "run"))) return false;
    const input: ControlInput = { agent, session, action: ref.action, by: ref.by ?? "unknown", reason: why, timestamp: pythonUtcIsoformat(this.o.now()) };
    if (ref.epoch !== undefined) input.epoch = ref.epoch;
    if (ref.to) {
      input.target = ref.to.commentId;
      if (ref.to.id !== undefined) input.targetId = ref.to.id;
    }
    if (this.o.signingKey) input.signature = signControl({ ...input, version: "1.0" }, this.o.signingKey);
    const posted = await this.o.api.postRecord(this.o.repo, this.o.issue, formatControl(input));
    this.o.applyOwn(posted);
    this.o.logger.warn({ action: ref.action, agent, session, commentId: posted.id, why }, "a [CONTROL] record was edited or deleted: its effect is recorded again");
    this.count(ref.action, "restored");
    return true;
  }

  private async reply(text: string): Promise<void> {
    const posted = await this.o.api.postRecord(this.o.repo, this.o.issue, text);
    this.o.applyOwn(posted);
  }

  private count(action: string, result: CommandResult): CommandResult {
    this.o.metrics.controls.inc({ action, result });
    return result;
  }
}

/** What the bot says when its own login commands it (log, doctor): such commands are never run. */
export function selfCommandIgnored(login: string): string {
  return `commands (slash comments and dashboard ticks) made with the bot's own login "${login}" are IGNORED: the bot cannot tell them from its own writes. Give people and agents their own accounts (docs/bot.md#who-may-command)`;
}
