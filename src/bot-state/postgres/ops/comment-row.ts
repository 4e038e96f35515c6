import type { StoredComment } from "../../index.ts";

/** A row of checkpost_comments as selected by COLS. */
export interface CommentRow {
  comment_id: string;
  author: string;
  created_at: string;
  updated_at: string;
  updated_ms: string | null;
  hash: string;
  multi: boolean;
  body: string | null;
  html_url: string | null;
  deleted: boolean;
}

/** The columns read and written of a comment row, in rowValues' order. */
export const COLS = "comment_id, author, created_at, updated_at, updated_ms, hash, multi, body, html_url, deleted";

/** A StoredComment as the values of COLS. */
export function rowValues(r: StoredComment): unknown[] {
  return [r.id, r.author, r.createdAt, r.updatedAt, r.updatedAt === "" ? null : Date.parse(r.updatedAt), r.hash, r.multi, r.body, r.htmlUrl ?? null, r.deleted];
}

export function toStored(r: CommentRow): StoredComment {
  return {
    id: Number(r.comment_id),
    author: r.author,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...(r.html_url !== null ? { htmlUrl: r.html_url } : {}),
    hash: r.hash,
    multi: r.multi,
    body: r.body,
    deleted: r.deleted,
  };
}
