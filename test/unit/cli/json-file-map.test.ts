import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as z from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonFileMap } from "../../../src/cli/json-file-map.ts";

describe("JsonFileMap", () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "checkpost-json-map-"));
    file = join(dir, "sub", "map.json");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const map = () => new JsonFileMap(file, z.record(z.string(), z.number()));

  it("writes a new value and reads it back from another instance", () => {
    map().set("a", 1);
    expect(map().get("a")).toBe(1);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ a: 1 });
  });

  it("leaves the file alone when the value is already what it holds (no write on every save)", () => {
    map().set("a", 1);
    const old = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000); // whole seconds: set and read back exactly
    utimesSync(file, old, old);
    map().set("a", 1);
    expect(statSync(file).mtimeMs).toBe(old.getTime());
    map().set("b", undefined); // removing an absent key is also no change
    expect(statSync(file).mtimeMs).toBe(old.getTime());
    map().set("a", 2);
    expect(statSync(file).mtimeMs).toBeGreaterThan(old.getTime());
    expect(map().get("a")).toBe(2);
  });

  it("removes a key", () => {
    map().set("a", 1);
    map().set("b", 2);
    map().set("a", undefined);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ b: 2 });
  });

  it("treats a damaged file as empty", () => {
    map().set("a", 1);
    rmSync(file);
    expect(map().get("a")).toBeUndefined();
  });
});
