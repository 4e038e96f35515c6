import type { ClientEnv, RepoFromEnv } from "../config/env.ts";
import type { ConfigError } from "../errors.ts";
import type { IssueHost } from "../ports/issue-host.ts";
import type { ProjectionStore } from "../bot-state/index.ts";
import type { SessionStore } from "../session-client/index.ts";
import type { CliIo } from "./io.ts";
import type { WriterMemory } from "./writer-memory.ts";
import type { CliLogger } from "./lazy-logger.ts";
import type { SnapshotSettings } from "../snapshot/snapshot-settings.ts";

export interface RepoFlags {
  repo?: string;
  issue?: number;
  url?: string;
  debug?: boolean;
}

export interface CliContext {
  env: ClientEnv;
  store: SessionStore;
  /** The Forgejo client the store uses (for commands that read beyond it). */
  api: IssueHost;
  logger: CliLogger;
  /** Key of this instance + repository in the CLI's per-machine memory (issue cache, writer memory). */
  memoryKey: string;
  writers: WriterMemory;
  /** Run `fn` against the store; if a cached issue number turned out stale (404, or closed with no successor), forget it and retry once. */
  withStore<T>(fn: (store: SessionStore) => Promise<T>): Promise<T>;
}

/** `checkpost forge`'s flags. */
export interface ForgeFlags {
  port: number;
  host?: string;
  data?: string;
  user?: string;
  repo?: string;
}

/** `checkpost mcp`'s flags: --debug, passed on to every call it runs. */
export interface McpFlags {
  debug?: boolean;
}

/**
 * What the commands are given by the composition root (src/app/cli-root.ts): the settings read from the
 * environment, the Forgejo client, the stores and caches, the embedded forge. Commands open none of
 * these themselves; each is loaded when a command first asks for it, so `checkpost parse` loads no
 * HTTP client and `save` no forge.
 */
export interface CliRoot {
  /** The session store, Forgejo client, logger and per-machine memory of a command that talks to Forgejo, from the environment and flags (flags win). */
  context(io: CliIo, flags: RepoFlags): Promise<CliContext>;
  /** The client settings and the repository they name (or why they name none), for `doctor`, which reports bad settings as checks. */
  settings(io: CliIo, repoFlag: string | undefined): Promise<{ env: ClientEnv; repo: RepoFromEnv | ConfigError }>;
  /** The issue host CHECKPOST_HOST names (`host`), with no retries (`doctor` checks once); no token: anonymous. */
  host(o: { host: string; url: string; token?: string; timeoutMs: number }): Promise<IssueHost>;
  /** The bot's projection store (`checkpost rebuild`): --store, else CHECKPOST_STORE_FILE, else <CHECKPOST_DATA_DIR>/bot/projection.sqlite. */
  openBotStore(io: CliIo, file: string | undefined): Promise<{ store: ProjectionStore; file: string }>;
  /** `checkpost snapshot`'s settings (CHECKPOST_STATE_KEY, CHECKPOST_SNAPSHOT_*), read from the environment. */
  snapshotSettings(io: CliIo): Promise<SnapshotSettings>;
  /** `checkpost forge`: the embedded Forgejo on its own, until Ctrl-C. */
  forge(io: CliIo, o: ForgeFlags): Promise<void>;
  /** `checkpost mcp`: the MCP server on stdio (docs/mcp.md), until the client closes stdin. */
  mcp(io: CliIo, o: McpFlags): Promise<void>;
}
