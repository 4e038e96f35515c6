/** Where a command writes; injectable so tests read what a user would see. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  readStdin: () => Promise<string>;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** stdout is a terminal (colours, screen refresh). */
  isTTY?: boolean;
}

export function processIo(): CliIo {
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
  };
}

export const printJson = (io: CliIo, value: unknown) => io.out(JSON.stringify(value));
