// scripts/check-commit-bodies.ts (issue 31, item 8), run by .ci/run: on throwaway repositories, which
// commits it flags, that it reads only those after the starting commit, and that a shallow clone is
// skipped with a message instead of failing.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { commitsWithoutBody, MAX_LINES_WITHOUT_BODY, readCommits, SINCE } from "../../scripts/check-commit-bodies.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "checkpost-commits-"));
  dirs.push(d);
  return d;
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", ...args], { cwd, encoding: "utf8" }).trim();
/** Commit `lines` new lines to `file` with `message`; returns the SHA. */
const commit = (cwd: string, file: string, lines: number, message: string) => {
  writeFileSync(join(cwd, file), Array.from({ length: lines }, (_, i) => `line ${i}\n`).join(""));
  git(cwd, "add", file);
  git(cwd, "commit", "-q", "-m", message);
  return git(cwd, "rev-parse", "HEAD");
};

describe("commit bodies", () => {
  const repo = tempDir();
  git(repo, "init", "-q");
  const base = commit(repo, "old.txt", 100, "old: before the rule, no body");
  const small = commit(repo, "a.txt", MAX_LINES_WITHOUT_BODY, "a: small, no body needed");
  const big = commit(repo, "b.txt", MAX_LINES_WITHOUT_BODY + 1, "b: big and no body");
  const withBody = commit(repo, "c.txt", 50, "c: big with a body\n\nBecause the issue asks for it.");
  const trailerOnly = commit(repo, "d.txt", 50, "d: big, a trailer is no body\n\nSigned-off-by: t <t@example.invalid>");
  git(repo, "checkout", "-q", "-b", "side", base);
  commit(repo, "e.txt", 30, "e: on a side branch\n\nMerged below.");
  git(repo, "checkout", "-q", "main");
  git(repo, "merge", "-q", "--no-ff", "-m", "merge side (a merge needs no body)", "side");

  it("reads the non-merge commits after the starting one, with their sizes", () => {
    const read = readCommits(repo, base);
    if ("skipped" in read) throw new Error(read.skipped);
    expect(read.commits.map((c) => c.subject).sort()).toEqual(["a: small, no body needed", "b: big and no body", "c: big with a body", "d: big, a trailer is no body", "e: on a side branch"]);
    expect(read.commits.find((c) => c.sha === small)?.changed).toBe(MAX_LINES_WITHOUT_BODY);
    expect(read.commits.find((c) => c.sha === withBody)?.body).toBe("Because the issue asks for it.");
  });

  it("flags the commits over the limit without a body, trailers not counting as one", () => {
    const read = readCommits(repo, base);
    if ("skipped" in read) throw new Error(read.skipped);
    expect(commitsWithoutBody(read.commits, MAX_LINES_WITHOUT_BODY, {}).map((c) => c.sha)).toEqual([trailerOnly, big]);
    // A commit let stand (history is not rewritten) is not flagged.
    expect(commitsWithoutBody(read.commits, MAX_LINES_WITHOUT_BODY, { [big]: "merged before the check ran" }).map((c) => c.sha)).toEqual([trailerOnly]);
  });

  it("skips a shallow clone without the starting commit, saying how to check it", () => {
    const clone = join(tempDir(), "clone");
    git(tempDir(), "clone", "-q", "--depth", "1", `file://${repo}`, clone);
    const read = readCommits(clone, base);
    expect(read).toEqual({ skipped: expect.stringContaining("git fetch --unshallow") });
  });

  it("skips outside a git checkout, and names a missing starting commit", () => {
    expect(readCommits(tempDir())).toEqual({ skipped: expect.stringContaining("not a git checkout") });
    expect(readCommits(repo, SINCE)).toEqual({ skipped: expect.stringContaining("not in this repository's history") });
  });
});
