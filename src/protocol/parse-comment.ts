import type { Checkpoint } from "./schemas.ts";
import type { JsonValue } from "./json-value.ts";
import { CheckpointParseError } from "../errors.ts";
import { InvalidComment as Invalid } from "./comment-kind.ts";
import type { AnyCommentKind } from "./comment-kind.ts";
import { PROTOCOL_KINDS, markerOf } from "./comment-kinds.ts";
import type { KindRegistry, ParsedFor, ProtocolKinds } from "./comment-kinds.ts";

/** Bounds on what the reader will look at; anything beyond is reported invalid, not parsed. */
export interface ReaderLimits {
  /** Largest comment body, in UTF-8 bytes. Default 1 MiB. */
  maxBodyBytes: number;
  /** Deepest JSON nesting. Default 64. */
  maxJsonDepth: number;
}
export const DEFAULT_READER_LIMITS: ReaderLimits = { maxBodyBytes: 1024 * 1024, maxJsonDepth: 64 };

/**
 * Read one comment body. Never throws: a comment that is not the protocol's is
 * `{kind:"none"}`, one that opens with a marker but cannot be read is
 * `{kind:"invalid", error}`. The marker must open the comment (first non-blank
 * line), so a person quoting `[CHECKPOINT]` is not mistaken for a checkpoint.
 * Accepts CRLF, a missing closing fence (the seed's f-string as published),
 * blank lines and trailing spaces, and header lines in any order. `registry`: the kinds to read
 * (default the protocol's; a test or an extension may add its own).
 */
export function parseComment<Ks extends readonly AnyCommentKind[] = ProtocolKinds>(body: unknown, limits: Partial<ReaderLimits> = {}, registry?: KindRegistry<Ks>): ParsedFor<Ks> {
  type Parsed = ParsedFor<Ks>;
  if (typeof body !== "string") return { kind: "none" };
  const maxBodyBytes = limits.maxBodyBytes ?? DEFAULT_READER_LIMITS.maxBodyBytes;
  const maxJsonDepth = limits.maxJsonDepth ?? DEFAULT_READER_LIMITS.maxJsonDepth;
  const kinds = (registry ?? PROTOCOL_KINDS) as KindRegistry;

  // Cheap rejection first: most comments on the issue are not ours.
  const start = firstNonBlank(body);
  const kind = kinds.forHead(body.slice(start, start + kinds.headLength));
  if (kind === undefined) return { kind: "none" };
  const marker = kind.kind;

  const text = body.indexOf("\r") < 0 ? body : body.replace(/\r\n?/g, "\n");
  const from = firstNonBlank(text);
  const nl = text.indexOf("\n", from);
  const firstEnd = nl < 0 ? text.length : nl;
  const first = text.slice(from, firstEnd).trim();
  const agent = first.slice(kind.marker.length).trim();
  const invalid = (error: string): Parsed => ({ kind: "invalid", marker, agent: agent || null, error });

  // UTF-8 takes at most 3 bytes per UTF-16 unit: count bytes only when the length alone cannot decide.
  if (body.length > maxBodyBytes || (body.length * 3 > maxBodyBytes && Buffer.byteLength(body, "utf8") > maxBodyBytes)) return invalid(`comment body exceeds the reader's ${maxBodyBytes}-byte limit`);
  if (!agent) return invalid(`missing agent name after ${kind.marker}`);

  try {
    const { headers, json } = splitBody(text, firstEnd + 1, kind.headers);
    if (kind.json === "required" && json === null) throw new Invalid("no ```json block");
    if (kind.json === "none" && json !== null) throw new Invalid(`a ${kind.marker} comment has no \`\`\`json block`);
    const value = json === null ? null : parseJson(json, maxJsonDepth);
    // `{kind, [kind]: value}`: each kind names its own field, so the union stays discriminated for callers.
    return { kind: kind.kind, [kind.kind]: kind.read(agent, headers, value) } as Parsed;
  } catch (e) {
    if (e instanceof Invalid) return invalid(e.message);
    throw e;
  }
}

/**
 * Read a body that must be a checkpoint; throws `CheckpointParseError` with the
 * reason, an example of the expected form and the (truncated) input.
 */
export function parseCheckpoint(body: string, limits?: Partial<ReaderLimits>): Checkpoint {
  const r = safeParseCheckpoint(body, limits);
  if (r.success) return r.data;
  const shown = body.length > 200 ? `${body.slice(0, 200)}…` : body;
  throw new CheckpointParseError(
    `${r.error}\nExpected a comment like:\n[CHECKPOINT] implementation-worker\nVersion: 1.0\nPhase: clone_complete\nSession: s1\nTime: 2026-11-29T10:00:00Z\n\nState Data:\n\`\`\`json\n{}\n\`\`\`\nGot:\n${shown}`,
  );
}

/** Like `parseCheckpoint`, returning `{success, data} | {success:false, error}` as zod does. */
export function safeParseCheckpoint(body: string, limits?: Partial<ReaderLimits>): { success: true; data: Checkpoint } | { success: false; error: string } {
  const p = parseComment(body, limits);
  if (p.kind === "checkpoint") return { success: true, data: p.checkpoint };
  if (p.kind === "invalid") return { success: false, error: `invalid ${p.marker}: ${p.error}` };
  if (p.kind !== "none") return { success: false, error: `this is a ${markerOf(p.kind)} comment, not a checkpoint` };
  return { success: false, error: "the comment does not open with [CHECKPOINT]" };
}

