import { join } from "node:path";
import * as z from "zod";
import { cliCacheDir } from "./cache-dir.ts";
import { JsonFileMap } from "./json-file-map.ts";
import { builtSchema, lazySchema } from "../protocol/lazy-schema.ts";

const RefSchema = lazySchema(() => z.object({ comment: z.number().int().positive(), since: z.string().max(40) }));
type Ref = z.infer<typeof RefSchema>;

/**
 * Remembers, per (instance, repo, issue), where the bot's resume index comment is and the time to
 * list comments from (`index-refs.json`), so a cold resume skips the read of the issue. A hint only:
 * the store checks what it names and reads the issue when it does not check out.
 */
export class IndexRefCache {
  private readonly map: JsonFileMap<Ref>;
  constructor(dir: string | undefined, env: NodeJS.ProcessEnv) {
    this.map = new JsonFileMap(
      join(cliCacheDir(dir, env), "index-refs.json"),
      lazySchema(() => z.record(z.string(), builtSchema(RefSchema))),
    );
  }

  /** The store's `indexRefs` for one repository of one instance. */
  forRepo(prefix: string): { get(issue: number): Ref | undefined; set(issue: number, ref: Ref): void } {
    return {
      get: (issue) => this.map.get(`${prefix}|${issue}`),
      set: (issue, ref) => this.map.set(`${prefix}|${issue}`, ref),
    };
  }
}
