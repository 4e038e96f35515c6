import { startForge } from "../../src/embedded-forge/index.ts";
import type { ForgeServer } from "../../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../../src/forgejo-client/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE, SessionStore } from "../../src/session-client/index.ts";
import type { SessionStoreOptions } from "../../src/session-client/index.ts";

export interface ForgeWorld {
  forge: ForgeServer;
  owner: string;
  repo: string;
  issue: number;
  /** Token of the agents' own user ("agent"). */
  token: string;
  /** Token of another user who can comment but is not trusted ("mallory"). */
  strangerToken: string;
  api(token?: string): ForgejoApi;
  store(opts?: Partial<SessionStoreOptions> & { token?: string }): SessionStore;
  close(): Promise<void>;
}

/** An in-memory embedded Forgejo on a random loopback port with a repo and a session issue. */
export async function forgeWorld(opts: { withIssue?: boolean; clock?: () => number } = {}): Promise<ForgeWorld> {
  const forge = await startForge({ port: 0, ...(opts.clock ? { clock: opts.clock } : {}) });
  const a = forge.admin;
  a.createUser("agent");
  a.createUser("mallory");
  const token = a.createToken("agent");
  const strangerToken = a.createToken("mallory");
  a.createRepo("agent", "work");
  let issue = 0;
  if (opts.withIssue !== false) {
    a.createLabel("agent", "work", { name: DEFAULT_SESSION_LABEL });
    issue = a.createIssue("agent", "work", { title: DEFAULT_SESSION_TITLE, body: "Session notes by a person.", labels: [DEFAULT_SESSION_LABEL] }).number;
  }
  const api = (t = token) => new ForgejoApi(new ForgejoClient({ url: forge.url, token: t, minRetryDelayMs: 1, maxRetryDelayMs: 10 }));
  return {
    forge,
    owner: "agent",
    repo: "work",
    issue,
    token,
    strangerToken,
    api,
    store: (o = {}) => new SessionStore({ api: api(o.token), repo: { owner: "agent", repo: "work" }, ...(issue ? { issue } : {}), ...o }),
    close: () => forge.close(),
  };
}
