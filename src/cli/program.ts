import { Command, InvalidArgumentError, Option } from "commander";
// The registry itself, not protocol/index.ts: it holds no schema, so the hot CLI path stays light.
import { CONTROLS } from "../protocol/controls/control-actions.ts";
import { ExitError } from "../errors.ts";
import type { CliRoot } from "./context.ts";
import type { CliIo } from "./io.ts";
import { packageVersion } from "./package-version.ts";

const int = (name: string) => (v: string) => {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`${name} must be a whole number`);
  return Number(v);
};

/** One line per control action, from the registry: its name, what it needs, and what it does. */
export function controlActionsHelp(): string {
  const width = Math.max(...CONTROLS.names.map((n) => n.length));
  return CONTROLS.actions
    .map((a) => {
      const needs = a.target ? " (needs --target, --epoch)" : a.effect === "fence" ? " (needs --epoch)" : "";
      return `  ${a.action.padEnd(width)}  ${a.summary}${needs}`;
    })
    .join("\n");
}

/**
 * Mandatory flags, checked together before the action runs so one message names every missing flag
 * (commander's requiredOption stops at the first). Unknown options are reported by commander before this.
 */
const REQUIRED = new WeakMap<Command, string[]>();
function required(cmd: Command, ...flags: string[]): Command {
  REQUIRED.set(cmd, flags);
  return cmd;
}
function checkRequired(cmd: Command): void {
  const flags = REQUIRED.get(cmd) ?? [];
  const opts = cmd.opts();
  const camel = (flag: string) => flag.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  const missing = flags.filter((f) => opts[camel(f)] === undefined);
  if (missing.length)
    throw new ExitError(
      2,
      `${cmd.name()}: missing ${missing.length === 1 ? "flag" : "flags"} ${missing.join(", ")} (see checkpost ${cmd.parent && cmd.parent.name() !== "checkpost" ? `${cmd.parent.name()} ` : ""}${cmd.name()} --help)`,
    );
}

/** The end of `checkpost --help`: examples, exit codes, the environment (.env.example lists every variable). */
const MAIN_HELP = `
Examples:
  checkpost init                                         # find or create the session issue
  checkpost save --agent worker --session s1 --phase tests_green --data '{"sha":"abc"}'
  checkpost resume --agent worker --session s1           # where to continue, as JSON
  checkpost status                                       # who needs attention
  checkpost history --agent worker | head -5
  checkpost --env-file staging.env doctor

Exit codes:
  0 ok, 1 failure (the message says what to fix), 2 usage, 3 status: something needs attention,
  4 resume/latest --existing: no checkpoint for that agent, 5 --env-file cannot be read

Environment (also read from ./.env or --env-file; set variables win; .env.example lists all):
  FORGEJO_URL                  Forgejo base URL
  FORGEJO_TOKEN                access token (scopes write:issue, read:repository, read:user)
  FORGEJO_REPO                 owner/repo of the session issue (FORGEJO_REPOSITORY: an alias)
  CHECKPOST_ISSUE              session issue number (skips the lookup)
  CHECKPOST_TRUSTED_AUTHORS    logins believed besides the token's user, comma-separated
  CHECKPOST_SIGNING_KEY        sign checkpoints; believe only valid signatures
  CHECKPOST_PHASE_MAPS         JSON file of agent → phase map
  CHECKPOST_CACHE_DIR          the CLI's per-machine folder (default ~/.cache/checkpost)
  CHECKPOST_CODE_CACHE=0       no V8 code cache (read from the real environment only)
  LOG_LEVEL                    warn (default), info, debug…
  NO_COLOR                     no colours in status
`;

/** Flags shared by every command that talks to Forgejo. */
function repoFlags(cmd: Command): Command {
  return cmd
    .option("--repo <owner/repo>", "repository holding the session issue (env FORGEJO_REPO)")
    .option("--issue <n>", "session issue number; skips the lookup (env CHECKPOST_ISSUE)", int("--issue"))
    .option("--url <url>", "Forgejo base URL (env FORGEJO_URL)");
}

/**
 * Declares the commands; each is lazy-loaded from ./commands so `checkpost parse`
 * does not pay for the HTTP client. The commands get their settings, stores and clients from `root`
 * (the composition root, src/app/). Only src/app/cli-main.ts exits.
 */
