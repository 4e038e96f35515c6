import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { lazyLogger } from "../../../src/cli/lazy-logger.ts";

function sink() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe("lazyLogger", () => {
  it("builds no pino logger while nothing reaches its level", () => {
    let built = 0;
    const log = lazyLogger("warn", () => {
      built++;
      return pino({ level: "warn" }, sink().stream);
    });
    log.debug({ a: 1 }, "below the level");
    log.info("also below");
    expect(built).toBe(0);
  });

  it("builds it once, on the first line at or above its level, and forwards every later line", () => {
    const out = sink();
    let built = 0;
    const log = lazyLogger("info", () => {
      built++;
      return pino({ level: "info", base: null, timestamp: false }, out.stream);
    });
    log.debug("dropped");
    log.info({ path: "/x" }, "first");
    log.warn("second");
    log.error(new Error("boom"), "third");
    expect(built).toBe(1);
    expect(out.lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(["first", "second", "third"]);
    expect(JSON.parse(out.lines[0] ?? "{}")).toMatchObject({ level: 30, path: "/x" });
  });

  it("at silent never builds one", () => {
    let built = 0;
    const log = lazyLogger("silent", () => {
      built++;
      return pino({ level: "silent" });
    });
    log.error("nobody hears this");
    expect(built).toBe(0);
  });
});
