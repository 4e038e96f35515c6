import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { z } from "zod";
import { cacheDirUsable } from "./cache-dir.ts";

/**
 * A small JSON object of key → value kept in one file of the CLI's cache folder, shared by every
 * agent process on this machine. Reads tolerate a missing or damaged file (empty); writes are
 * atomic (write a temporary file, then rename), so a concurrent reader never sees half a file.
 */
export class JsonFileMap<V> {
  constructor(
    private readonly file: string,
    private readonly schema: z.ZodType<Record<string, V>>,
  ) {}

  read(): Record<string, V> {
    // A folder others may write to: nothing in it is believed (cacheDirUsable).
    if (!cacheDirUsable(dirname(this.file))) return {};
    try {
      // Read first: the schema may be built on first use (lazySchema), which a missing file never needs.
      const data: unknown = JSON.parse(readFileSync(this.file, "utf8"));
      const r = this.schema.safeParse(data);
      return r.success ? r.data : {};
    } catch {
      return {}; // no file yet, or unreadable: callers treat every key as unknown
    }
  }

  get(key: string): V | undefined {
    const all = this.read();
    return Object.hasOwn(all, key) ? all[key] : undefined;
  }

  set(key: string, value: V | undefined): void {
    const all = this.read();
    // The issue cache is set after every command, nearly always to what it holds: skip the write.
    if (JSON.stringify(all[key]) === JSON.stringify(value) && (value !== undefined || !Object.hasOwn(all, key))) return;
    if (value === undefined) delete all[key];
    else all[key] = value;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
