import { mkdirSync, readFileSync, writeFileSync, renameSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";

const CacheSchema = z.record(z.string(), z.number().int().positive());

/**
 * Remembers the session issue's number per (instance, repo, title, label), so
 * a CLI save after the first costs one request. A stale entry (issue closed or
 * deleted) is dropped by the caller on 404 and relocated.
 */
export class IssueCache {
  private readonly file: string;
  constructor(dir: string | undefined, env: NodeJS.ProcessEnv) {
    const base = dir ?? join(env["XDG_CACHE_HOME"] ?? join(homedir(), ".cache"), "checkpost");
    this.file = join(base, "issues.json");
  }

  private read(): Record<string, number> {
    try {
      const r = CacheSchema.safeParse(JSON.parse(readFileSync(this.file, "utf8")));
      return r.success ? r.data : {};
    } catch {
      return {}; // no cache yet, or unreadable: locating again is always correct
    }
  }

  get(key: string): number | undefined {
    return this.read()[key];
  }

  set(key: string, value: number | undefined): void {
    const all = this.read();
    if (value === undefined) delete all[key];
    else all[key] = value;
    mkdirSync(join(this.file, ".."), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all));
    renameSync(tmp, this.file); // atomic: concurrent agents never see half a file
  }
}
