// `checkpost forge`: the embedded Forgejo on its own. Part of the composition root (src/app/), the only
// code that imports the embedded forge; src/cli/ reaches it through CliRoot.forge.
import type { ForgeFlags } from "../cli/context.ts";
import type { CliIo } from "../cli/io.ts";
import { forgeCommand } from "../embedded-forge/index.ts";

/** `checkpost forge --port N [--data DIR] [--user LOGIN] [--repo owner/name]`: the embedded Forgejo on its own. */
export async function forge(io: CliIo, o: ForgeFlags): Promise<void> {
  const server = await forgeCommand({
    port: o.port,
    ...(o.host ? { host: o.host } : {}),
    ...(o.data ? { dataDir: o.data } : {}),
    ...(o.user ? { createUser: o.user } : {}),
    ...(o.repo ? { createRepo: o.repo } : {}),
    log: (line) => io.out(line),
  });
  io.out(`forge: listening on ${server.url} (API ${server.apiUrl}); Ctrl-C to stop`);
  await new Promise<void>((resolve) => {
    const stop = () => void server.close().then(resolve);
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}
