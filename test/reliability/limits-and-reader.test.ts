import { afterEach, describe, expect, it } from "vitest";
import { CheckpointTooLargeError } from "../../src/errors.ts";
import { DEFAULT_READER_LIMITS, formatCheckpoint, parseComment } from "../../src/protocol/index.ts";
import type { JsonObject } from "../../src/protocol/index.ts";
import { startReliabilityWorld } from "../../scripts/reliability/reliability-world.ts";
import type { ReliabilityWorld } from "../../scripts/reliability/reliability-world.ts";

let world: ReliabilityWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const base = { agent: "implementation-worker", session: "s1", phase: "clone_complete", timestamp: "2026-11-29T10:00:00Z" };
const body = (json: string) => formatCheckpoint({ ...base, data: {} }).replace("```json\n{}\n```", () => "```json\n" + json + "\n```");

describe("save size cap", () => {
  it("fails before sending, naming the largest keys, and makes no request", async () => {
    world = await startReliabilityWorld();
    const store = world.store({ maxCheckpointBytes: 4096 });
    world.forge.admin.resetStats();
    const data = { file_contents: "x".repeat(20_000), diff: "y".repeat(3000), branch_name: "feat/x" };
    const err = await store.save({ ...base, data }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CheckpointTooLargeError);
    expect((err as Error).message).toMatch(/over the 4096-byte cap/);
    expect((err as CheckpointTooLargeError).largestKeys.slice(0, 2)).toEqual(["file_contents", "diff"]);
    expect((err as Error).message).toContain('"file_contents"');
    expect(store.api.requestCount).toBe(0);
    expect(world.forge.admin.stats().totalRequests).toBe(0);
  });

  it("defaults to 64 KiB: just under saves, over fails", async () => {
    world = await startReliabilityWorld();
    const store = world.store();
    await expect(store.save({ ...base, data: { notes: "n".repeat(60_000) } })).resolves.toMatchObject({ issue: 1 });
    await expect(store.save({ ...base, data: { notes: "n".repeat(66_000) } })).rejects.toBeInstanceOf(CheckpointTooLargeError);
    expect(store.api.requestCount).toBe(1);
  });
});

describe("reader bounds and hostile JSON", () => {
  it("reports bodies over the byte limit invalid, counting UTF-8 bytes", () => {
    const big = `${body("{}")}\n${"é".repeat(DEFAULT_READER_LIMITS.maxBodyBytes / 2 + 1)}`;
    expect(big.length).toBeLessThan(DEFAULT_READER_LIMITS.maxBodyBytes);
    expect(parseComment(big)).toMatchObject({ kind: "invalid", error: expect.stringMatching(/byte limit/) });
    expect(parseComment(body("{}"), { maxBodyBytes: 100 })).toMatchObject({ kind: "invalid" });
  });

  it("bounds JSON depth without recursion (200,000 levels do not overflow the stack)", () => {
    const deep = (n: number) => `{"k": ${"[".repeat(n - 1)}${"]".repeat(n - 1)}}`;
    expect(parseComment(body(deep(64)))).toMatchObject({ kind: "checkpoint" });
    expect(parseComment(body(deep(65)))).toMatchObject({ kind: "invalid", error: expect.stringMatching(/deeper than 64/) });
    expect(parseComment(body(deep(200_000)))).toMatchObject({ kind: "invalid" });
  });

  it("keeps __proto__ and constructor as plain keys and never touches a prototype", () => {
    const p = parseComment(body('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'));
    expect(p.kind).toBe("checkpoint");
    const data = (p.kind === "checkpoint" ? p.checkpoint.data : null) as Record<string, unknown>;
    expect(Object.keys(data)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("round-trips an own __proto__ key through formatCheckpoint (zod's record() used to drop it)", () => {
    const data = JSON.parse('{"__proto__": {"x": 1}, "a": 1}') as JsonObject;
    const p = parseComment(formatCheckpoint({ ...base, data }));
    expect(p.kind === "checkpoint" && Object.keys(p.checkpoint.data as object)).toEqual(["__proto__", "a"]);
  });

  it("reads Seq/Epoch up to Number.MAX_SAFE_INTEGER, header values with U+2028, and refuses two JSON blocks", () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(parseComment(formatCheckpoint({ ...base, data: {}, seq: max, epoch: max }))).toMatchObject({ checkpoint: { seq: max, epoch: max } });
    expect(parseComment(formatCheckpoint({ ...base, phase: "a\u2028b", data: {} }))).toMatchObject({ checkpoint: { phase: "a\u2028b" } });
    const forged = formatCheckpoint({ ...base, data: { real: true } }).replace("Version:", '```json\n{"evil": true}\n```\nVersion:');
    expect(parseComment(forged)).toMatchObject({ kind: "invalid", error: expect.stringMatching(/more than one/) });
  });

  it("does not read a quoted or introduced checkpoint as one", () => {
    const cp = formatCheckpoint({ ...base, data: {} });
    expect(
      parseComment(
        cp
          .split("\n")
          .map((l) => `> ${l}`)
          .join("\n"),
      ).kind,
    ).toBe("none");
    expect(parseComment(`As agreed:\n${cp}`).kind).toBe("none");
  });
});
