import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, it } from "vitest";

const seedPath = fileURLToPath(new URL("../../fixtures/seed/session_state.md.txt", import.meta.url));

/**
 * These interop tests need `python3` on PATH (they run the seed's own Python code). Without it they
 * are skipped with the reason in the test name, except under CI (CHECKPOST_CI=1), where a missing
 * python3 is a failure: CI must never pass by skipping.
 */
export const PYTHON3_MISSING_REASON = spawnSync("python3", ["--version"]).status === 0 ? undefined : "python3 not found on PATH";

/** `describe` for suites that run python3: skipped (visibly, with the reason) only when python3 is missing outside CI. */
export const describeWithPython3 = (name: string, body: () => void): void => {
  if (PYTHON3_MISSING_REASON === undefined) describe(name, body);
  else if (process.env.CHECKPOST_CI === "1") {
    describe(name, () => {
      it("needs python3 (CHECKPOST_CI=1: a missing python3 fails instead of skipping)", () => {
        throw new Error(`${PYTHON3_MISSING_REASON}: install python3 (Debian: apt-get install python3)`);
      });
    });
  } else {
    console.warn(`[checkpost tests] skipping "${name}": ${PYTHON3_MISSING_REASON}`);
    describe.skip(`${name} [skipped: ${PYTHON3_MISSING_REASON}; install python3 to run]`, body);
  }
};

/** The seed's own Python source of one function, cut out of the seed text verbatim. */
export function seedFunction(name: string): string {
  const text = readFileSync(seedPath, "utf8");
  const start = text.indexOf(`def ${name}(`);
  if (start < 0) throw new Error(`seed has no def ${name}`);
  const rest = text.slice(start);
  // The function ends at the first line that is not indented (and not blank).
  const lines = rest.split("\n");
  const out = [lines[0] as string];
  for (const line of lines.slice(1)) {
    if (line.trim() !== "" && !/^\s/.test(line)) break;
    out.push(line);
  }
  return out.join("\n");
}

/** Run the seed's `parse_checkpoint_comment` over each body in python3; returns its results (None → null). */
export function runSeedParser(bodies: string[]): unknown[] {
  const program = ["import json, sys", seedFunction("parse_checkpoint_comment"), "bodies = json.load(sys.stdin)", "print(json.dumps([parse_checkpoint_comment(b) for b in bodies]))"].join("\n");
  const out = execFileSync("python3", ["-c", program], { input: JSON.stringify(bodies), encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop() as string) as unknown[];
}

/** Run a Python expression over JSON input; used to produce bodies the way the seed's agents do. */
export function runPython(program: string, input: unknown): string {
  return execFileSync("python3", ["-c", program], { input: JSON.stringify(input), encoding: "utf8" });
}
