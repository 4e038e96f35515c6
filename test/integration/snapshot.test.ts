// `checkpost snapshot save` / `restore` against the embedded Forgejo (issue 30, item 2).
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { snapshotWorld } from "../helpers/snapshot-world.ts";
import type { SnapshotWorld } from "../helpers/snapshot-world.ts";

let w: SnapshotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const A = ["--agent", "worker", "--session", "s1"];
const line = (i: number) => `${JSON.stringify({ turn: i, role: i % 2 ? "assistant" : "user", text: `message ${i} ${"x".repeat(40)}` })}\n`;
const jsonl = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => line(from + k)).join("");
const into = () => mkdtempSync(join(tmpdir(), "checkpost-into-"));
const KEY_A = randomBytes(32).toString("hex");
const KEY_B = randomBytes(32).toString("base64");

describe("checkpost snapshot", () => {
  it("round-trips files (nested paths, modes) and says once that an unsealed transcript is readable", async () => {
    w = await snapshotWorld();
    writeFileSync(join(w.work, "t.jsonl"), jsonl(0, 200));
    mkdirSync(join(w.work, "state"));
    writeFileSync(join(w.work, "state", "notes.md"), "# notes\n", { mode: 0o600 });
    const s = await w.cli(["snapshot", "save", ...A, "t.jsonl", "state/notes.md"]);
    expect(s.code, s.err).toBe(0);
    expect(s.json()).toMatchObject({ changed: true, agent: "worker", session: "s1", files: 2, sealed: null });
    expect(s.err.match(/everyone who can read agent\/work can read them/g)).toHaveLength(1);
    const dir = into();
    const r = await w.cli(["snapshot", "restore", ...A, "--into", dir]);
    expect(r.code, r.err).toBe(0);
    expect(r.json<{ files: unknown[] }>().files).toEqual([
      { path: "t.jsonl", action: "written" },
      { path: "state/notes.md", action: "written" },
    ]);
    expect(readFileSync(join(dir, "t.jsonl"))).toEqual(readFileSync(join(w.work, "t.jsonl")));
    expect(readFileSync(join(dir, "state", "notes.md"), "utf8")).toBe("# notes\n");
    expect(statSync(join(dir, "state", "notes.md")).mode & 0o777).toBe(0o600);
    // No temp file is left behind.
    expect(readdirSync(dir).filter((f) => f.includes("checkpost"))).toEqual([]);
  });

  it("uploads only the new tail of a JSONL file, with the prefix proof, and writes nothing when nothing changed", async () => {
    w = await snapshotWorld();
    const file = join(w.work, "t.jsonl");
    writeFileSync(file, jsonl(0, 5_000)); // ~420 KiB
    const first = await w.cli(["snapshot", "save", ...A, "t.jsonl"]);
    expect(first.code, first.err).toBe(0);
    const appended = jsonl(5_000, 6_000);
    appendFileSync(file, appended);
    const second = await w.cli(["snapshot", "save", ...A, "t.jsonl"]);
    expect(second.code, second.err).toBe(0);
    const r = second.json<{ uploaded: number; bytes: number }>();
    expect(r.bytes).toBe(statSync(file).size);
    // The appended bytes plus a small manifest; never the 420 KiB already stored.
    expect(r.uploaded).toBeGreaterThanOrEqual(appended.length);
    expect(r.uploaded).toBeLessThan(appended.length + 4096);
    const before = (await w.comments()).length;
    const idle = await w.cli(["snapshot", "save", ...A, "t.jsonl"]);
    expect(idle.json()).toMatchObject({ changed: false, uploaded: 0 });
    expect((await w.comments()).length).toBe(before);
    const dir = into();
    expect((await w.cli(["snapshot", "restore", ...A, "--into", dir])).code).toBe(0);
    expect(readFileSync(join(dir, "t.jsonl"))).toEqual(readFileSync(file));
  });

  it("cuts uploads to CHECKPOST_SNAPSHOT_CHUNK_BYTES, each named with an extension Forgejo's ALLOWED_TYPES accepts", async () => {
    w = await snapshotWorld();
    writeFileSync(join(w.work, "t.jsonl"), jsonl(0, 500));
    const s = await w.cli(["snapshot", "save", ...A, "t.jsonl"], { CHECKPOST_SNAPSHOT_CHUNK_BYTES: "8192" });
    expect(s.code, s.err).toBe(0);
    const stored = await w.storedBytes();
    const chunks = stored.filter((a) => !a.name.startsWith("manifest-"));
    expect(chunks.length).toBe(Math.ceil(statSync(join(w.work, "t.jsonl")).size / 8192));
    for (const c of chunks) {
      expect(c.bytes.length).toBeLessThanOrEqual(8192);
      expect(c.name).toMatch(/^[0-9a-f]{64}\.txt$/);
    }
  });

  it("refuses a file whose stored prefix changed, naming it; the last snapshot stays restorable; --force replaces it", async () => {
    w = await snapshotWorld();
    const file = join(w.work, "t.jsonl");
    writeFileSync(file, jsonl(0, 100));
    expect((await w.cli(["snapshot", "save", ...A, "t.jsonl"])).code).toBe(0);
    const good = readFileSync(file);
    writeFileSync(file, `{"rewritten":true}\n${jsonl(1, 120)}`);
    const refused = await w.cli(["snapshot", "save", ...A, "t.jsonl"]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/t\.jsonl \(its first \d+ bytes were rewritten\)/);
    expect(refused.err).toContain("--force");
    writeFileSync(join(w.work, "short.jsonl"), "");
    const dir = into();
    expect((await w.cli(["snapshot", "restore", ...A, "--into", dir])).code).toBe(0);
    expect(readFileSync(join(dir, "t.jsonl"))).toEqual(good);
    const forced = await w.cli(["snapshot", "save", ...A, "--force", "t.jsonl"]);
    expect(forced.code, forced.err).toBe(0);
    expect(forced.json()).toMatchObject({ changed: true, replaced: ["t.jsonl"] });
    const dir2 = into();
    expect((await w.cli(["snapshot", "restore", ...A, "--into", dir2])).code).toBe(0);
    expect(readFileSync(join(dir2, "t.jsonl"))).toEqual(readFileSync(file));
  });

  it("sealed: the forge holds no plaintext (contents, paths), names are keyed digests; a missing or wrong key fails clearly", async () => {
    w = await snapshotWorld();
    const secret = "TOP-SECRET-TRANSCRIPT-LINE";
    writeFileSync(join(w.work, "private-notes.jsonl"), `${JSON.stringify({ text: secret })}\n${jsonl(0, 50)}`);
    const s = await w.cli(["snapshot", "save", ...A, "private-notes.jsonl"], { CHECKPOST_STATE_KEY: KEY_A });
    expect(s.code, s.err).toBe(0);
    expect(s.err).not.toContain("everyone who can read");
    const sealedId = s.json<{ sealed: string }>().sealed;
    expect(sealedId).toMatch(/^[0-9a-f]{16}$/);
    const stored = await w.storedBytes();
    expect(stored.length).toBeGreaterThanOrEqual(2);
    const { createHash } = await import("node:crypto");
    const plainSha = createHash("sha256")
      .update(readFileSync(join(w.work, "private-notes.jsonl")))
      .digest("hex");
    for (const a of stored) {
      for (const needle of [secret, "private-notes", "turn", plainSha]) expect(a.bytes.includes(Buffer.from(needle)), `${a.name} holds ${needle}`).toBe(false);
      expect(a.name).not.toContain(plainSha);
    }
    for (const c of await w.comments()) expect(c.body).not.toContain("private-notes");
    const noKey = await w.cli(["snapshot", "restore", ...A, "--into", into()]);
    expect(noKey.code).toBe(1);
    expect(noKey.err).toMatch(/sealed \(key id [0-9a-f]{16}\) and no key is set: set CHECKPOST_STATE_KEY/);
    const dir = into();
    const wrong = await w.cli(["snapshot", "restore", ...A, "--into", dir], { CHECKPOST_STATE_KEY: KEY_B });
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain(`sealed with key id ${sealedId}`);
    expect(readdirSync(dir)).toEqual([]);
    const right = await w.cli(["snapshot", "restore", ...A, "--into", dir], { CHECKPOST_STATE_KEY: KEY_A });
    expect(right.code, right.err).toBe(0);
    expect(readFileSync(join(dir, "private-notes.jsonl"))).toEqual(readFileSync(join(w.work, "private-notes.jsonl")));
  });

  it("rotates keys: the new key seals what is new, the old one (CHECKPOST_STATE_OLD_KEYS) still opens what it sealed", async () => {
    w = await snapshotWorld();
    const file = join(w.work, "t.jsonl");
    writeFileSync(file, jsonl(0, 100));
    expect((await w.cli(["snapshot", "save", ...A, "t.jsonl"], { CHECKPOST_STATE_KEY: KEY_A })).code).toBe(0);
    appendFileSync(file, jsonl(100, 150));
    const rotated = await w.cli(["snapshot", "save", ...A, "t.jsonl"], { CHECKPOST_STATE_KEY: KEY_B, CHECKPOST_STATE_OLD_KEYS: KEY_A });
    expect(rotated.code, rotated.err).toBe(0);
    const r = rotated.json<{ sealed: string; uploaded: number }>();
    // The stored prefix is not uploaded again under the new key: only the tail.
    expect(r.uploaded).toBeLessThan(jsonl(100, 150).length + 4096);
    const withBoth = into();
    expect((await w.cli(["snapshot", "restore", ...A, "--into", withBoth], { CHECKPOST_STATE_KEY: KEY_B, CHECKPOST_STATE_OLD_KEYS: KEY_A })).code).toBe(0);
    expect(readFileSync(join(withBoth, "t.jsonl"))).toEqual(readFileSync(file));
    const onlyNew = await w.cli(["snapshot", "restore", ...A, "--into", into()], { CHECKPOST_STATE_KEY: KEY_B });
    expect(onlyNew.code).toBe(1);
    expect(onlyNew.err).toMatch(/key id [0-9a-f]{16}, which none of the given keys .* CHECKPOST_STATE_OLD_KEYS/);
  });

  it("is out of sync when history names a snapshot whose parts are gone, and restores nothing", async () => {
    w = await snapshotWorld();
    writeFileSync(join(w.work, "a.jsonl"), jsonl(0, 100));
    writeFileSync(join(w.work, "b.jsonl"), jsonl(0, 10));
    expect((await w.cli(["snapshot", "save", ...A, "a.jsonl"])).code).toBe(0);
    appendFileSync(join(w.work, "a.jsonl"), jsonl(100, 110));
    expect((await w.cli(["snapshot", "save", ...A, "a.jsonl", "b.jsonl"])).code).toBe(0);
    // A person deletes the first parts comment (the prefix of a.jsonl).
    const parts = (await w.comments()).filter((c) => c.body.startsWith("<!-- checkpost:snapshot-parts"));
    await w.api().deleteComment({ owner: "agent", repo: "work" }, (parts[0] as { id: number }).id);
    const dir = into();
    const r = await w.cli(["snapshot", "restore", ...A, "--into", dir]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/out of sync: .* names \d+ part\(s\) that are gone .*Nothing was restored/);
    expect(readdirSync(dir)).toEqual([]);
    // A save says so too, rather than extending a snapshot that cannot be restored.
    const s = await w.cli(["snapshot", "save", ...A, "a.jsonl", "b.jsonl"]);
    expect(s.code).toBe(1);
    expect(s.err).toMatch(/out of sync: the last snapshot .* Pass --force/);
    const forced = await w.cli(["snapshot", "save", ...A, "--force", "a.jsonl", "b.jsonl"]);
    expect(forced.code, forced.err).toBe(0);
    expect((await w.cli(["snapshot", "restore", ...A, "--into", dir])).code).toBe(0);
    expect(readFileSync(join(dir, "a.jsonl"))).toEqual(readFileSync(join(w.work, "a.jsonl")));
  });

  it("never clobbers newer local state without --force, and names each file kept", async () => {
    w = await snapshotWorld();
    writeFileSync(join(w.work, "t.jsonl"), jsonl(0, 50));
    writeFileSync(join(w.work, "cfg.json"), '{"v":1}');
    expect((await w.cli(["snapshot", "save", ...A, "t.jsonl", "cfg.json"])).code).toBe(0);
    const dir = into();
    writeFileSync(join(dir, "t.jsonl"), jsonl(0, 60)); // extends the snapshot
    writeFileSync(join(dir, "cfg.json"), '{"v":2}'); // changed after the snapshot
    const r = await w.cli(["snapshot", "restore", ...A, "--into", dir]);
    expect(r.code, r.err).toBe(0);
    expect(r.json<{ files: { path: string; action: string }[] }>().files.map((f) => [f.path, f.action])).toEqual([
      ["t.jsonl", "kept"],
      ["cfg.json", "kept"],
    ]);
    expect(r.err).toMatch(/kept 2 newer local file\(s\), not overwritten: t\.jsonl \(it extends the snapshot.*cfg\.json \(it changed after the snapshot was taken\)/);
    expect(readFileSync(join(dir, "cfg.json"), "utf8")).toBe('{"v":2}');
    // An older, different local file is replaced.
    utimesSync(join(dir, "cfg.json"), new Date(2020, 0, 1), new Date(2020, 0, 1));
    expect((await w.cli(["snapshot", "restore", ...A, "--into", dir])).json<{ files: { action: string }[] }>().files[1]).toEqual({ path: "cfg.json", action: "written" });
    const forced = await w.cli(["snapshot", "restore", ...A, "--into", dir, "--force"]);
    expect(forced.json<{ files: { action: string }[] }>().files.map((f) => f.action)).toEqual(["written", "same"]);
    expect(readFileSync(join(dir, "t.jsonl"), "utf8")).toBe(jsonl(0, 50));
  });

  it("enforces the per-file and total limits with an error naming both settings", async () => {
    w = await snapshotWorld();
    writeFileSync(join(w.work, "big.jsonl"), jsonl(0, 100));
    writeFileSync(join(w.work, "small.jsonl"), jsonl(0, 10));
    const perFile = await w.cli(["snapshot", "save", ...A, "big.jsonl"], { CHECKPOST_SNAPSHOT_MAX_FILE_BYTES: "1000" });
    expect(perFile.code).toBe(1);
    expect(perFile.err).toMatch(/big\.jsonl is \d+ bytes, over the snapshot limit \(per file CHECKPOST_SNAPSHOT_MAX_FILE_BYTES=1000, in total CHECKPOST_SNAPSHOT_MAX_TOTAL_BYTES=\d+\)/);
    const total = await w.cli(["snapshot", "save", ...A, "big.jsonl", "small.jsonl"], { CHECKPOST_SNAPSHOT_MAX_TOTAL_BYTES: String(statSync(join(w.work, "big.jsonl")).size + 10) });
    expect(total.code).toBe(1);
    expect(total.err).toMatch(/CHECKPOST_SNAPSHOT_MAX_FILE_BYTES=\d+, in total CHECKPOST_SNAPSHOT_MAX_TOTAL_BYTES=\d+/);
    expect((await w.comments()).length).toBe(0);
  });

  it("keeps CHECKPOST_SNAPSHOT_KEEP snapshots, and only the parts they still use", async () => {
    w = await snapshotWorld();
    const env = { CHECKPOST_SNAPSHOT_KEEP: "2" };
    for (let i = 1; i <= 4; i++) {
      writeFileSync(join(w.work, "cfg.json"), JSON.stringify({ round: i }));
      // A file that is rewritten, not appended to, is published as a replacement (--force).
      const s = await w.cli(["snapshot", "save", ...A, "--force", "cfg.json"], env);
      expect(s.code, s.err).toBe(0);
      expect(s.json()).toMatchObject({ pruned: i <= 2 ? 0 : 2 });
    }
    const bodies = () => w?.comments().then((cs) => cs.map((c) => c.body)) ?? Promise.resolve([]);
    expect((await bodies()).filter((b) => b.startsWith("[SNAPSHOT]"))).toHaveLength(2);
    // A rewritten file's old versions are used by no kept snapshot: their parts comments go too.
    expect((await bodies()).filter((b) => b.startsWith("<!-- checkpost:snapshot-parts"))).toHaveLength(2);
    // An append-only file's earlier parts hold its prefix, which every later snapshot still uses.
    const file = join(w.work, "t.jsonl");
    writeFileSync(file, jsonl(0, 100));
    for (let i = 1; i <= 3; i++) {
      expect((await w.cli(["snapshot", "save", ...A, "cfg.json", "t.jsonl"], env)).code).toBe(0);
      appendFileSync(file, jsonl(100 * i, 100 * i + 10));
    }
    expect((await bodies()).filter((b) => b.startsWith("[SNAPSHOT]"))).toHaveLength(2);
    // cfg.json's round 4 (unchanged since), then t.jsonl's prefix and two tails; cfg.json's round 3 went.
    expect((await bodies()).filter((b) => b.startsWith("<!-- checkpost:snapshot-parts"))).toHaveLength(4);
    const dir = into();
    expect((await w.cli(["snapshot", "restore", ...A, "--into", dir])).code).toBe(0);
    expect(readFileSync(join(dir, "t.jsonl"), "utf8")).toBe(jsonl(0, 100) + jsonl(100, 110) + jsonl(200, 210));
  });

  it("refuses a fenced instance's snapshot", async () => {
    w = await snapshotWorld();
    writeFileSync(join(w.work, "t.jsonl"), jsonl(0, 10));
    const cp = await w.cli(["save", ...A, "--phase", "p", "--data", "{}", "--epoch", "3", "--seq", "1"]);
    expect(cp.code, cp.err).toBe(0);
    const zombie = await w.cli(["snapshot", "save", ...A, "--epoch", "2", "t.jsonl"]);
    expect(zombie.code).toBe(1);
    expect(zombie.err).toContain("under epoch 2, below the fence 3");
    expect((await w.comments()).filter((c) => c.body.startsWith("[SNAPSHOT]"))).toHaveLength(0);
    const ok = await w.cli(["snapshot", "save", ...A, "--epoch", "3", "t.jsonl"]);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.json()).toMatchObject({ epoch: 3 });
  });

  it("survives a rollover: the latest snapshot is reached from the successor, and the next save extends it there", async () => {
    w = await snapshotWorld();
    const file = join(w.work, "t.jsonl");
    writeFileSync(file, jsonl(0, 100));
    expect((await w.cli(["snapshot", "save", ...A, "t.jsonl"])).code).toBe(0);
    const { continuesLine, continuedInComment } = await import("../../src/chain/index.ts");
    const api = w.api();
    const repo = { owner: "agent", repo: "work" };
    const old = await api.getIssue(repo, w.issue);
    const next = await api.createIssue(repo, { title: old.title, body: continuesLine(w.issue, 3), labels: old.labels.map((l) => l.name) });
    await api.createComment(repo, w.issue, continuedInComment(next.number, 3));
    await api.editIssue(repo, w.issue, { state: "closed" });
    const dir = into();
    const r = await w.cli(["snapshot", "restore", ...A, "--into", dir]);
    expect(r.code, r.err).toBe(0);
    expect(r.json()).toMatchObject({ issue: w.issue });
    expect(readFileSync(join(dir, "t.jsonl"))).toEqual(readFileSync(file));
    appendFileSync(file, jsonl(100, 110));
    const s = await w.cli(["snapshot", "save", ...A, "t.jsonl"]);
    expect(s.code, s.err).toBe(0);
    expect(s.json<{ issue: number; uploaded: number }>()).toMatchObject({ issue: next.number });
    expect(s.json<{ uploaded: number }>().uploaded).toBeLessThan(jsonl(100, 110).length + 4096);
    const dir2 = into();
    expect((await w.cli(["snapshot", "restore", ...A, "--into", dir2])).json()).toMatchObject({ issue: next.number });
    expect(readFileSync(join(dir2, "t.jsonl"))).toEqual(readFileSync(file));
    // Retention reaches back across the rollover: with KEEP=1 the closed issue's [SNAPSHOT] goes; its
    // parts comment stays, since it holds the prefix the new snapshot still uses.
    appendFileSync(file, jsonl(110, 120));
    const kept = await w.cli(["snapshot", "save", ...A, "t.jsonl"], { CHECKPOST_SNAPSHOT_KEEP: "1" });
    expect(kept.json()).toMatchObject({ changed: true, pruned: 2 });
    const oldBodies = (await w.comments(w.issue)).map((c) => c.body);
    expect(oldBodies.filter((b) => b.startsWith("[SNAPSHOT]"))).toHaveLength(0);
    expect(oldBodies.filter((b) => b.startsWith("<!-- checkpost:snapshot-parts"))).toHaveLength(1);
    expect((await w.comments(next.number)).filter((c) => c.body.startsWith("[SNAPSHOT]"))).toHaveLength(1);
    const dir3 = into();
    expect((await w.cli(["snapshot", "restore", ...A, "--into", dir3])).code).toBe(0);
    expect(readFileSync(join(dir3, "t.jsonl"))).toEqual(readFileSync(file));
  });

  it("checkpost status shows each agent's latest snapshot: files, size, sealed or not, age", async () => {
    w = await snapshotWorld();
    writeFileSync(join(w.work, "t.jsonl"), jsonl(0, 10));
    expect((await w.cli(["save", ...A, "--phase", "p", "--data", "{}"])).code).toBe(0);
    expect((await w.cli(["snapshot", "save", ...A, "t.jsonl"], { CHECKPOST_STATE_KEY: KEY_A })).code).toBe(0);
    const st = await w.cli(["status"], { NO_COLOR: "1" });
    expect(st.out).toContain(`worker: latest snapshot 1 file, ${jsonl(0, 10).length} B, sealed, just now`);
    const json = await w.cli(["status", "--json"]);
    const entry = json.json<{ entries: { agent: string; kinds?: Record<string, { value: unknown }> }[] }>().entries.find((e) => e.agent === "worker");
    expect(entry?.kinds?.["snapshot"]?.value).toMatchObject({ files: 1, bytes: jsonl(0, 10).length, sealed: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });

  it("stores paths relative to the working folder: an absolute path inside it is fine, one outside is refused", async () => {
    w = await snapshotWorld();
    writeFileSync(join(w.work, "t.jsonl"), jsonl(0, 3));
    const s = await w.cli(["snapshot", "save", ...A, join(w.work, "t.jsonl")]);
    expect(s.code, s.err).toBe(0);
    const dir = into();
    expect((await w.cli(["snapshot", "restore", ...A, "--into", dir])).json<{ files: unknown[] }>().files).toEqual([{ path: "t.jsonl", action: "written" }]);
    const outside = await w.cli(["snapshot", "save", ...A, join(dir, "t.jsonl")]);
    expect(outside.code).toBe(1);
    expect(outside.err).toContain("a snapshot holds files under the working directory");
  });

  it("answers a fresh start when the agent has no snapshot", async () => {
    w = await snapshotWorld();
    const dir = into();
    const r = await w.cli(["snapshot", "restore", ...A, "--into", dir]);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ comment_id: null, files: [] });
    expect(r.err).toContain("has no snapshot yet");
    expect(existsSync(join(dir, "t.jsonl"))).toBe(false);
  });
});
