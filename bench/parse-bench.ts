/** Parse throughput, in-process: checkpost's parseComment vs the seed's parse_checkpoint_comment over the same bodies. */
import { parseComment } from "../src/protocol/index.ts";
import { seedParseCheckpointComment } from "./seed-baseline.ts";

export interface ParseResult {
  comments: number;
  bytes: number;
  mbPerSec: number;
  commentsPerSec: number;
}

function measure(bodies: readonly string[], bytes: number, minMs: number, fn: (b: string) => unknown): ParseResult {
  let sink = 0;
  for (const b of bodies.slice(0, 2000)) sink += fn(b) ? 1 : 0; // warm-up (JIT)
  let rounds = 0;
  const t0 = performance.now();
  let ms = 0;
  do {
    for (const b of bodies) sink += fn(b) ? 1 : 0;
    rounds++;
    ms = performance.now() - t0;
  } while (ms < minMs);
  if (sink < 0) console.log(sink);
  const sec = ms / 1000;
  return { comments: bodies.length * rounds, bytes: bytes * rounds, mbPerSec: (bytes * rounds) / 1e6 / sec, commentsPerSec: (bodies.length * rounds) / sec };
}

export function parseThroughput(bodies: readonly string[], minMs: number): { seed: ParseResult; checkpost: ParseResult } {
  const bytes = bodies.reduce((s, b) => s + Buffer.byteLength(b), 0);
  return {
    seed: measure(bodies, bytes, minMs, (b) => seedParseCheckpointComment(b)),
    checkpost: measure(bodies, bytes, minMs, (b) => parseComment(b).kind !== "none"),
  };
}
