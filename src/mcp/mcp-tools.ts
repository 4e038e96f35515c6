// The tools `checkpost mcp` serves: for each, what an LLM reads (title, description, a zod input schema)
// and the CLI call it stands for. The server (./serve-mcp.ts) runs that call through the CLI itself, so a
// tool answers exactly what the CLI prints for the same call; nothing here talks to Forgejo.
import * as z from "zod";
import { EXIT } from "../cli/exit-codes.ts";
import { CONTROLS } from "../protocol/index.ts";
import type { ControlActionSpec } from "../protocol/index.ts";

/**
 * Each directive a person may give, and what the agent does, from the control registry (protocol/controls):
 * `"pause" (stop before the next step, and call checkpoint_resume again later …), "rewind" (…), …`.
 */
export function directiveHelp(): string {
  return CONTROLS.actions.flatMap((a: ControlActionSpec) => (a.directive !== undefined ? [`"${a.action}" (${a.directive.replace(/\bresume\b/g, "call checkpoint_resume")})`] : [])).join(", ");
}

/** "pause, rewind or release": the directive kinds, as a sentence says them. */
export function directiveNames(): string {
  const names = [...CONTROLS.directives];
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : (names[0] ?? "");
}

/** What a tool does to the world, as MCP's annotations say it (clients show it, some ask before a write). */
export interface McpToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A CLI call: its argv, and the folder it runs in when not the server's own (a path given relative to it). */
export interface CliCall {
  argv: string[];
  cwd?: string;
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  /** The arguments, as the client's model sees them (JSON Schema) and as the handler checks them. */
  input: z.ZodObject;
  hints: McpToolHints;
  /** The CLI call the validated arguments stand for; throws a ZodError on arguments the schema refuses. */
  call(args: unknown): CliCall;
  /** CLI exit codes that are an answer, not a failure (`status` exits 3 when something needs attention). */
  okCodes: readonly number[];
}

/**
 * `--flag=value`, never `--flag value`: a value that starts with a dash (an agent named `--issue`, a
 * session `-1`) then stays the flag's value instead of being read as another option.
 */
const flag = (name: string, value: string | number | undefined): string[] => (value === undefined ? [] : [`--${name}=${value}`]);
const flags = (name: string, values: readonly string[] | undefined): string[] => (values ?? []).flatMap((v) => flag(name, v));
const toggle = (name: string, on: boolean | undefined): string[] => (on === true ? [`--${name}`] : []);
const json = (name: string, value: Record<string, unknown>): string[] => flag(name, JSON.stringify(value));

const agent = z.string().min(1).describe('Your agent name, the same on every call (e.g. "implementation-worker").');
const session = z.string().min(1).describe('The session (task) id, the same on every call of one task (e.g. "issue-42").');
const jsonObject = z.record(z.string(), z.unknown());

interface ToolSpec<S extends z.ZodObject> extends Omit<McpTool, "input" | "call" | "okCodes"> {
  input: S;
  argv: (a: z.infer<S>) => string[];
  cwd?: (a: z.infer<S>) => string | undefined;
  okCodes?: readonly number[];
}

function tool<S extends z.ZodObject>({ argv, cwd, okCodes, ...t }: ToolSpec<S>): McpTool {
  return {
    ...t,
    okCodes: okCodes ?? [EXIT.ok],
    call: (args) => {
      const a = t.input.parse(args ?? {});
      const folder = cwd?.(a);
      return { argv: argv(a), ...(folder !== undefined ? { cwd: folder } : {}) };
    },
  };
}

const WRITE: McpToolHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

const checkpointSave = tool({
  name: "checkpoint_save",
  title: "Save a checkpoint",
  description:
    "Record where you are, so that you (or a fresh copy of you after a crash or restart) can continue without redoing work. " +
    "Call it after every step that would be costly to redo: a commit, a green test run, a pull request, a decision. " +
    "`phase` names the step just finished; `data` holds everything needed to continue from there (ids, commit SHAs, file paths, " +
    "decisions, what is left to do) and not the transcript: keep it small (a few KiB). " +
    "The checkpoint is posted once, as a comment on the session issue people read. " +
    "Answers JSON: comment_id, the checkpoint, and `directive`: null, or a person's instruction to obey now: " +
    `${directiveHelp()}. ` +
    '`"fenced": true` means this worker was taken over: stop. Leave seq and epoch out: after checkpoint_resume they continue by themselves.',
  input: z.object({
    agent,
    session,
    phase: z.string().min(1).describe('The step just finished, a short snake_case name (e.g. "tests_green", "pr_opened").'),
    data: jsonObject.describe("The state to continue from, as a JSON object ({} if there is none)."),
    seq: z.int().nonnegative().optional().describe("Only when told to: the sequence number (checkpoint_resume's next_seq)."),
    epoch: z.int().nonnegative().optional().describe("Only when told to: the writer epoch (checkpoint_resume's epoch)."),
    map: z.string().min(1).optional().describe("A phase map (built-in name or JSON file) to check the phase against."),
  }),
  hints: WRITE,
  argv: (a) => [
    "save",
    ...flag("agent", a.agent),
    ...flag("session", a.session),
    ...flag("phase", a.phase),
    ...json("data", a.data),
    ...flag("seq", a.seq),
    ...flag("epoch", a.epoch),
    ...flag("map", a.map),
  ],
});

