/**
 * The links between a session issue and the one that continues it, as hidden
 * markers in issue bodies (so any reader, with or without the bot's store, can
 * follow the chain) and as visible text for people.
 */
const CONTINUES = /<!-- checkpost:continues #(\d+) -->/;

/** The line opening a successor's body: links back to the issue it continues. */
export function continuesLine(previous: number, comments: number): string {
  return `<!-- checkpost:continues #${previous} -->\nThis session issue continues #${previous}, which reached ${comments} comments and was closed. Each agent's newest checkpoint and health signal were carried over.\n`;
}

/** The issue this body says it continues, or null. */
export function continuedFrom(body: string | null | undefined): number | null {
  const m = CONTINUES.exec(body ?? "");
  return m ? Number(m[1]) : null;
}

/** The comment left on the old issue, linking forward. */
export function continuedInComment(successor: number, comments: number): string {
  return `<!-- checkpost:continued-in #${successor} -->\n➡️ This session issue reached ${comments} comments and continues in #${successor}. Checkpoints posted here from now on are carried there too.`;
}

const CONTINUED_IN = /<!-- checkpost:continued-in #(\d+) -->/;

/** The successor named by a "continued in" comment, or null. */
export function continuedIn(body: string | null | undefined): number | null {
  const m = CONTINUED_IN.exec(body ?? "");
  return m ? Number(m[1]) : null;
}
