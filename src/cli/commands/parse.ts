import { parseComment, toParseOutput } from "../../protocol/index.ts";
import { type CliIo, printJson } from "../io.ts";

/** `checkpost parse`: one comment body on stdin → JSON; exits 0 whatever the body holds. */
export async function parse(io: CliIo): Promise<void> {
  printJson(io, toParseOutput(parseComment(await io.readStdin())));
}
