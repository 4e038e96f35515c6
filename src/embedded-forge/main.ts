/** Standalone entry: `checkpost forge --port N [--data DIR] [--user LOGIN]` calls forgeCommand(). */
import pino from "pino";
import { startForge, type ForgeServer } from "./server.ts";

export interface ForgeCommandOptions {
  port: number;
  host?: string;
  /** Data directory (forge.sqlite); undefined = in-memory, lost on exit. */
  dataDir?: string;
  /**
   * Login to create (if missing) and print a fresh token for. On an empty database an admin user is always
   * created: this login, or "checkpost".
   */
  createUser?: string;
  /** "owner/name" repo to create if missing (the owner must exist or be the created user). */
  createRepo?: string;
  /** Where human-readable lines go (default console.log). Tokens are printed here, never logged. */
  log?: (line: string) => void;
  /** pino level for structured logs on stderr (default "info"). */
  logLevel?: string;
}

export async function forgeCommand(opts: ForgeCommandOptions): Promise<ForgeServer> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const logger = pino({ level: opts.logLevel ?? "info" }, pino.destination(2));
  const forge = await startForge({ port: opts.port, host: opts.host ?? "127.0.0.1", dataDir: opts.dataDir, logger });
  const admin = forge.admin;
  let login: string | undefined = opts.createUser;
  const firstStart = admin.userCount() === 0;
  if (firstStart) {
    login = login ?? "checkpost";
    admin.createUser(login, { isAdmin: true });
    log(`forge: empty database, created admin user "${login}"`);
  } else if (login && !admin.userExists(login)) {
    admin.createUser(login);
    log(`forge: created user "${login}"`);
  }
  if (opts.createRepo) {
    const [owner, name] = opts.createRepo.split("/");
    if (!owner || !name) throw new Error(`--repo must be owner/name, got ${opts.createRepo}`);
    if (!admin.userExists(owner)) admin.createUser(owner);
    if (!admin.repoExists(owner, name)) {
      admin.createRepo(owner, name);
      log(`forge: created repo ${owner}/${name}: ${forge.url}/${owner}/${name}`);
    }
  }
  log(`forge: listening on ${forge.url} (API ${forge.apiUrl})${opts.dataDir ? `, data in ${opts.dataDir}` : ", in-memory"}`);
  if (login) {
    const token = admin.createToken(login, `cli-${Date.now()}`);
    log(`forge: token for ${login}: ${token}`);
    log(`forge: try  curl -H "Authorization: token ${token}" ${forge.apiUrl}/user`);
    log(`forge: create a repo:  curl -X POST -H "Authorization: token ${token}" -H "Content-Type: application/json" -d '{"name":"demo"}' ${forge.apiUrl}/user/repos`);
  }
  return forge;
}
