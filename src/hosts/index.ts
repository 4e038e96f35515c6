// The host registry (issue 31, item 1): every issue host checkpost can talk to, one line each, as
// Renovate's lib/modules/platform/api.ts lists its platforms. A new host is its folder (an adapter
// exporting a HostDefinition) plus one line here; the composition root picks one by CHECKPOST_HOST.
// This file and the adapters are the only ones that import an adapter (test/unit/import-rules.test.ts).
import { ConfigError } from "../errors.ts";
import { forgejoHost } from "../forgejo-client/forgejo-host.ts";
import type { HostDefinition } from "../ports/issue-host.ts";

/** The hosts by name. */
export const HOSTS: ReadonlyMap<string, HostDefinition> = new Map([
  [forgejoHost.name, forgejoHost],
  // [githubHost.name, githubHost],   ← a new host: one line
]);

/** The host CHECKPOST_HOST names when unset. */
export const DEFAULT_HOST = "forgejo";

/** The host `name` selects in `hosts` (default: the registry), or a ConfigError listing the known ones. */
export function pickHost(name: string | undefined, hosts: ReadonlyMap<string, HostDefinition> = HOSTS): HostDefinition {
  const wanted = (name ?? DEFAULT_HOST).trim().toLowerCase() || DEFAULT_HOST;
  const host = hosts.get(wanted);
  if (!host) throw new ConfigError(`CHECKPOST_HOST=${name} is not a host checkpost knows: set it to one of ${[...hosts.keys()].join(", ")} (or leave it unset for ${DEFAULT_HOST}).`);
  return host;
}
