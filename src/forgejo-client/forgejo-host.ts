import type { HostDefinition } from "../ports/issue-host.ts";
import { FORGEJO_CAPABILITIES } from "./forgejo-api.ts";
import { ForgejoApi, verifyForgejoDelivery } from "./forgejo-issue-host.ts";
import { ForgejoClient } from "./forgejo-client.ts";
import { readForgejoDelivery } from "./webhook-payloads.ts";

/** Forgejo (and Gitea's API, which it keeps) as an entry of the host registry (src/hosts/index.ts). */
export const forgejoHost: HostDefinition = {
  name: "forgejo",
  capabilities: FORGEJO_CAPABILITIES,
  verifyDelivery: verifyForgejoDelivery,
  open(s) {
    const client = new ForgejoClient({
      url: s.url,
      ...(s.token !== undefined ? { token: s.token } : {}),
      ...(s.fetch ? { fetch: s.fetch } : {}),
      ...(s.logger ? { logger: s.logger } : {}),
      ...(s.retries !== undefined ? { retries: s.retries } : {}),
      ...(s.timeoutMs !== undefined ? { timeoutMs: s.timeoutMs } : {}),
    });
    return { api: new ForgejoApi(client), apiUrl: client.apiUrl, readDelivery: readForgejoDelivery, verifyDelivery: verifyForgejoDelivery };
  },
};