const checkpointResume = tool({
  name: "checkpoint_resume",
  title: "Resume from the last checkpoint",
  description:
    "Call it first, at the start of every task and after any restart, before doing work: it says where to continue. " +
    "Answers JSON: resume_point (the step to do next), phase (the last step finished), state (the data saved with it: your memory), " +
    `directive (null, or a person's ${directiveNames()}: obey it), not_used (newer checkpoints that were refused, with the reason), ` +
    "liveness, next_seq and epoch. " +
    'No checkpoint yet gives resume_point "start", phase "fresh_start", state {} and a note naming the agents and sessions that do have ' +
    'checkpoints (and "did you mean" for a name one typo away): if you expected one, check the names, or pass existing: true to make that an error. ' +
    "Resuming takes the session over: a previous worker still running is fenced off and its later saves are ignored.",
  input: z.object({
    agent,
    session,
    map: z.string().min(1).optional().describe("A phase map (built-in name or JSON file) that turns the last phase into the next step."),
    take_over: z.boolean().optional().describe("Write the take-over at once (one more comment), so a previous worker is fenced off even before your first save."),
    existing: z
      .boolean()
      .optional()
      .describe('true when you continue work that must have a checkpoint: no checkpoint is then an error (with "did you mean" for a mistyped name) instead of a fresh start.'),
  }),
  hints: WRITE,
  argv: (a) => ["resume", ...flag("agent", a.agent), ...flag("session", a.session), ...flag("map", a.map), ...toggle("take-over", a.take_over), ...toggle("existing", a.existing)],
});

const healthReport = tool({
  name: "health_report",
  title: "Report health",
  description:
    "Tell the people watching that you are alive and how the work goes, between checkpoints (every few minutes on a long step). " +
    '`metrics` is a small JSON object (e.g. {"tests_passing": 41, "files_changed": 3}); `status` is "Active" unless you are blocked ' +
    '(e.g. "Blocked: waiting for review"). Answers JSON with the comment id. It is not a checkpoint: a resume never starts from it.',
  input: z.object({
    agent,
    session,
    metrics: jsonObject.describe("Numbers or short facts about progress, as a JSON object ({} if there are none)."),
    status: z.string().min(1).optional().describe('"Active" (default) or a short reason you are not.'),
  }),
  hints: WRITE,
  argv: (a) => ["health", ...flag("agent", a.agent), ...flag("session", a.session), ...json("metrics", a.metrics), ...flag("status", a.status)],
});

const sessionStatus = tool({
  name: "session_status",
  title: "Session status",
  description:
    "Every agent of the session issue, as `checkpost status --json` prints it: each entry's latest checkpoint, health, liveness " +
    "(active, silent, stale) and resume decision, plus anomalies. Use it to see who else works on the issue, or whether a worker " +
    "you wait for is alive. A last line says when something needs a person's attention.",
  input: z.object({}),
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  argv: () => ["status", "--json"],
  okCodes: [EXIT.ok, EXIT.attention],
});

const snapshotSave = tool({
  name: "snapshot_save",
  title: "Snapshot your session files",
  description:
    "Save your own native session files (a JSONL transcript, a SQLite session database) beside your checkpoints, so that after a " +
    "restart snapshot_restore can bring them back. Call it after each checkpoint_save, and before you stop. " +
    "Files are stored under their path relative to `folder` (e.g. folder = your transcripts folder, paths = [the transcript]); " +
    "every path must be inside it. An append-only file uploads only its new tail; nothing changed writes nothing. A file whose " +
    "stored start was rewritten is refused as divergent, naming it, and the last good snapshot stays: pass force to replace it. " +
    "Answers JSON: changed, files, bytes, uploaded, sealed, comment_id.",
  input: z.object({
    agent,
    session,
    folder: z.string().min(1).optional().describe("Absolute folder the files are under; paths are stored relative to it (default: the folder the server runs in)."),
    paths: z.array(z.string().min(1)).optional().describe("Files to snapshot, absolute or relative to folder (e.g. your JSONL transcript)."),
    sqlite: z.array(z.string().min(1)).optional().describe("SQLite databases to snapshot, absolute or relative to folder: copied consistently while in use."),
    force: z.boolean().optional().describe("Publish a divergent file as a full replacement of its stored copy."),
  }),
  hints: WRITE,
  // `--` ends the options: a path that starts with a dash is still a path.
  argv: (a) => ["snapshot", "save", ...flag("agent", a.agent), ...flag("session", a.session), ...flags("sqlite", a.sqlite), ...toggle("force", a.force), "--", ...(a.paths ?? [])],
  cwd: (a) => a.folder,
});

const snapshotRestore = tool({
  name: "snapshot_restore",
  title: "Restore your session files",
  description:
    "After a restart, write your latest snapshot (from snapshot_save) back: each file goes to `into` joined with the path it was " +
    "stored under, so give as `into` the folder you gave snapshot_save. Each file is written whole or not at all; a local file " +
    "newer than the snapshot, or extending it, is kept and named, unless force is given. " +
    'A snapshot whose parts are missing fails as "out of sync": then do not start afresh in silence, tell a person. ' +
    "Answers JSON: comment_id (null: no snapshot yet, nothing to restore) and each file with its action (written, same, kept).",
  input: z.object({
    agent,
    session,
    into: z.string().min(1).describe("Absolute folder to restore into (the `folder` of snapshot_save)."),
    force: z.boolean().optional().describe("Overwrite local files even when they are newer than the snapshot."),
  }),
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  argv: (a) => ["snapshot", "restore", ...flag("agent", a.agent), ...flag("session", a.session), ...flag("into", a.into), ...toggle("force", a.force)],
});

/** Every tool, in the order a client lists them. */
export const MCP_TOOLS: readonly McpTool[] = [checkpointResume, checkpointSave, healthReport, sessionStatus, snapshotSave, snapshotRestore];
