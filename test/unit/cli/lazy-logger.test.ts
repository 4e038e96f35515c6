import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { lazyLogger, lazyLoggersSettled } from "../../../src/cli/lazy-logger.ts";

function sink() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream, msgs: () => lines.map((l) => (JSON.parse(l) as { msg: string }).msg) };
}
const noFallback = (line: string) => {
  throw new Error(`unexpected fallback: ${line}`);
};

describe("lazyLogger", () => {
  it("loads no pino while nothing reaches its level", async () => {
    let loads = 0;
    const log = lazyLogger(
      "warn",
      async () => {
        loads++;
        return pino({ level: "warn" }, sink().stream);
      },
      noFallback,
    );
    log.debug({ a: 1 }, "below the level");
    log.info("also below");
    await log.settled();
    expect(loads).toBe(0);
  });

  it("loads it once, on the first line at or above its level, and writes every line in order", async () => {
    const out = sink();
    let loads = 0;
    const log = lazyLogger(
      "info",
      async () => {
        loads++;
        return pino({ level: "info", base: null, timestamp: false }, out.stream);
      },
      noFallback,
    );
    log.debug("dropped");
    log.info({ path: "/x" }, "first");
    log.warn("second"); // still loading: queued behind "first"
    await log.settled();
    log.error(new Error("boom"), "third"); // loaded: written at once
    expect(loads).toBe(1);
    expect(out.msgs()).toEqual(["first", "second", "third"]);
    expect(JSON.parse(out.lines[0] ?? "{}")).toMatchObject({ level: 30, path: "/x" });
  });

  it("at silent never loads one", async () => {
    let loads = 0;
    const log = lazyLogger(
      "silent",
      async () => {
        loads++;
        return pino({ level: "silent" });
      },
      noFallback,
    );
    log.error("nobody hears this");
    await log.settled();
    expect(loads).toBe(0);
  });

  it("when pino cannot load, says so and still writes each line's message (never its objects)", async () => {
    const fallback: string[] = [];
    const log = lazyLogger(
      "warn",
      () => Promise.reject(new Error("Cannot find module 'pino'")),
      (line) => fallback.push(line),
    );
    log.warn({ token: "s3cret-token-value" }, "retrying");
    log.error("gave up");
    await log.settled();
    expect(fallback).toHaveLength(3);
    expect(fallback[0]).toContain("Cannot find module 'pino'");
    expect(fallback.slice(1).map((l) => JSON.parse(l))).toEqual([
      { level: "warn", msg: "retrying" },
      { level: "error", msg: "gave up" },
    ]);
    expect(fallback.join("\n")).not.toContain("s3cret");
  });

  it("lazyLoggersSettled waits for every logger's lines (the hot entry exits only after it)", async () => {
    const out = sink();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const log = lazyLogger(
      "warn",
      async () => {
        await gate; // pino still loading when the command finishes
        return pino({ level: "warn", base: null, timestamp: false }, out.stream);
      },
      noFallback,
    );
    log.warn("retrying POST");
    let settled = false;
    const waiting = lazyLoggersSettled().then(() => {
      settled = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    expect(out.lines).toHaveLength(0);
    release();
    await waiting;
    expect(out.msgs()).toEqual(["retrying POST"]);
  });
});
