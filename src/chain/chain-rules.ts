import { continuedFrom, continuedIn } from "./chain-links.ts";

/**
 * The session chain: a session issue and the issues that continue it after
 * rollover (docs/chain.md). These are the rules every reader applies to the
 * links; pure, no I/O. The links themselves are hidden markers
 * (src/chain/chain-links.ts): `continues #N` in a successor's body and
 * `continued-in #M` in a comment the bot leaves on the closed issue.
 */

/** What a rule needs to know of an issue. */
export interface ChainIssue {
  number: number;
  title: string;
  body: string | null;
  state: string;
  /** The opener's login. */
  author: string;
}

/** What a rule needs to know of a comment. */
export interface ChainComment {
  id: number;
  body: string | null;
  /** The writer's login. */
  author: string;
}

const lower = (s: string) => s.toLowerCase();

/**
 * The bot's adoption rule at rollover (issue 19): a successor found by the
 * `continues` marker is adopted only when the bot's own login opened it, it
 * links back to `previous` and it has the same title. Anyone who may open an
 * issue can write the marker: any other such issue is an anomaly, never
 * labelled, carried into or adopted.
 */
export function adoptableSuccessor(candidate: ChainIssue, o: { previous: number; title: string; botLogin: string }): boolean {
  return candidate.title === o.title && continuedFrom(candidate.body) === o.previous && lower(candidate.author) === lower(o.botLogin);
}

/** An issue that says it continues `previous` but may not be adopted: why, in words (for the anomaly log). */
export function hijackReason(candidate: ChainIssue, o: { previous: number; title: string; botLogin: string }): string | null {
  if (continuedFrom(candidate.body) !== o.previous || candidate.title !== o.title) return null;
  if (lower(candidate.author) === lower(o.botLogin)) return null;
  return `issue #${candidate.number} says it continues #${o.previous} but was opened by ${candidate.author}, not by the bot (${o.botLogin}): not adopted`;
}

/**
 * The same rule for a reader without the bot's login: a link is followed only
 * when the successor was opened by a trusted login (the bot's login must be
 * trusted anyway: it writes the carried checkpoints), links back to `previous`
 * and has the same title; when the link came from a `continued-in` comment,
 * the successor's opener must also be that comment's author.
 */
export function followableSuccessor(candidate: ChainIssue, o: { previous: number; title: string; trusted: ReadonlySet<string>; linkAuthor?: string }): boolean {
  const opener = lower(candidate.author);
  return candidate.title === o.title && continuedFrom(candidate.body) === o.previous && o.trusted.has(opener) && (o.linkAuthor === undefined || lower(o.linkAuthor) === opener);
}

/**
 * The successor a closed issue's comments name: the newest `continued-in`
 * comment by a trusted author (anyone may comment, so others are ignored).
 */
export function successorNamed(comments: readonly ChainComment[], trusted: ReadonlySet<string>): { successor: number; author: string } | null {
  let best: { id: number; successor: number; author: string } | null = null;
  for (const c of comments) {
    const n = continuedIn(c.body);
    if (n === null || !trusted.has(lower(c.author))) continue;
    if (!best || c.id > best.id) best = { id: c.id, successor: n, author: c.author };
  }
  return best && { successor: best.successor, author: best.author };
}

/**
 * A predecessor link followed backwards (`history`, `latest --all-issues`):
 * the issue saying it continues another must itself pass the successor rule.
 */
export function followablePredecessor(issue: ChainIssue, o: { title: string; trusted: ReadonlySet<string> }): number | null {
  const previous = continuedFrom(issue.body);
  if (previous === null) return null;
  return followableSuccessor(issue, { previous, title: o.title, trusted: o.trusted }) ? previous : null;
}
