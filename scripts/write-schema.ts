// Regenerates schema/checkpost.schema.json from the zod schemas.
import { writeFileSync } from "node:fs";
import { protocolJsonSchema } from "../src/protocol/json-schema.ts";

writeFileSync(new URL("../schema/checkpost.schema.json", import.meta.url), `${JSON.stringify(protocolJsonSchema(), null, 2)}\n`);