function firstNonBlank(s: string): number {
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff) i++;
    else break;
  }
  return i;
}

const FENCE_OPEN = /^```\s*json$/i;

/**
 * How a line inside the JSON block ends it: 0 it does not, 1 the closing fence,
 * 2 the footer (`---`) or the health trailer (`Next check:`), which end a block
 * whose closing fence is missing (the seed's f-string as published). Lines of
 * JSON never start with "`", "-" or "N", so most are settled by their first
 * visible character without building a string.
 */
function blockLineKind(text: string, start: number, end: number): 0 | 1 | 2 {
  let i = start;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9) i++;
    else if (c > 127 || c === 11 || c === 12)
      break; // other whitespace trim() knows: take the slow path
    else if (c !== 96 && c !== 45 && c !== 78 && c !== 110) return 0;
    else break;
  }
  if (i === end) return 0;
  const u = text.slice(start, end).trim();
  if (u === "```") return 1;
  if (u === "---" || /^Next check:/i.test(u)) return 2;
  return 0;
}

/**
 * Header lines (outside the JSON block, before the `---` footer) and the JSON
 * text, read from `pos` (the line after the marker) by line offsets.
 */
function splitBody(text: string, pos: number, known: ReadonlyMap<string, string>): { headers: Map<string, string>; json: string | null } {
  const headers = new Map<string, string>();
  let json: string | null = null;
  while (pos <= text.length) {
    const nl = text.indexOf("\n", pos);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(pos, end);
    const t = line.trim();
    if (t === "---") return { headers, json };
    if (FENCE_OPEN.test(t)) {
      // Two blocks would let text inserted above the real state decide what is resumed: refuse to guess.
      if (json !== null) throw new Invalid("more than one ```json block before the --- footer");
      const blockStart = end + 1;
      let p = blockStart;
      let blockEnd = text.length + 1; // exclusive end of the last content line + its "\n"
      let resume = text.length + 1;
      while (p <= text.length) {
        const nl2 = text.indexOf("\n", p);
        const e2 = nl2 < 0 ? text.length : nl2;
        const kind = blockLineKind(text, p, e2);
        if (kind !== 0) {
          blockEnd = p;
          resume = kind === 1 ? e2 + 1 : p; // after a closing fence, or at the footer line itself
          break;
        }
        p = e2 + 1;
      }
      json = blockStart >= blockEnd ? "" : text.slice(blockStart, blockEnd - 1);
      pos = resume;
      continue;
    }
    takeHeader(line, known, headers);
    pos = end + 1;
  }
  return { headers, json };
}

// "s": a value may hold U+2028/U+2029, which "." would not match (lines are already split on \n).
const HEADER_LINE = /^\s*([A-Za-z][A-Za-z ]{0,15}):(.*)$/s;

/** One header line into `headers` (a module function, not a closure made for every comment). */
function takeHeader(line: string, known: ReadonlyMap<string, string>, headers: Map<string, string>): void {
  const m = HEADER_LINE.exec(line);
  if (!m) return;
  const key = known.get((m[1] as string).trim().toLowerCase());
  if (!key) return;
  const value = (m[2] as string).trim();
  const prev = headers.get(key);
  if (prev !== undefined && prev !== value) throw new Invalid(`conflicting "${m[1]}:" lines ("${prev}" and "${value}")`);
  headers.set(key, value);
}

/**
 * Whether `text` holds more than `max` opening brackets. Nesting can only go as deep as there are
 * "{" and "[", so a block with few of them (most checkpoints) skips the character-by-character
 * depth scan below, which was half of parseComment's time (docs/benchmarks.md, "Issue 32, third round").
 * indexOf runs in native code; this stops counting at max + 1.
 */
function moreBracketsThan(text: string, max: number): boolean {
  let n = 0;
  for (const b of ["{", "["]) {
    for (let i = text.indexOf(b); i >= 0; i = text.indexOf(b, i + 1)) if (++n > max) return true;
  }
  return false;
}

/** JSON.parse after a linear pre-scan bounding the nesting depth (deep input must not blow the stack). */
function parseJson(text: string, maxDepth: number): JsonValue {
  let depth = 0;
  let inString = false;
  const scan = moreBracketsThan(text, maxDepth);
  for (let k = 0; scan && k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (inString) {
      if (c === 92) k++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > maxDepth) throw new Invalid(`JSON nested deeper than ${maxDepth} levels`);
    } else if (c === 125 || c === 93) depth--;
  }
  const trimmed = text.trim();
  if (!trimmed) throw new Invalid("the ```json block is empty");
  try {
    // JSON.parse defines "__proto__" as an own property; it never touches a prototype.
    return JSON.parse(trimmed) as JsonValue;
  } catch (e) {
    throw new Invalid(`broken JSON: ${(e as Error).message}`);
  }
}
