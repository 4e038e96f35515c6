// Imported first by the CLI's hot entry (cli-hot-entry.ts), so it runs before any module builds a
// schema: zod reads `jitless` when an object schema is constructed, not when it parses, so setting
// it after the imports (as the entry once did) left every schema built at load on the JIT path.
// A one-shot process parses each schema once or twice: compiling a parser per object schema with
// new Function costs more than it saves there. Same results, only the code path differs.
import * as z from "zod";

z.config({ jitless: true });
