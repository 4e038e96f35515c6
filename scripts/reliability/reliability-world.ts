/** An embedded Forgejo with one agent user, one repository and the session issue, for the suites. */
import { startForge } from "../../src/embedded-forge/index.ts";
import type { FaultOptions, ForgeServer } from "../../src/embedded-forge/index.ts";
import type { ForgeOptions } from "../../src/embedded-forge/types.ts";
import { ForgejoApi, ForgejoClient } from "../../src/forgejo-client/index.ts";
import type { ForgejoClientOptions } from "../../src/forgejo-client/index.ts";
import type { IssueHost, RepoRef } from "../../src/ports/issue-host.ts";
import { SessionStore } from "../../src/session-client/index.ts";
import type { SessionStoreOptions } from "../../src/session-client/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../../src/session-client/index.ts";

export const AGENT_LOGIN = "agent-bot";
export const REPO: RepoRef = { owner: AGENT_LOGIN, repo: "work" };

export interface ReliabilityWorld {
  forge: ForgeServer;
  token: string;
  issue: number;
  /** A client with the suites' fast retry policy (overridable). */
  api(options?: Partial<ForgejoClientOptions>): IssueHost;
  store(options?: Partial<SessionStoreOptions> & { client?: Partial<ForgejoClientOptions> }): SessionStore;
  close(): Promise<void>;
}

/** Small delays so thousands of faulty requests finish in seconds; plenty of retries so none runs out. */
export const FAST_RETRY: Partial<ForgejoClientOptions> = { retries: 12, minRetryDelayMs: 2, maxRetryDelayMs: 40, maxRetryAfterMs: 2000, timeoutMs: 10_000 };

export async function startReliabilityWorld(
  options: { seed?: number; faults?: FaultOptions; dataDir?: string; port?: number; signInLimits?: ForgeOptions["signInLimits"] } = {},
): Promise<ReliabilityWorld> {
  const forge = await startForge({
    seed: options.seed ?? 1,
    ...(options.signInLimits ? { signInLimits: options.signInLimits } : {}),
    ...(options.faults ? { faults: options.faults } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.port ? { port: options.port } : {}),
  });
  const a = forge.admin;
  if (!a.userExists(AGENT_LOGIN)) {
    a.createUser(AGENT_LOGIN);
    a.createUser("mallory");
    a.createRepo(AGENT_LOGIN, REPO.repo);
    a.addCollaborator(AGENT_LOGIN, REPO.repo, "mallory", "write");
    a.createLabel(AGENT_LOGIN, REPO.repo, { name: DEFAULT_SESSION_LABEL });
    a.createIssue(AGENT_LOGIN, REPO.repo, { title: DEFAULT_SESSION_TITLE, labels: [DEFAULT_SESSION_LABEL] });
  }
  const token = a.createToken(AGENT_LOGIN);
  const api = (o: Partial<ForgejoClientOptions> = {}) => new ForgejoApi(new ForgejoClient({ url: forge.url, token, ...FAST_RETRY, ...o }));
  return {
    forge,
    token,
    issue: 1,
    api,
    store: ({ client, ...o } = {}) => new SessionStore({ api: api(client), repo: REPO, issue: 1, selfLogin: AGENT_LOGIN, ...o }),
    close: () => forge.close(),
  };
}
