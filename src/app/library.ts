// The package's main entry (`import … from "checkpost"`): the library's surface (src/index.ts), plus the
// one constructor that reads the environment, `SessionStore.fromEnv()`. It lives in the composition root
// because only src/app/ reads the environment (test/unit/import-rules.test.ts); it loads no bot package.
import { withEnvFile } from "../cli/env-file.ts";
import type { CliIo } from "../cli/io.ts";
import { SessionStore as CoreSessionStore } from "../session-client/index.ts";
import { cliContext } from "./cli-context.ts";

export * from "../index.ts";

/** Where `SessionStore.fromEnv` reads its settings; each defaults to what the CLI would use. */
export interface SessionStoreFromEnvOptions {
  /** The environment (default process.env). Set variables win over the file's, as for the CLI. */
  env?: NodeJS.ProcessEnv;
  /** A dotenv file, as `checkpost --env-file FILE` (default: ./.env when there is one). */
  envFile?: string;
  /** Where ./.env and a relative envFile are found (default process.cwd()). */
  cwd?: string;
  /** `--repo owner/repo`: wins over FORGEJO_REPO. */
  repo?: string;
  /** `--issue N`: wins over CHECKPOST_ISSUE. */
  issue?: number;
  /** `--url URL`: wins over FORGEJO_URL. */
  url?: string;
  /** Where warnings go (default stderr), as the CLI's. */
  err?: (line: string) => void;
}

/**
 * The session store: `new SessionStore({ api, repo, … })` as before, and `SessionStore.fromEnv()`, which
 * reads exactly what the `checkpost` CLI reads, through the same code: ./.env or an env file, FORGEJO_URL,
 * FORGEJO_TOKEN, FORGEJO_REPO, CHECKPOST_ISSUE, the session title and label, CHECKPOST_TRUSTED_AUTHORS,
 * CHECKPOST_SIGNING_KEY, CHECKPOST_LEGACY_WRITERS, the liveness thresholds, timeouts and retries, and the
 * per-machine cache (CHECKPOST_CACHE_DIR: the token's login and where the resume index is). A save made
 * with it is believed by `checkpost resume` and by the Python `Client.from_env()` with the same settings.
 *
 * @example
 * const store = SessionStore.fromEnv();
 * const { resume_point, state } = await store.resume("implementation-worker", "sess-42", IMPLEMENTATION_WORKER_PHASE_MAP);
 */
export class SessionStore extends CoreSessionStore {
  static fromEnv(o: SessionStoreFromEnvOptions = {}): SessionStore {
    const cwd = o.cwd ?? process.cwd();
    const env = withEnvFile(o.env ?? process.env, cwd, o.envFile);
    const err = o.err ?? ((line: string) => void process.stderr.write(line.endsWith("\n") ? line : `${line}\n`));
    const io: CliIo = { out: () => {}, err, readStdin: async () => "", env, cwd };
    const flags = { ...(o.repo !== undefined ? { repo: o.repo } : {}), ...(o.issue !== undefined ? { issue: o.issue } : {}), ...(o.url !== undefined ? { url: o.url } : {}) };
    // No remembered issue number: a long-lived library handle finds the issue itself (the CLI retries a stale one per command).
    return cliContext(io, flags, { Store: SessionStore, issueCache: false }).store as SessionStore;
  }
}
