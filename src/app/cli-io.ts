// The process's own streams, environment and working directory as the CLI's io: part of the composition
// root (src/app/), the one place the CLI reads process.env.
import type { CliIo } from "../cli/io.ts";

/**
 * A reader that went away (`checkpost history | head -1`, `status --watch | head`) is a normal end, as
 * for any Unix tool: exit at once, quietly, instead of an unhandled EPIPE error with its stack trace.
 * Any other write error still surfaces.
 */
function exitQuietlyOnBrokenPipe(stream: NodeJS.WriteStream): void {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    process.exit(0);
  });
}

export function processIo(): CliIo {
  exitQuietlyOnBrokenPipe(process.stdout);
  exitQuietlyOnBrokenPipe(process.stderr);
  return {
    out: (t) => process.stdout.write(t.endsWith("\n") ? t : `${t}\n`),
    err: (t) => process.stderr.write(t.endsWith("\n") ? t : `${t}\n`),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    env: process.env,
    cwd: process.cwd(),
    isTTY: process.stdout.isTTY === true,
    now: () => new Date(),
  };
}
