// The pure part of snapshots (src/snapshot/core/): sealing, names, the divergence and restore decisions.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseComment, formatSnapshot } from "../../../src/protocol/index.ts";
import { ManifestSchema } from "../../../src/snapshot/core/manifest.ts";
import { chunkRanges, planFile } from "../../../src/snapshot/core/plan-file.ts";
import { decideRestore } from "../../../src/snapshot/core/restore-decision.ts";
import { chunkName, seal, sealedKeyId, sha256Hex, unseal } from "../../../src/snapshot/core/seal.ts";
import { parseStateKey } from "../../../src/snapshot/core/state-key.ts";
import { partsCommentBody, partsCommentOf } from "../../../src/snapshot/core/parts-comment.ts";

const keyA = parseStateKey(randomBytes(32).toString("hex"));
const keyB = parseStateKey(randomBytes(32).toString("base64"));

describe("state keys and sealing", () => {
  it("takes 32 bytes as hex or base64, and says how to make one otherwise", () => {
    expect(keyA.id).toMatch(/^[0-9a-f]{16}$/);
    expect(() => parseStateKey("short")).toThrow(/CHECKPOST_STATE_KEY must be 32 bytes.*openssl rand -base64 32/);
    expect(() => parseStateKey(randomBytes(16).toString("hex"))).toThrow(/32 bytes/);
  });

  it("seals with AES-256-GCM: round trip, key id in the header, tampering and wrong keys refused", () => {
    const plain = Buffer.from("a transcript line\n");
    const sealed = seal(keyA, plain);
    expect(sealed.includes(plain)).toBe(false);
    expect(sealedKeyId(sealed)).toBe(keyA.id);
    expect(unseal([keyB, keyA], sealed, "x")).toEqual(plain);
    expect(() => unseal([keyB], sealed, "the manifest")).toThrow(`the manifest is sealed with key id ${keyA.id}, which none of the given keys`);
    expect(() => unseal([], sealed, "x")).toThrow(/no key is set: set CHECKPOST_STATE_KEY/);
    const bad = Buffer.from(sealed);
    bad[bad.length - 1] = (bad[bad.length - 1] as number) ^ 1;
    expect(() => unseal([keyA], bad, "x")).toThrow(/does not authenticate/);
    expect(() => unseal([keyA], plain, "x")).toThrow(/not sealed/);
  });

  it("names chunks by sha256, or by a keyed digest that differs per key and from sha256", () => {
    const b = Buffer.from("chunk");
    expect(chunkName(b, null)).toBe(sha256Hex(b));
    expect(chunkName(b, keyA)).not.toBe(sha256Hex(b));
    expect(chunkName(b, keyA)).not.toBe(chunkName(b, keyB));
    expect(chunkName(b, keyA)).toBe(chunkName(Buffer.from("chunk"), keyA));
  });
});

describe("the divergence decision", () => {
  const stored = { path: "t.jsonl", kind: "file" as const, size: 10, mode: 0o644, mtimeMs: 0, sha256: "a".repeat(64), chunks: [] };
  const o = { appendOnly: true, force: false };
  it("unchanged, extends, new, divergent", () => {
    expect(planFile(stored, { size: 10, sha256: "a".repeat(64), prefixSha256: "a".repeat(64) }, o)).toEqual({ kind: "unchanged" });
    expect(planFile(stored, { size: 15, sha256: "b".repeat(64), prefixSha256: "a".repeat(64) }, o)).toEqual({ kind: "extends", from: 10 });
    expect(planFile(undefined, { size: 15, sha256: "b".repeat(64), prefixSha256: null }, o)).toEqual({ kind: "new" });
    expect(planFile(stored, { size: 5, sha256: "b".repeat(64), prefixSha256: null }, o)).toEqual({ kind: "divergent", why: "shortened from 10 to 5 bytes" });
    expect(planFile(stored, { size: 15, sha256: "b".repeat(64), prefixSha256: "c".repeat(64) }, o)).toMatchObject({ kind: "divergent" });
    expect(planFile(stored, { size: 15, sha256: "b".repeat(64), prefixSha256: "c".repeat(64) }, { ...o, force: true })).toEqual({ kind: "new" });
    expect(planFile(stored, { size: 5, sha256: "b".repeat(64), prefixSha256: null }, { appendOnly: false, force: false })).toEqual({ kind: "new" });
  });

  it("cuts ranges of at most the chunk size", () => {
    expect(chunkRanges(10, 35, 10)).toEqual([
      [10, 20],
      [20, 30],
      [30, 35],
    ]);
    expect(chunkRanges(5, 5, 10)).toEqual([]);
  });
});

