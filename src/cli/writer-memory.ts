import { join } from "node:path";
import * as z from "zod";
import { JsonFileMap } from "./json-file-map.ts";
import { cliCacheDir } from "./cache-dir.ts";
import { builtSchema, lazySchema } from "../protocol/lazy-schema.ts";

const WriterSchema = lazySchema(() => z.object({ epoch: z.number().int().min(0), next_seq: z.number().int().min(1) }));
export type WriterState = z.infer<typeof WriterSchema>;

/**
 * The fence this machine holds per (instance, repo, agent, session): the epoch `resume` took over
 * with and the next Seq. Each CLI call is a new process, so without this a plain `save` after
 * `resume` would be written as epoch 0 and fenced off as a zombie, silently never resumed.
 */
export class WriterMemory {
  private readonly map: JsonFileMap<WriterState>;
  constructor(dir: string | undefined, env: NodeJS.ProcessEnv) {
    this.map = new JsonFileMap(
      join(cliCacheDir(dir, env), "writers.json"),
      lazySchema(() => z.record(z.string(), builtSchema(WriterSchema))),
    );
  }

  get(key: string): WriterState | undefined {
    return this.map.get(key);
  }

  set(key: string, state: WriterState): void {
    this.map.set(key, state);
  }
}
