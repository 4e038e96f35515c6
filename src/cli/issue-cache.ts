import { join } from "node:path";
import * as z from "zod";
import { lazySchema } from "../protocol/lazy-schema.ts";
import { cliCacheDir } from "./cache-dir.ts";
import { JsonFileMap } from "./json-file-map.ts";

/**
 * Remembers the session issue's number per (instance, repo, title, label), so
 * a CLI save after the first costs one request. A stale entry (issue closed or
 * deleted) is dropped by the caller on 404 and relocated.
 */
export class IssueCache {
  private readonly map: JsonFileMap<number>;
  constructor(dir: string | undefined, env: NodeJS.ProcessEnv) {
    this.map = new JsonFileMap(
      join(cliCacheDir(dir, env), "issues.json"),
      lazySchema(() => z.record(z.string(), z.number().int().positive())),
    );
  }

  get(key: string): number | undefined {
    return this.map.get(key);
  }

  set(key: string, value: number | undefined): void {
    this.map.set(key, value);
  }
}
