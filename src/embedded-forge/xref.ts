/**
 * Cross-references, as models/issues/issue_xref.go (v13.0.5) keeps them: a title, body or comment that
 * mentions `#N` (or `owner/repo#N`, or `!N`) adds a reference entry to issue N's timeline. That entry is a
 * comment row of a reference type, so CreateComment's updateCommentInfos sets N's updated_unix
 * (models/issues/comment.go:920-921): the OTHER issue's updated_at moves. No webhook is sent (it is a model
 * call, not a notifier one), and the entry is not one of N's API comments (ListIssueComments shows only
 * plain comments), so here it is kept in its own table.
 *
 * - New issue, new comment: every reference found is added (removeOld false; issue_update.go:421,
 *   comment.go:879).
 * - Title or body change, comment edit: removeOld true (issue_update.go:184, :306; comment.go:1184): a
 *   reference this issue/comment already holds is kept as is (N's time does not move again), one no longer
 *   found is neutered, and only new ones are added (issue_xref.go:78-137).
 * - A deleted comment's references are neutered (comment.go DeleteComment → neuterCrossReferences).
 * - Self-references, unknown issues and issues of repositories the doer cannot read are skipped
 *   (:140-238). With an admin's `updated_at` (NoAutoTime), N gets that time (:117-120).
 *
 * The patterns are modules/references/references.go's (issueNumericPattern,
 * crossReferenceIssueNumericPattern); the markdown text is taken without code blocks and code spans, as
 * mdstripper.StripMarkdownBytes does (an approximation: links and other markup are kept as text).
 */
import { accessMode } from "./access.ts";
import type { ForgeContext } from "./context.ts";
import type { IssueRow, UserRow } from "./types.ts";

const NUMERIC = /(?:\s|^|\(|\[|'|")([#!][0-9]+)(?:\s|$|\)|\]|'|"|[:;,.?!]\s|[:;,.?!]$)/g;
const CROSS = /(?:\s|^|\(|\[)([0-9a-zA-Z\-_.]+\/[0-9a-zA-Z\-_.]+[#!][0-9]+)(?:\s|$|\)|\]|[:;,.?!]\s|[:;,.?!]$)/g;

interface RawRef {
  owner: string;
  name: string;
  index: number;
}

function findRefs(text: string): RawRef[] {
  const refs: RawRef[] = [];
  for (const m of text.matchAll(NUMERIC)) refs.push({ owner: "", name: "", index: Number((m[1] ?? "").slice(1)) });
  for (const m of text.matchAll(CROSS)) {
    const [path = "", num = ""] = (m[1] ?? "").split(/[#!]/);
    const [owner = "", name = ""] = path.split("/");
    refs.push({ owner, name, index: Number(num) });
  }
  return refs;
}

/** Markdown without fenced code blocks and code spans (their text is never a reference). */
function stripCode(md: string): string {
  return md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?(^\1[^\n]*$|(?![\s\S]))/gm, "").replace(/`[^`\n]*`/g, "");
}

/** The issues `origin` (title as plain text, body or comment as markdown) refers to, in order, once each. */
function referencedIssues(f: ForgeContext, origin: IssueRow, doer: UserRow, plain: string, markdown: string): IssueRow[] {
  const out: IssueRow[] = [];
  for (const ref of [...findRefs(plain), ...findRefs(stripCode(markdown))]) {
    const repo = ref.owner === "" ? f.store.repoById(origin.repo_id) : f.store.repoByName(ref.owner, ref.name);
    if (!repo) continue;
    const target = f.store.issueByIndex(repo.id, ref.index);
    if (!target || target.id === origin.id || out.some((i) => i.id === target.id)) continue;
    if (target.repo_id !== origin.repo_id && accessMode(f, repo, doer) === "none") continue;
    out.push(target);
  }
  return out;
}

/**
 * createCrossReferences for an issue's title+body (commentId 0) or a comment's body. `at` is the time the
 * referenced issues get (now, or the NoAutoTime date).
 */
export function addCrossReferences(f: ForgeContext, origin: IssueRow, commentId: number, doer: UserRow, plain: string, markdown: string, removeOld: boolean, at: number): void {
  let targets = referencedIssues(f, origin, doer, plain, markdown);
  if (removeOld) {
    const active = f.store.activeCrossReferences(origin.id, commentId);
    for (const targetId of active) {
      if (targets.some((t) => t.id === targetId)) targets = targets.filter((t) => t.id !== targetId);
      else f.store.neuterCrossReference(origin.id, commentId, targetId);
    }
  }
  for (const t of targets) {
    f.store.insertCrossReference(origin.id, commentId, t.id, at);
    f.store.touchIssue(t.id, at);
  }
}

/** A deleted comment's references stop counting (neuterCrossReferences). */
export function neuterCommentReferences(f: ForgeContext, issueId: number, commentId: number): void {
  for (const targetId of f.store.activeCrossReferences(issueId, commentId)) f.store.neuterCrossReference(issueId, commentId, targetId);
}
