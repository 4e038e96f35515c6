import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const seedPath = fileURLToPath(new URL("../../../fixtures/seed/session_state.md.txt", import.meta.url));

/**
 * Whether python3 runs here. Tests that need it skip visibly when it is
 * missing, except under CI (CHECKPOST_CI=1), where a missing python3 fails.
 */
export const hasPython: boolean = (() => {
  try {
    execFileSync("python3", ["-c", "pass"], { stdio: "ignore" });
    return true;
  } catch {
    if (process.env.CHECKPOST_CI === "1") throw new Error("python3 is required under CHECKPOST_CI=1 (the seed-reader interop tests must run in CI)");
    console.warn("SKIPPING the seed's Python reader tests: python3 is not installed");
    return false;
  }
})();

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
  const program = [
    "import json, sys",
    seedFunction("parse_checkpoint_comment"),
    "bodies = json.load(sys.stdin)",
    "print(json.dumps([parse_checkpoint_comment(b) for b in bodies]))",
  ].join("\n");
  const out = execFileSync("python3", ["-c", program], { input: JSON.stringify(bodies), encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop() as string) as unknown[];
}

/** Run a Python expression over JSON input; used to produce bodies the way the seed's agents do. */
export function runPython(program: string, input: unknown): string {
  return execFileSync("python3", ["-c", program], { input: JSON.stringify(input), encoding: "utf8" });
}
