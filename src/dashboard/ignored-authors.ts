import type { ProjectionSnapshot } from "../projection/index.ts";
import { compareCodePoints } from "../protocol/index.ts";

/** The logins whose checkpoints and signals every reader ignored: not trusted authors. */
export interface IgnoredAuthors {
  /** Logins named by the snapshot's untrusted-author anomalies, as written, in code-point order. */
  authors: string[];
  /** Authors the projection only counted (beyond the ones it names). */
  more: number;
}

/** Most logins one line names; the setting it suggests names them all the same way. */
const MAX_NAMED = 10;

/**
 * Who wrote checkpoints, health signals or control records that were ignored because the author is not
 * trusted: the `untrusted-author` anomalies of the snapshot. Pure. With separate accounts for the bot
 * and the agents, an agent missing from CHECKPOST_TRUSTED_AUTHORS lands here on its first save.
 */
export function ignoredAuthors(snapshot: Pick<ProjectionSnapshot, "anomalies">): IgnoredAuthors {
  const authors = new Set<string>();
  let more = 0;
  for (const a of snapshot.anomalies) {
    if (a.kind !== "untrusted-author") continue;
    if (a.author !== undefined) authors.add(a.author);
    else more += Number(/^(\d+) more untrusted authors/.exec(a.detail)?.[1] ?? 1);
  }
  return { authors: [...authors].sort(compareCodePoints), more };
}

/**
 * The one sentence every reader prints for ignored authors (the dashboard, `checkpost status`,
 * `checkpost doctor`), with the exact setting that admits them: CHECKPOST_TRUSTED_AUTHORS as the reader
 * has it, plus the ignored logins. Null when nobody was ignored. Logins are passed through `clean` and the
 * setting through `code`, so each output escapes them its own way (Markdown, terminal).
 *
 * @example ignoredAuthorsText({ authors: ["agent-1"], more: 0 }, ["ci-bot"])
 * // "checkpoints by agent-1 are ignored: not a trusted author. If agent-1 is one of your agents, set
 * //  CHECKPOST_TRUSTED_AUTHORS=ci-bot,agent-1 on the bot and on every agent (docs/security.md, "Trusted authors")…"
 */
export function ignoredAuthorsText(ignored: IgnoredAuthors, trustedAuthors: readonly string[], clean: (s: string) => string = (s) => s, code: (setting: string) => string = clean): string | null {
  if (ignored.authors.length === 0 && ignored.more === 0) return null;
  const named = ignored.authors.slice(0, MAX_NAMED);
  const rest = ignored.authors.length - named.length + ignored.more;
  const who = `${named.map(clean).join(", ")}${rest ? ` and ${rest} more` : ""}`;
  const one = named.length === 1 && rest === 0;
  const lower = new Set(trustedAuthors.map((t) => t.toLowerCase()));
  const setting = code(`CHECKPOST_TRUSTED_AUTHORS=${[...trustedAuthors, ...named.filter((n) => !lower.has(n.toLowerCase()))].join(",")}`);
  return `checkpoints by ${who} ${one ? "are" : "are all"} ignored: ${one ? "not a trusted author" : "not trusted authors"}. If ${one ? "it is one of your agents" : "they are your agents"}, set ${setting} on the bot and on every agent (docs/security.md, "Trusted authors"); if not, delete ${one ? "its" : "their"} comments.`;
}
