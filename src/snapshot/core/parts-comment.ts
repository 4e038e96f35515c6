/**
 * The comment a snapshot's parts (chunks and manifest) are attachments of. Chatter to every protocol
 * reader (it opens with no marker), so the `edited` each upload causes is a chatter edit; the hidden
 * first line lets `snapshot save` find its own parts comments to prune. Paths and contents never appear.
 */
const PREFIX = "<!-- checkpost:snapshot-parts ";

export function partsCommentBody(agent: string, session: string): string {
  return `${PREFIX}${JSON.stringify({ agent, session })} -->\nParts of a checkpost snapshot of \`${agent.replace(/`/g, "'")}\` (attachments; see the [SNAPSHOT] comment that names them).`;
}

/** The agent+session a parts comment belongs to, or null when the body is not one. */
export function partsCommentOf(body: string): { agent: string; session: string } | null {
  if (!body.startsWith(PREFIX)) return null;
  const end = body.indexOf(" -->", PREFIX.length);
  if (end < 0) return null;
  try {
    const v: unknown = JSON.parse(body.slice(PREFIX.length, end));
    if (typeof v === "object" && v !== null && "agent" in v && "session" in v && typeof v.agent === "string" && typeof v.session === "string") return { agent: v.agent, session: v.session };
  } catch {
    // not ours
  }
  return null;
}