describe("the restore decision", () => {
  const entry = { size: 10, sha256: "a".repeat(64) };
  const local = (size: number, sha: string, prefix: string | null, mtimeMs: number) => ({ size, sha256: sha, prefixSha256: prefix, mtimeMs });
  it("writes missing and older files, keeps newer ones and extensions unless forced", () => {
    const o = { snapshotTakenMs: 1000, force: false };
    expect(decideRestore(entry, null, o)).toEqual({ kind: "write" });
    expect(decideRestore(entry, local(10, "a".repeat(64), "a".repeat(64), 5000), o)).toEqual({ kind: "same" });
    expect(decideRestore(entry, local(12, "b".repeat(64), "a".repeat(64), 500), o)).toMatchObject({ kind: "keep", why: expect.stringContaining("extends") });
    expect(decideRestore(entry, local(8, "b".repeat(64), null, 5000), o)).toMatchObject({ kind: "keep", why: expect.stringContaining("after the snapshot") });
    expect(decideRestore(entry, local(8, "b".repeat(64), null, 500), o)).toEqual({ kind: "write" });
    expect(decideRestore(entry, local(12, "b".repeat(64), "a".repeat(64), 5000), { ...o, force: true })).toEqual({ kind: "write" });
  });
});

describe("manifests and comments", () => {
  it("refuses a manifest path that could leave --into", () => {
    const m = (path: string) => ({
      v: 1,
      agent: "a",
      session: "s",
      epoch: 0,
      created: "",
      key: null,
      files: [{ path, kind: "file", size: 0, mode: 0o644, mtimeMs: 0, sha256: "a".repeat(64), chunks: [] }],
    });
    expect(ManifestSchema.safeParse(m("dir/t.jsonl")).success).toBe(true);
    for (const bad of ["../x", "/etc/passwd", "a/../../x", "a//b", "./a", "a\\..\\b", ""]) expect(ManifestSchema.safeParse(m(bad)).success, bad).toBe(false);
  });

  it("writes and reads a [SNAPSHOT] comment; the parts comment is chatter to the protocol reader", () => {
    const body = formatSnapshot({
      agent: "w",
      session: "s1",
      timestamp: "2026-12-06T02:00:00Z",
      epoch: 2,
      manifestComment: 7,
      manifest: `manifest-${"0".repeat(32)}.json`,
      files: 2,
      bytes: 100,
      uploaded: 40,
      sealed: keyA.id,
    });
    expect(parseComment(body)).toEqual({
      kind: "snapshot",
      snapshot: {
        version: "1.0",
        agent: "w",
        session: "s1",
        timestamp: "2026-12-06T02:00:00Z",
        epoch: 2,
        manifestComment: 7,
        manifest: `manifest-${"0".repeat(32)}.json`,
        files: 2,
        bytes: 100,
        uploaded: 40,
        sealed: keyA.id,
      },
    });
    expect(parseComment(body.replace("Manifest: 7/", "Manifest: ../"))).toMatchObject({ kind: "invalid", marker: "snapshot" });
    const parts = partsCommentBody("w", "s1");
    expect(parseComment(parts)).toEqual({ kind: "none" });
    expect(partsCommentOf(parts)).toEqual({ agent: "w", session: "s1" });
    expect(partsCommentOf("hello")).toBeNull();
  });
});