export function buildProgram(io: CliIo, root: CliRoot): Command {
  const program = new Command("checkpost")
    .description("Checkpoint and resume AI agents through one Forgejo issue")
    .version(packageVersion(), "-V, --version", "print the version")
    .option("--debug", "log each request (method, path, status, ms) and print stack traces")
    // Read by run-cli.ts before commander runs (env-file.ts); declared here for --help and so it parses.
    .option("--env-file <file>", "read settings from this file instead of ./.env (set variables win)")
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .showSuggestionAfterError();
  program.hook("preAction", (_program, action) => checkRequired(action));
  // A function, so the text is only built when --help is asked for.
  program.addHelpText("after", () => MAIN_HELP);
  const helpAfter = (cmd: Command, text: string) => cmd.addHelpText("after", () => `\nExamples:\n${text}`);
  const debug = () => Boolean(program.opts()["debug"]);

  program
    .command("parse")
    .description("read one comment body on stdin; print what it is as JSON (always exits 0)")
    .action(async () => (await import("./commands/parse.ts")).parse(io));

  const format = program.command("format").description("print a comment body in the seed's format");
  required(format.command("checkpoint"), "--agent", "--session", "--phase")
    .option("--agent <name>")
    .option("--session <id>")
    .option("--phase <phase>")
    .option("--data <json>", "state as a JSON object")
    .option("--data-file <file>", "state from a JSON file (- reads stdin)")
    .option("--time <iso>", "timestamp (default: now, Python isoformat + Z)")
    .option("--id <id>")
    .option("--seq <n>", "", int("--seq"))
    .option("--epoch <n>", "", int("--epoch"))
    .action(async (o) => (await import("./commands/format.ts")).formatCheckpointCommand(io, o));
  required(format.command("health"), "--agent", "--session")
    .option("--agent <name>")
    .option("--session <id>")
    .option("--metrics <json>", "metrics as a JSON object")
    .option("--metrics-file <file>", "metrics from a JSON file (- reads stdin)")
    .option("--status <status>", "", "Active")
    .option("--time <iso>")
    .action(async (o) => (await import("./commands/format.ts")).formatHealthCommand(io, o));
  required(format.command("control"), "--agent", "--session", "--action")
    .description("a [CONTROL] body, as the bot records a person's command (for tools and tests; readers believe only trusted authors')")
    .option("--agent <name>")
    .option("--session <id>")
    .addOption(new Option("--action <action>", "what it asks (see below)").choices(CONTROLS.names))
    .option("--target <comment-id>", "the checkpoint to go to (actions that take one)", int("--target"))
    .option("--target-id <id>", "that checkpoint's Id:")
    .option("--epoch <n>", "the fence (actions that raise one)", int("--epoch"))
    .option("--by <login>", "whose command it is")
    .option("--reason <text>", 'where it came from ("comment 12", "checkbox")')
    .option("--time <iso>", "timestamp (default: now, Python isoformat + Z)")
    .addHelpText("after", () => `\nActions (src/protocol/controls):\n${controlActionsHelp()}\n`)
    .action(async (o) => (await import("./commands/format.ts")).formatControlCommand(io, o));

  repoFlags(required(program.command("save").description("post a checkpoint (exactly once) and print it with its comment id"), "--agent", "--session", "--phase"))
    .option("--agent <name>")
    .option("--session <id>")
    .option("--phase <phase>")
    .option("--data <json>", "state as a JSON object")
    .option("--data-file <file>", "state from a JSON file (- reads stdin)")
    .option("--seq <n>", "sequence number (default: continue what `resume` on this machine remembered)", int("--seq"))
    .option("--epoch <n>", "writer epoch (default: the one `resume` on this machine took over with)", int("--epoch"))
    .option("--map <name|file>", "phase map to check the phase against (default: the agent's own, see --maps)")
    .option("--maps <file>", "JSON file of agent → phase map (env CHECKPOST_PHASE_MAPS)")
    .action(async (o) => (await import("./commands/store-commands.ts")).save(io, { ...o, debug: debug() }, root));
  helpAfter(
    program.commands.at(-1) as Command,
    `  checkpost save --agent implementation-worker --session s1 --phase commit_complete --data '{"commit_sha":"abc"}'
  echo '{"pr": 12}' | checkpost save --agent review-worker --session s1 --phase review_posted --data-file -`,
  );

  repoFlags(required(program.command("health").description("post a health signal"), "--agent", "--session"))
    .option("--agent <name>")
    .option("--session <id>")
    .option("--metrics <json>", "metrics as a JSON object")
    .option("--metrics-file <file>", "metrics from a JSON file (- reads stdin)")
    .option("--status <status>", "", "Active")
    .action(async (o) => (await import("./commands/store-commands.ts")).health(io, { ...o, debug: debug() }, root));

  repoFlags(required(program.command("latest").description("print the newest trusted checkpoint of an agent, or null"), "--agent"))
    .option("--agent <name>")
    .option("--session <id>")
    .option("--all-issues", "follow the chain of rolled-over issues (docs/retention.md)")
    .option("--existing", "exit 4 when the agent has no checkpoint (default: print null, exit 0)")
    .action(async (o) =>
      o.allIssues
        ? (await import("./commands/history.ts")).latestAllIssues(io, { ...o, debug: debug() }, root)
        : (await import("./commands/store-commands.ts")).latest(io, { ...o, debug: debug() }, root),
    );

  repoFlags(program.command("history").description("every checkpoint across the chain of rolled-over issues, one JSON line each"))
    .option("--agent <name>")
    .option("--session <id>")
    .option("--archived", "the health signals compaction archived (attachments of each issue), one JSON line each")
    .action(async (o) => (await import("./commands/history.ts")).history(io, { ...o, debug: debug() }, root));

  repoFlags(program.command("compact").description("archive, then delete superseded health signals older than the retention (the bot does this itself)"))
    .option("--retention <duration>", "keep superseded health this long (env CHECKPOST_HEALTH_RETENTION)", "24h")
    .option("--dry-run", "print what would be archived and deleted; change nothing")
    .action(async (o) => (await import("./commands/compact.ts")).compact(io, { ...o, debug: debug() }, root));

  repoFlags(required(program.command("resume").description("print where an agent resumes: resume_point, phase, state"), "--agent", "--session"))
    .option("--agent <name>")
    .option("--session <id>")
    .option("--map <name|file>", "phase map: built-in name or JSON file (default: the agent's own, see --maps; none: resume_point is the phase)")
    .option("--maps <file>", "JSON file of agent → phase map or built-in name (env CHECKPOST_PHASE_MAPS)")
    .option("--take-over", "write the fence now: re-save the checkpoint under the new epoch (one extra request)")
    .option("--legacy-writers <fence|accept>", "a seed (1.0) agent's checkpoint below a take-over's fence: refuse it or resume from it (env CHECKPOST_LEGACY_WRITERS, default fence)", (v: string) => {
      if (v !== "fence" && v !== "accept") throw new InvalidArgumentError('must be "fence" or "accept"');
      return v;
    })
    .option("--existing", "the agent must have a checkpoint: exit 4 instead of a fresh start (catches a typo in --agent)")
    .action(async (o) => (await import("./commands/store-commands.ts")).resume(io, { ...o, debug: debug() }, root));
  helpAfter(
    program.commands.at(-1) as Command,
    `  checkpost resume --agent implementation-worker --session s1          # {"resume_point": …, "phase": …, "state": {…}, …}
  checkpost resume --agent w --session s1 --map ./maps/worker.json --take-over
An agent with no checkpoint answers a fresh start (exit 0) and stderr names the agents that have one,
with "did you mean" for a name one typo from a known agent's; --existing makes it exit 4 instead.`,
  );

  repoFlags(program.command("status").description("what needs attention, then agents by session: phase → resume point, checkpoint age, health, liveness"))
    .option("--json", "machine-readable snapshot (unchanged)")
    .option("--watch [seconds]", "redraw every N seconds (default 10) until Ctrl-C")
    .option("--times <n>", "with --watch: stop after n refreshes")
    .action(async (o) => (await import("./commands/status.ts")).status(io, { ...o, debug: debug() }, root));
  helpAfter(
    program.commands.at(-1) as Command,
    `  checkpost status                  # exit 3 when something needs attention
  checkpost status --watch 5        # redraw every 5 s until Ctrl-C
  checkpost status --json | jq '.entries[] | {agent, session}'`,
  );

  const snapshot = program.command("snapshot").description("save or restore an agent's native state (JSONL transcripts, SQLite databases) as attachments on the forge");
  repoFlags(required(snapshot.command("save").description("upload what changed in the agent's files and name it in a [SNAPSHOT] comment; prints it as JSON"), "--agent", "--session"))
    .argument("[paths...]", "files to snapshot (append-only files upload only their new tail)")
    .option("--agent <name>")
    .option("--session <id>")
    .option("--sqlite <db>", "an SQLite database, copied with an online backup while its writer runs (repeatable)", (v: string, all: string[] = []) => [...all, v])
    .option("--epoch <n>", "writer epoch (default: the one `resume` took over with on this machine)", int("--epoch"))
    .option("--force", "publish files whose stored prefix changed as a full replacement")
    .option("--every <duration>", "snapshot on this interval (e.g. 15s) and once more on SIGTERM, until stopped")
    .action(async (paths: string[], o) => (await import("./commands/snapshot.ts")).snapshotSave(io, { ...o, paths, debug: debug() }, root));
  helpAfter(
    snapshot.commands.at(-1) as Command,
    `  checkpost snapshot save --agent worker --session s1 transcript.jsonl
  checkpost snapshot save --agent worker --session s1 --sqlite state.db --every 15s transcript.jsonl`,
  );
  repoFlags(required(snapshot.command("restore").description("write the agent's newest snapshot under --into (atomic; newer local files are kept)"), "--agent", "--session", "--into"))
    .option("--agent <name>")
    .option("--session <id>")
    .option("--into <dir>", "folder to restore into (files go to the paths they were saved under)")
    .option("--force", "overwrite local files that are newer than the snapshot or extend it")
    .action(async (o) => (await import("./commands/snapshot.ts")).snapshotRestore(io, { ...o, debug: debug() }, root));

  repoFlags(program.command("init").description("find the session issue, creating it and its label if missing")).action(async (o) =>
    (await import("./commands/store-commands.ts")).init(io, { ...o, debug: debug() }, root),
  );

  repoFlags(required(program.command("install-webhook").description("register the bot's webhook on the repository (events from app.yml, secret from WEBHOOK_SECRET)"), "--bot-url"))
    .option("--bot-url <url>", "where Forgejo reaches the bot, e.g. http://bot.internal:3000")
    .option("--app <file>", "app.yml to read (default: the one checkpost ships with)")
    .action(async (o) => (await import("./commands/install-webhook.ts")).installWebhook(io, { ...o, debug: debug() }, root));

  repoFlags(program.command("rebuild").description("refill the bot's store from a full read of the session issue (stop the bot first)"))
    .option("--store <file>", "the bot's store (env CHECKPOST_STORE_FILE; default <CHECKPOST_DATA_DIR>/bot/projection.sqlite)")
    .action(async (o) => (await import("./commands/rebuild.ts")).rebuild(io, { ...o, debug: debug() }, root));
  repoFlags(program.command("doctor").description("check a deployment (Forgejo, token, issue, webhook, trust, signing key, bot) and say what to fix; exit 0 only when nothing is wrong"))
    .option("--bot-url <url>", "the bot's base URL, to check it is up, accepts CHECKPOST_API_TOKEN and has its webhook")
    .option("--json", "machine-readable: {ok, checks: [{check, status, message, fix?}]}")
    .action(async (o) => (await import("./commands/doctor.ts")).doctor(io, { ...o, debug: debug() }, root));

  program
    .command("mcp")
    .description("serve checkpoint_save, checkpoint_resume, health_report, session_status, snapshot_save and snapshot_restore to an MCP client on stdio (docs/mcp.md)")
    .action(async () => root.mcp(io, { debug: debug() }));

  program
    .command("forge")
    .description("run the embedded Forgejo-compatible server on its own")
    .option("--port <n>", "port (0: random)", int("--port"), 3001)
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--data <dir>", "data directory (default: in memory)")
    .option("--user <login>", "create this user if missing and print a fresh token")
    .option("--repo <owner/name>", "create this repository if missing")
    .action(async (o) => root.forge(io, o));

  return program;
}
