// A forge world for `checkpost snapshot` tests: a work folder, the CLI run in-process against the
// embedded Forgejo, and readers of what the forge holds.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/app/cli.ts";
import type { CliIo } from "../../src/cli/io.ts";
import type { HostComment } from "../../src/ports/issue-host.ts";
import { forgeWorld } from "./forge-fixture.ts";
import type { ForgeWorld } from "./forge-fixture.ts";

export interface CliRun {
  code: number;
  out: string;
  err: string;
  json: <T = Record<string, unknown>>() => T;
}

export interface SnapshotWorld extends ForgeWorld {
  /** The agent's working folder (the CLI's cwd). */
  work: string;
  env: NodeJS.ProcessEnv;
  cli(args: string[], env?: NodeJS.ProcessEnv, cwd?: string): Promise<CliRun>;
  comments(issue?: number): Promise<HostComment[]>;
  /** Every attachment of every comment of the issue, with its bytes as the forge serves them. */
  storedBytes(issue?: number): Promise<{ comment: number; name: string; bytes: Buffer }[]>;
}

export async function snapshotWorld(): Promise<SnapshotWorld> {
  const w = await forgeWorld();
  const work = mkdtempSync(join(tmpdir(), "checkpost-work-"));
  const env: NodeJS.ProcessEnv = {
    FORGEJO_URL: w.forge.url,
    FORGEJO_TOKEN: w.token,
    FORGEJO_REPOSITORY: "agent/work",
    CHECKPOST_ISSUE: String(w.issue),
    CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "checkpost-cache-")),
  };
  const api = w.api();
  const repo = { owner: "agent", repo: "work" };
  const comments = (issue = w.issue) => api.listComments(repo, issue);
  return {
    ...w,
    work,
    env,
    async cli(args, extra = {}, cwd = work) {
      const out: string[] = [];
      const err: string[] = [];
      const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), readStdin: async () => "", env: { ...env, ...extra }, cwd };
      const code = await runCli(args, io);
      return { code, out: out.join(""), err: err.join(""), json: <T>() => JSON.parse(out.join("")) as T };
    },
    comments,
    async storedBytes(issue = w.issue) {
      const found: { comment: number; name: string; bytes: Buffer }[] = [];
      for (const c of await comments(issue))
        for (const a of await api.listCommentAttachments(repo, c.id)) found.push({ comment: c.id, name: a.name, bytes: await api.downloadAttachment(a.downloadUrl) });
      return found;
    },
  };
}
