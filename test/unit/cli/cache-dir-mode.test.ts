import { chmodSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as z from "zod";
import { describe, expect, it, vi } from "vitest";
import { cacheDirUsable } from "../../../src/cli/cache-dir.ts";
import { JsonFileMap } from "../../../src/cli/json-file-map.ts";

describe("a cache folder others may write to (issue 28.6)", () => {
  it("is repaired to 0700, said once, and its files (maybe planted) are not used this time", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "cp-cache-mode-")), "checkpost");
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    writeFileSync(join(dir, "writers.json"), JSON.stringify({ k: 99 }));
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const map = new JsonFileMap(join(dir, "writers.json"), z.record(z.string(), z.number()));
      expect(map.get("k")).toBeUndefined();
      expect(map.read()).toEqual({});
      expect((statSync(dir).mode & 0o777).toString(8)).toBe("700");
      expect(err.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringContaining("was writable by others (mode 777): made 0700")]);
    } finally {
      err.mockRestore();
    }
  });

  it("a private folder is used as it is", () => {
    const dir = mkdtempSync(join(tmpdir(), "cp-cache-mode-"));
    chmodSync(dir, 0o700);
    writeFileSync(join(dir, "issues.json"), JSON.stringify({ k: 7 }));
    expect(cacheDirUsable(dir, () => {})).toBe(true);
    expect(new JsonFileMap(join(dir, "issues.json"), z.record(z.string(), z.number())).get("k")).toBe(7);
  });
});
