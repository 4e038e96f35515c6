import { Command, InvalidArgumentError, Option } from "commander";
import type { CliIo } from "./io.ts";

const int = (name: string) => (v: string) => {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`${name} must be a whole number`);
  return Number(v);
};

/** Flags shared by every command that talks to Forgejo. */
function repoFlags(cmd: Command): Command {
  return cmd
    .option("--repo <owner/repo>", "repository holding the session issue (env FORGEJO_REPOSITORY)")
    .option("--issue <n>", "session issue number; skips the lookup (env CHECKPOST_ISSUE)", int("--issue"))
    .option("--url <url>", "Forgejo base URL (env FORGEJO_URL)");
}

/**
 * Declares the commands; each is lazy-loaded from ./commands so `checkpost parse`
 * does not pay for the HTTP client. Only main.ts exits.
 */
export function buildProgram(io: CliIo): Command {
  const program = new Command("checkpost")
    .description("Checkpoint and resume AI agents through one Forgejo issue")
    .option("--debug", "log requests and print stack traces")
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .showSuggestionAfterError();
  const debug = () => Boolean(program.opts()["debug"]);

  program
    .command("parse")
    .description("read one comment body on stdin; print what it is as JSON (always exits 0)")
    .action(async () => (await import("./commands/parse.ts")).parse(io));

  const format = program.command("format").description("print a comment body in the seed's format");
  format
    .command("checkpoint")
    .requiredOption("--agent <name>")
    .requiredOption("--session <id>")
    .requiredOption("--phase <phase>")
    .option("--data <json>", "state as a JSON object")
    .option("--data-file <file>", "state from a JSON file")
    .option("--time <iso>", "timestamp (default: now, Python isoformat + Z)")
    .option("--id <id>")
    .option("--seq <n>", "", int("--seq"))
    .option("--epoch <n>", "", int("--epoch"))
    .action(async (o) => (await import("./commands/format.ts")).formatCheckpointCommand(io, o));
  format
    .command("health")
    .requiredOption("--agent <name>")
    .requiredOption("--session <id>")
    .option("--metrics <json>", "metrics as a JSON object")
    .option("--metrics-file <file>")
    .option("--status <status>", "", "Active")
    .option("--time <iso>")
    .action(async (o) => (await import("./commands/format.ts")).formatHealthCommand(io, o));

  repoFlags(program.command("save").description("post a checkpoint (exactly once) and print it with its comment id"))
    .requiredOption("--agent <name>")
    .requiredOption("--session <id>")
    .requiredOption("--phase <phase>")
    .option("--data <json>", "state as a JSON object")
    .option("--data-file <file>", "state from a JSON file")
    .option("--seq <n>", "sequence number (from `resume`'s next_seq, then +1 per save)", int("--seq"))
    .option("--epoch <n>", "writer epoch (from `resume`)", int("--epoch"))
    .action(async (o) => (await import("./commands/store-commands.ts")).save(io, { ...o, debug: debug() }));

  repoFlags(program.command("health").description("post a health signal"))
    .requiredOption("--agent <name>")
    .requiredOption("--session <id>")
    .option("--metrics <json>")
    .option("--metrics-file <file>")
    .option("--status <status>", "", "Active")
    .action(async (o) => (await import("./commands/store-commands.ts")).health(io, { ...o, debug: debug() }));

  repoFlags(program.command("latest").description("print the newest trusted checkpoint of an agent, or null"))
    .requiredOption("--agent <name>")
    .option("--session <id>")
    .action(async (o) => (await import("./commands/store-commands.ts")).latest(io, { ...o, debug: debug() }));

  repoFlags(program.command("resume").description("print where an agent resumes: resume_point, phase, state"))
    .requiredOption("--agent <name>")
    .requiredOption("--session <id>")
    .addOption(new Option("--map <name|file>", "phase map: built-in name or JSON file").default("implementation-worker"))
    .option("--take-over", "write the fence now: re-save the checkpoint under the new epoch (one extra request)")
    .action(async (o) => (await import("./commands/store-commands.ts")).resume(io, { ...o, debug: debug() }));

  repoFlags(program.command("status").description("agents × sessions: phase, checkpoint age, last health"))
    .option("--json", "machine-readable snapshot")
    .action(async (o) => (await import("./commands/status.ts")).status(io, { ...o, debug: debug() }));

  repoFlags(program.command("init").description("find the session issue, creating it and its label if missing")).action(async (o) =>
    (await import("./commands/store-commands.ts")).init(io, { ...o, debug: debug() }),
  );

  repoFlags(program.command("install-webhook").description("register the bot's webhook on the repository (events from app.yml, secret from WEBHOOK_SECRET)"))
    .requiredOption("--bot-url <url>", "where Forgejo reaches the bot, e.g. http://bot.internal:3000")
    .option("--app <file>", "app.yml to read", "app.yml")
    .action(async (o) => (await import("./commands/install-webhook.ts")).installWebhook(io, { ...o, debug: debug() }));

  repoFlags(program.command("rebuild").description("refill the bot's store from a full read of the session issue (stop the bot first)"))
    .option("--store <file>", "the bot's store (env CHECKPOST_STORE_FILE; default <CHECKPOST_DATA_DIR>/bot/projection.sqlite)")
    .action(async (o) => (await import("./commands/rebuild.ts")).rebuild(io, { ...o, debug: debug() }));

  program
    .command("forge")
    .description("run the embedded Forgejo-compatible server on its own")
    .option("--port <n>", "port (0: random)", int("--port"), 3001)
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--data <dir>", "data directory (default: in memory)")
    .option("--user <login>", "create this user if missing and print a fresh token")
    .option("--repo <owner/name>", "create this repository if missing")
    .action(async (o) => (await import("./commands/forge.ts")).forge(io, o));

  return program;
}

