/**
 * One snapshot save or restore in its own process, for the SIGKILL trials (run-snapshots.ts): prints
 * "go" just before the operation starts and "done <json>" when it has finished, so the parent can kill
 * it at a chosen point inside the operation rather than during Node's start-up.
 */
import { ForgejoApi, ForgejoClient } from "../../../src/forgejo-client/index.ts";
import { SessionStore } from "../../../src/session-client/index.ts";
import { DEFAULT_SNAPSHOT_SETTINGS, parseStateKey, restoreSnapshot, saveSnapshot } from "../../../src/snapshot/index.ts";

const a = JSON.parse(process.argv[2] ?? "{}") as { op: "save" | "restore"; url: string; token: string; issue: number; dir: string; file: string; chunkBytes: number; key: string };
const api = new ForgejoApi(new ForgejoClient({ url: a.url, token: a.token, retries: 0 }));
const store = new SessionStore({ api, repo: { owner: "agent", repo: "work" }, issue: a.issue });
const settings = { ...DEFAULT_SNAPSHOT_SETTINGS, chunkBytes: a.chunkBytes, key: parseStateKey(a.key) };
// Warm the connection and the modules, so the kill window is the operation itself.
await store.policy();
process.stdout.write("go\n");
const r =
  a.op === "save"
    ? await saveSnapshot({ store, api, agent: "worker", session: "s1", files: [a.file], cwd: a.dir, settings })
    : await restoreSnapshot({ store, api, agent: "worker", session: "s1", into: a.dir, settings });
process.stdout.write(`done ${JSON.stringify(r)}\n`);
