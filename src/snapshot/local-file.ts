import { createHash } from "node:crypto";
import { open, stat } from "node:fs/promises";

export interface LocalFileState {
  size: number;
  mode: number;
  mtimeMs: number;
  sha256: string;
  /** sha256 of the first `prefixBytes` bytes, or null when the file is shorter (or none was asked). */
  prefixSha256: string | null;
}

const BUF = 1 << 20;

/** Size, mode, mtime and digests of a file in one read: the whole file's and its first `prefixBytes` bytes'. */
export async function readFileState(path: string, prefixBytes?: number): Promise<LocalFileState> {
  const st = await stat(path);
  if (!st.isFile()) throw new Error(`${path} is not a regular file`);
  const whole = createHash("sha256");
  const prefix = prefixBytes !== undefined && prefixBytes <= st.size ? createHash("sha256") : null;
  const fh = await open(path, "r");
  let at = 0;
  try {
    const buf = Buffer.allocUnsafe(BUF);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, BUF, at);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      whole.update(chunk);
      if (prefix && prefixBytes !== undefined && at < prefixBytes) prefix.update(chunk.subarray(0, Math.min(bytesRead, prefixBytes - at)));
      at += bytesRead;
    }
  } finally {
    await fh.close();
  }
  // A file that grew while read is hashed as read: its size is what was read, not what stat said.
  return { size: at, mode: st.mode & 0o7777, mtimeMs: st.mtimeMs, sha256: whole.digest("hex"), prefixSha256: prefix && prefixBytes !== undefined && prefixBytes <= at ? prefix.digest("hex") : null };
}

/** Bytes [start, end) of a file. */
export async function readRange(path: string, start: number, end: number): Promise<Buffer> {
  const fh = await open(path, "r");
  try {
    const buf = Buffer.alloc(end - start);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, start + got);
      if (bytesRead === 0) throw new Error(`${path} shrank while it was read (wanted bytes ${start}-${end})`);
      got += bytesRead;
    }
    return buf;
  } finally {
    await fh.close();
  }
}
