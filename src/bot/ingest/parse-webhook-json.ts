/**
 * A webhook delivery's JSON, parsed once. Every `issue_comment` delivery carries the whole issue body
 * (the dashboard, ~32 KiB, with emoji): decoded as UTF-8 the text becomes a two-byte string and the
 * parsed body a two-byte copy, most of the bot's allocation per delivery (docs/benchmarks.md, issue 22).
 * For `issue_comment`, whose issue body the bot never reads, the bytes are decoded as Latin-1 (one byte
 * per character, no copy into UTF-16), parsed, and only the strings the bot may read are turned back
 * into UTF-8 text; the issue body is dropped.
 *
 * That is exact when no `\u` escape in the text stands for a character at or above U+0080: raw bytes
 * map one to one onto Latin-1 characters, so a string's Latin-1 characters are its UTF-8 bytes. Forgejo
 * (Go's encoding/json) writes non-ASCII raw and escapes only <, >, &, U+2028 and U+2029; any other
 * escape at or above U+0080, or any text that cannot be checked cheaply, takes the plain UTF-8 path.
 */
export function parseWebhookJson(received: Buffer, event: string): unknown {
  if (event !== "issue_comment") return parseOrUndefined(received.toString("utf8"));
  const raw = issueBodyAsNull(received);
  const text = raw.toString("latin1");
  // \uXXXX below U+0080 is ASCII, the same either way; anything else needs the UTF-8 path.
  if (/\\u(?!00[0-7])/i.test(text)) return withoutIssueBody(parseOrUndefined(raw.toString("utf8")));
  return fromLatin1(withoutIssueBody(parseOrUndefined(text)));
}

const ISSUE = Buffer.from('\n  "issue": {\n');
const BODY = Buffer.from('\n    "body": "');
const ISSUE_END = Buffer.from("\n  }");
const NULL = Buffer.from("null");

/**
 * Forgejo's JSON (Go's, indented by two spaces) with the issue's body string replaced by `null`
 * before any decoding: the body is most of the delivery (the dashboard) and the bot never reads it,
 * so it is neither decoded, scanned nor parsed (docs/benchmarks.md, "Issue 32, third round").
 * A raw newline never occurs inside a JSON string, so "newline, two spaces, "issue": {" is the
 * top-level key and "newline, four spaces, "body": "" one of its own keys, before the object's
 * closing "newline, two spaces, }". Any other layout (compact JSON) is returned as it is.
 */
export function issueBodyAsNull(raw: Buffer): Buffer {
  const issue = raw.indexOf(ISSUE);
  if (issue < 0) return raw;
  const key = raw.indexOf(BODY, issue);
  const end = raw.indexOf(ISSUE_END, issue);
  if (key < 0 || end < key) return raw;
  const open = key + BODY.length - 1;
  for (let from = open + 1; ; ) {
    const quote = raw.indexOf(0x22, from);
    if (quote < 0) return raw;
    let backslashes = 0;
    while (raw[quote - 1 - backslashes] === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return Buffer.concat([raw.subarray(0, open), NULL, raw.subarray(quote + 1)]);
    from = quote + 1;
  }
}

/** The payload with `issue.body` null (either path, so both give the same value). */
function withoutIssueBody(payload: unknown): unknown {
  if (payload === null || typeof payload !== "object") return payload;
  const issue = (payload as { issue?: unknown }).issue;
  if (issue !== null && typeof issue === "object" && "body" in issue) (issue as { body?: unknown }).body = null;
  return payload;
}

/** Every string of a parsed value, from its UTF-8 bytes read as Latin-1 back to text (in place). */
function fromLatin1(v: unknown): unknown {
  if (typeof v === "string") return needsDecode(v) ? Buffer.from(v, "latin1").toString("utf8") : v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = fromLatin1(v[i]);
    return v;
  }
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const key = needsDecode(k) ? Buffer.from(k, "latin1").toString("utf8") : k;
      const value = fromLatin1(o[k]);
      if (key === k && value === o[k]) continue;
      if (key !== k) delete o[k];
      // defineProperty, not assignment: a "__proto__" key from JSON.parse is an own property, and
      // assigning to it would set the object's prototype.
      Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
    }
  }
  return v;
}

const needsDecode = (s: string) => /[^\p{ASCII}]/u.test(s);

/** The parsed JSON, or undefined when the text is not JSON. */
export function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
