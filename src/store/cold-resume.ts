import { forgejoTime } from "../forgejo/index.ts";
import type { ForgejoApi, RepoRef } from "../forgejo/index.ts";
import { ForgejoApiError } from "../errors.ts";
import type { PhaseMap } from "../protocol/index.ts";
import { createProjection } from "../projection/index.ts";
import type { CommentRecord, ResumeAnswer, TrustPolicy } from "../projection/index.ts";
import { extractResumeIndex } from "../dashboard/index.ts";
import { toCommentRecord } from "./to-comment-record.ts";
import { readAllComments } from "./read-all-comments.ts";

export interface ColdResumeInput {
  api: ForgejoApi;
  repo: RepoRef;
  issue: number;
  /** May be a promise: it is awaited only after the reads are under way (saves a round trip). */
  policy: TrustPolicy | Promise<TrustPolicy>;
  agent: string;
  session: string;
  map: Readonly<PhaseMap>;
  /** See readAllComments. */
  readWindowSize?: number;
}

export type ColdResumeAnswer = ResumeAnswer & { maxEpoch: number; via: "index" | "full" };

async function answer(records: CommentRecord[], input: ColdResumeInput, via: "index" | "full"): Promise<ColdResumeAnswer> {
  const p = createProjection(await input.policy);
  p.replaceAll(records);
  const entry = p.snapshot().entries.find((e) => e.agent === input.agent && e.session === input.session);
  return { ...p.resume(input.agent, input.session, input.map), maxEpoch: entry?.maxEpoch ?? 0, via };
}

/**
 * Resume without the bot. When the issue body carries the bot's resume index,
 * read the issue, the one indexed comment and the tail of comments updated
 * since the index's watermark; otherwise (or when anything does not check
 * out) read every comment. The index is only a hint: the comment it points to
 * goes through the same trust rules as any other, so a forged index can at
 * worst send a worker to an older checkpoint of its own, never to a forged one.
 */
export async function coldResume(input: ColdResumeInput): Promise<ColdResumeAnswer> {
  const { api, repo, issue } = input;
  const meta = await api.getIssue(repo, issue);
  const full = async () =>
    answer((await readAllComments(api, repo, issue, { issueMeta: meta, ...(input.readWindowSize ? { windowSize: input.readWindowSize } : {}) })).map(toCommentRecord), input, "full");

  const index = extractResumeIndex(meta.body);
  if (!index?.watermarkUpdatedAt) return full();
  const entry = index.entries.find((e) => e.agent === input.agent && e.session === input.session);

  const tail = api.listComments(repo, issue, { since: forgejoTime(Date.parse(index.watermarkUpdatedAt)) });
  let pointed: CommentRecord | null = null;
  if (entry) {
    try {
      pointed = toCommentRecord(await api.getComment(repo, entry.commentId));
    } catch (e) {
      if (e instanceof ForgejoApiError && e.status === 404) return full(); // deleted since the index was written
      throw e;
    }
  }
  // Controls in effect (pause, hide, a pending rewind or release) are read with the pointed comment.
  const controls: CommentRecord[] = [];
  for (const id of entry?.controls ?? []) {
    try {
      controls.push(toCommentRecord(await api.getComment(repo, id)));
    } catch (e) {
      if (e instanceof ForgejoApiError && e.status === 404) return full();
      throw e;
    }
  }
  const records = (await tail).map(toCommentRecord);
  for (const extra of [...controls, ...(pointed ? [pointed] : [])]) if (!records.some((r) => r.id === extra.id)) records.unshift(extra);
  records.sort((a, b) => a.id - b.id);
  const result = await answer(records, input, "index");
  // Trust the shortcut only when it found what the index promised (or something newer).
  if (!result.checkpoint || (entry && result.checkpoint.commentId < entry.commentId)) return full();
  // A higher epoch than the shortcut can see exists (its checkpoint deleted, say): only the full read can fence correctly.
  if (entry && result.maxEpoch < entry.maxEpoch) return full();
  return result;
}
