import { forgeCommand } from "../../forge/index.ts";
import type { CliIo } from "../io.ts";

/** `checkpost forge --port N [--data DIR] [--user LOGIN] [--repo owner/name]`: the embedded Forgejo on its own. */
export async function forge(io: CliIo, o: { port: number; host?: string; data?: string; user?: string; repo?: string }): Promise<void> {
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
