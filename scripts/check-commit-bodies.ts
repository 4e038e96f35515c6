// `npm run check:commits` (run by .ci/run): every non-merge commit after SINCE whose diff changes more than
// MAX_LINES_WITHOUT_BODY lines has a body saying why (issue 31, item 8; CONTRIBUTING.md). History before
// SINCE is not rewritten, so it is not checked. A clone without that history (shallow, or not a git
// checkout at all, as in an npm tarball) is skipped with a message saying how to check it, never failed.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** main's tip when the rule was made (2026-12-06): commits after it are checked. */
export const SINCE = "4483a1abb0a5e655338de62bde4aa156e6e2b832";
/** A commit changing more lines than this (added + deleted, a binary file counting as one) needs a body. */
export const MAX_LINES_WITHOUT_BODY = 20;

/**
 * Commits already on main that slipped through, by full SHA, each with why it is let stand: history is not
 * rewritten, so a commit merged without a body is listed here rather than failing every run after it.
 */
export const EXEMPT: Readonly<Record<string, string>> = {};

export interface CommitFacts {
  sha: string;
  subject: string;
  /** The message after the subject, trailers (Signed-off-by, Co-authored-by) left out. */
  body: string;
  /** Lines added plus lines deleted, against its parent. */
  changed: number;
}

export type CommitRead = { commits: CommitFacts[] } | { skipped: string };

const git = (cwd: string, args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] });
const TRAILER = /^(signed-off-by|co-authored-by):/i;
const RS = "\u001e";
const US = "\u001f";

/** The non-merge commits of `head` after `since`, with their bodies and sizes; or why they cannot be read here. */
export function readCommits(cwd: string, since = SINCE, head = "HEAD"): CommitRead {
  try {
    git(cwd, ["rev-parse", "--git-dir"]);
  } catch {
    return { skipped: "not a git checkout: commit bodies are checked in a clone of the repository" };
  }
  try {
    git(cwd, ["cat-file", "-e", `${since}^{commit}`]);
  } catch {
    const shallow = git(cwd, ["rev-parse", "--is-shallow-repository"]).trim() === "true";
    return {
      skipped: shallow
        ? `a shallow clone without commit ${since.slice(0, 7)}: run \`git fetch --unshallow\` (or clone without --depth) to check commit bodies`
        : `commit ${since.slice(0, 7)} is not in this repository's history: commit bodies are checked from it on`,
    };
  }
  const out = git(cwd, ["log", "--no-merges", "--no-renames", `--format=${RS}%H${US}%s${US}%b${US}`, "--numstat", `${since}..${head}`]);
  return {
    commits: out
      .split(RS)
      .slice(1)
      .map((record) => {
        const [sha = "", subject = "", body = "", stat = ""] = record.split(US);
        const changed = stat
          .split("\n")
          .map((l) => l.split("\t"))
          .filter((f) => f.length >= 3)
          .reduce((n, [added, deleted]) => n + (added === "-" ? 1 : Number(added) + Number(deleted)), 0);
        const kept = body
          .split("\n")
          .filter((l) => !TRAILER.test(l.trim()))
          .join("\n")
          .trim();
        return { sha, subject, body: kept, changed };
      }),
  };
}

/** The commits that change more than MAX_LINES_WITHOUT_BODY lines and say nothing after their subject. */
export function commitsWithoutBody(commits: readonly CommitFacts[], maxLines = MAX_LINES_WITHOUT_BODY, exempt: Readonly<Record<string, string>> = EXEMPT): CommitFacts[] {
  return commits.filter((c) => c.changed > maxLines && c.body === "" && !(c.sha in exempt));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const read = readCommits(fileURLToPath(new URL("..", import.meta.url)));
  if ("skipped" in read) {
    process.stdout.write(`commit bodies: skipped, ${read.skipped}\n`);
  } else {
    const bad = commitsWithoutBody(read.commits);
    if (bad.length) {
      process.stderr.write(
        `commit bodies: ${bad.length} of ${read.commits.length} commits since ${SINCE.slice(0, 7)} change more than ${MAX_LINES_WITHOUT_BODY} lines and have no body saying why (CONTRIBUTING.md):\n` +
          bad.map((c) => `  ${c.sha.slice(0, 10)} ${c.subject} (${c.changed} lines)\n`).join("") +
          "A commit not yet shared can be reworded (`git commit --amend`); history already merged is not rewritten: list such a commit in EXEMPT (scripts/check-commit-bodies.ts) with why.\n",
      );
      process.exitCode = 1;
    } else {
      process.stdout.write(`commit bodies: ${read.commits.length} commits since ${SINCE.slice(0, 7)}, every one over ${MAX_LINES_WITHOUT_BODY} changed lines has a body\n`);
    }
  }
}
