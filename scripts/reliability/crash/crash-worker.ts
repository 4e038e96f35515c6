/**
 * A real implementation-worker process for the crash suite: resume, then do
 * each remaining step (simulated work), append it to the work log, checkpoint.
 * Configured by env; reports progress as JSON lines on stdout.
 */
import { appendFileSync } from "node:fs";
import { ForgejoApi, ForgejoClient } from "../../../src/forgejo-client/index.ts";
import { FRESH_START, IMPLEMENTATION_WORKER_PHASE_MAP } from "../../../src/protocol/index.ts";
import type { JsonObject } from "../../../src/protocol/index.ts";
import { SessionStore } from "../../../src/session-client/index.ts";
import { STEPS, WORKER_AGENT } from "./steps.ts";
import type { WorkerEvent } from "./steps.ts";

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`crash-worker: ${name} is not set`);
  return v;
};
const emit = (ev: WorkerEvent) => process.stdout.write(`${JSON.stringify(ev)}\n`);

const incarnation = Number(env("CRASH_INCARNATION"));
const session = env("CRASH_SESSION");
const worklog = env("CRASH_WORKLOG");
const stepMs = Number(process.env["CRASH_STEP_MS"] ?? "10");
const [owner, repo] = env("FORGEJO_REPOSITORY").split("/") as [string, string];

const api = new ForgejoApi(new ForgejoClient({ url: env("FORGEJO_URL"), token: env("FORGEJO_TOKEN"), retries: 6, minRetryDelayMs: 5, maxRetryDelayMs: 100 }));
const store = new SessionStore({ api, repo: { owner, repo }, issue: Number(env("CHECKPOST_ISSUE")), selfLogin: env("CRASH_LOGIN") });

const r = await store.resume(WORKER_AGENT, session, IMPLEMENTATION_WORKER_PHASE_MAP);
emit({ e: "resumed", incarnation, phase: r.phase, resume_point: r.resume_point, commentId: r.checkpoint?.commentId ?? null, epoch: r.epoch });
const state = (r.state ?? {}) as JsonObject;
const completed = Array.isArray(state["completed_subtasks"]) ? [...(state["completed_subtasks"] as number[])] : [];
let index = r.phase === FRESH_START ? 0 : STEPS.indexOf(r.phase as (typeof STEPS)[number]) + 1;

for (; index < STEPS.length; index++) {
  const step = STEPS[index] as string;
  // The step's work (a clone, an edit, a commit…): simulated, a few ms.
  await new Promise((resolve) => setTimeout(resolve, stepMs * (0.5 + Math.random())));
  appendFileSync(worklog, `${step} ${incarnation}\n`);
  const sub = /^subtask_(\d+)_complete$/.exec(step);
  if (sub) completed.push(Number(sub[1]));
  const data: JsonObject = {
    issue_number: 42,
    branch_name: `feat/${session}`,
    working_dir: `/tmp/work/${session}`,
    completed_subtasks: completed,
    incarnation,
    step_index: index,
    ...(index >= STEPS.indexOf("commit_complete") ? { commit_sha: `sha-${session}` } : {}),
    ...(step === "pr_created" ? { pr_number: 7 } : {}),
  };
  emit({ e: "saving", step });
  const saved = await store.save({ agent: WORKER_AGENT, session, phase: step, data });
  emit({ e: "saved", step, commentId: saved.comment_id, epoch: saved.checkpoint.epoch ?? 0 });
}
emit({ e: "done" });
