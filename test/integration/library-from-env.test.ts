// Issue 33, item 2: `SessionStore.fromEnv()` reads what the CLI reads (./.env, the signing key, trust, the
// cache), so a save made with the library is the one `checkpost resume` and the Python client resume from.
// README's example before it (`new SessionStore({ api, repo })`) left the key out: its save was set aside
// as `unsigned` by every reader with the key.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { runCli } from "../../src/app/cli.ts";
import { SessionStore } from "../../src/app/library.ts";
import type { CliIo } from "../../src/cli/io.ts";
import { forgeWorld, type ForgeWorld } from "../helpers/forge-fixture.ts";
import { describeWithPython3 } from "../helpers/seed-python.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
let world: ForgeWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const KEY = "library-from-env-signing-key-0123";

describeWithPython3("SessionStore.fromEnv, the CLI and the Python client under a signing key", () => {
  it("agree on the library's save; the README's old example's save is set aside as unsigned", async () => {
    world = await forgeWorld();
    const dir = mkdtempSync(join(tmpdir(), "checkpost-lib-env-"));
    const settings = { FORGEJO_URL: world.forge.url, FORGEJO_TOKEN: world.token, FORGEJO_REPO: "agent/work", CHECKPOST_SIGNING_KEY: KEY, CHECKPOST_CACHE_DIR: join(dir, "cache") };
    // Settings in ./.env, as an agent's folder has them; the process environment has none of them.
    writeFileSync(
      join(dir, ".env"),
      `${Object.entries(settings)
        .map(([k, v]) => `${k}=${v}`)
        .join("\n")}\n`,
    );

    const store = SessionStore.fromEnv({ env: {}, cwd: dir });
    expect(store).toBeInstanceOf(SessionStore);
    const saved = await store.save({ agent: "implementation-worker", session: "s1", phase: "commit_complete", data: { step: 2 } });
    // Then the old README example (no key): a newer, unsigned checkpoint, which every reader with the key sets aside.
    await world.store().save({ agent: "implementation-worker", session: "s1", phase: "pr_created", data: { step: 3 } });
    const cid = (c: { commentId?: number; comment_id?: number } | null | undefined) => c?.commentId ?? c?.comment_id;

    const out: string[] = [];
    const io: CliIo = { out: (t) => out.push(t), err: () => {}, readStdin: async () => "", env: {}, cwd: dir };
    expect(await runCli(["resume", "--agent", "implementation-worker", "--session", "s1"], io)).toBe(0);
    const cli = JSON.parse(out.join("")) as { phase: string; state: unknown; checkpoint: { commentId?: number }; not_used: { reason: string }[] };
    expect(cli).toMatchObject({ phase: "commit_complete", state: { step: 2 } });
    expect(cid(cli.checkpoint)).toBe(saved.comment_id);
    expect(cli.not_used.map((n) => n.reason).join(" ")).toMatch(/no Signature while a signing key is/);

    // Asynchronous: the forge runs in this process, so a blocking spawn would never get an answer.
    // The Python client too gets its settings from ./.env alone (the forge, the token, the repository and
    // the signing key); only its cache is set in the environment, which wins over the file's, as for the CLI.
    const { stdout: py } = await promisify(execFile)("python3", ["-c", "import json, sys; from checkpost import Client; print(json.dumps(Client.from_env().resume('implementation-worker', 's1')))"], {
      cwd: dir,
      env: { PATH: process.env["PATH"] ?? "", PYTHONPATH: join(root, "python"), CHECKPOST_CACHE_DIR: join(dir, "py-cache") },
      encoding: "utf8",
    });
    const python = JSON.parse(py) as { phase: string; state: unknown; checkpoint: { commentId?: number; comment_id?: number }; not_used: { reason: string }[] };
    expect(python).toMatchObject({ phase: "commit_complete", state: { step: 2 } });
    expect(cid(python.checkpoint)).toBe(saved.comment_id);
    expect(python.not_used.map((n) => n.reason).join(" ")).toMatch(/no Signature while a signing key is/);

    // The library's own resume says the same.
    const lib = await SessionStore.fromEnv({ env: {}, cwd: dir }).resume("implementation-worker", "s1", null);
    expect(lib.phase).toBe("commit_complete");
    expect(cid(lib.checkpoint as { commentId?: number } | null)).toBe(saved.comment_id);
  });

  it("takes --env-file's, --repo's and --issue's places through options", async () => {
    world = await forgeWorld();
    const dir = mkdtempSync(join(tmpdir(), "checkpost-lib-env-"));
    writeFileSync(join(dir, "agent.env"), `FORGEJO_URL=${world.forge.url}\nFORGEJO_TOKEN=${world.token}\nCHECKPOST_CACHE_DIR=${join(dir, "cache")}\n`);
    const store = SessionStore.fromEnv({ env: {}, cwd: dir, envFile: "agent.env", repo: "agent/work", issue: world.issue });
    expect(await store.issueNumber()).toBe(world.issue);
    expect(() => SessionStore.fromEnv({ env: {}, cwd: dir, envFile: "missing.env" })).toThrow(/cannot read --env-file missing\.env/);
  });
});
