import { afterEach, describe, expect, it } from "vitest";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { formatCheckpoint, formatHealth, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { extractResumeIndex, extractResumeIndexRef, DASHBOARD_START, DASHBOARD_END } from "../../src/dashboard/index.ts";
import { projectComments } from "../../src/projection/index.ts";
import { SessionStore, toCommentRecord } from "../../src/session-client/index.ts";
import { IMPLEMENTATION_WORKER_PHASE_MAP } from "../../src/protocol/index.ts";
import { runCli } from "../../src/app/cli.ts";
import { commentFixture } from "../../fixtures/index.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let w: BotWorld;
afterEach(async () => w?.close());

const cp = (phase: string, data: Record<string, unknown> = {}, agent = "implementation-worker", session = "s1") =>
  formatCheckpoint({ agent, session, phase, timestamp: pythonUtcIsoformat(new Date()), data: data as never });

async function post(body: string, token = w.agentToken) {
  return w.api(token).createComment(w.repo, w.issue, body);
}

async function resumeApi(agent: string, session: string) {
  const r = await w.botFetch(`/api/resume?agent=${agent}&session=${session}`);
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

/** The issue body with the dashboard's Markdown escapes of "_" undone, for readable assertions. */
async function issueBody() {
  return (await w.api(w.agentToken).getIssue(w.repo, w.issue)).body.replace(/\\_/g, "_");
}

describe("bot end to end on the embedded Forgejo", () => {
  it("shows a dashboard that appears and updates as agents post seed-format comments", async () => {
    w = await botWorld();
    await post(commentFixture("seed-fenced").replace("sess-42", "s1")); // exactly what a Python agent posts
    await w.settle();
    let body = await issueBody();
    expect(body.startsWith("Notes from a person.\n")).toBe(true);
    expect(body).toContain(DASHBOARD_START);
    expect(body).toContain("##### Session s1");
    expect(body).toMatch(/\| implementation-worker \| subtask_1_complete → phase_2_continue \|/);

    await post(cp("commit_complete", { commit_sha: "abc" }));
    await post(formatHealth({ agent: "implementation-worker", session: "s1", timestamp: pythonUtcIsoformat(new Date()), metrics: { subtasks: 2 } }));
    await w.settle();
    body = await issueBody();
    expect(body).toMatch(/commit_complete → phase_4_pr/);
    expect(body).toMatch(/Active/);
    expect(extractResumeIndex(body)).toBeNull(); // in the index comment the body points to
    expect(extractResumeIndexRef(body)).not.toBeNull();
  });

  it("keeps a person's edit outside the markers when it lands around a dashboard write", async () => {
    w = await botWorld();
    await post(cp("clone_complete"));
    await w.settle();
    // A person edits the body (their text, plus the dashboard as they saw it) while a new checkpoint arrives.
    const seen = await issueBody();
    const human = seen.replace("Notes from a person.\n", "Notes from a person.\nPlease keep this line!\n");
    await Promise.all([w.api(w.agentToken).editIssue(w.repo, w.issue, { body: human }), post(cp("subtask_1_complete"))]);
    await w.settle();
    await w.bot.flushDashboards();
    await w.settle();
    const body = await issueBody();
    expect(body).toContain("Please keep this line!");
    expect(body).toMatch(/subtask_1_complete → phase_2_continue/);
    expect(body.split(DASHBOARD_START)).toHaveLength(2);
    expect(body.split(DASHBOARD_END)).toHaveLength(2);
  });

  it("answers the resume API from memory, the same as a cold `checkpost resume`, with no Forgejo request", async () => {
    w = await botWorld();
    await post(cp("clone_complete", { branch_name: "b" }));
    await post(cp("commit_complete", { branch_name: "b", commit_sha: "abc" }));
    await post(cp("clone_complete", {}, "implementation-worker", "other"));
    await w.settle();
    w.forge.admin.resetStats();
    const logsBefore = w.logs.length;
    const warm = await resumeApi("implementation-worker", "s1");
    // On failure: which request, and what the bot logged meanwhile (CI once saw one, not reproduced).
    const why = () => `${JSON.stringify(w.forge.admin.stats().requests)}\n${w.logs.slice(logsBefore).join("").slice(0, 4000)}`;
    expect(w.forge.admin.stats().totalRequests, why()).toBe(0);
    expect(warm.status).toBe(200);
    expect(warm.body).toMatchObject({ resume_point: "phase_4_pr", phase: "commit_complete", state: { branch_name: "b", commit_sha: "abc" } });

    const out: string[] = [];
    const code = await runCli(["resume", "--agent", "implementation-worker", "--session", "s1"], {
      out: (t) => out.push(t),
      err: () => {},
      readStdin: async () => "",
      cwd: process.cwd(),
      env: { FORGEJO_URL: w.forge.url, FORGEJO_TOKEN: w.agentToken, FORGEJO_REPOSITORY: "agent/work", CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "cp-")) },
    });
    expect(code).toBe(0);
    const cold = JSON.parse(out.join("")) as Record<string, unknown>;
    for (const k of ["resume_point", "phase", "state", "checkpoint", "next_seq", "epoch"]) expect(cold[k]).toEqual(warm.body[k]);
  });

  it("cold resume through the resume index costs a few small requests and agrees with the full read", async () => {
    w = await botWorld();
    for (let i = 0; i < 30; i++) await post(`chatter ${i}`);
    await post(cp("all_subtasks_complete", { completed_subtasks: [1, 2] }));
    await w.settle();
    w.forge.admin.resetStats();
    const store = new SessionStore({ api: w.api(w.agentToken), repo: w.repo, issue: w.issue, selfLogin: "agent" });
    const viaIndex = await store.resume("implementation-worker", "s1", IMPLEMENTATION_WORKER_PHASE_MAP);
    const requests = w.forge.admin.stats().totalRequests;
    expect(requests).toBeLessThanOrEqual(3);
    expect(viaIndex).toMatchObject({ resume_point: "phase_3_commit", phase: "all_subtasks_complete" });
    const full = projectComments((await w.api(w.agentToken).listComments(w.repo, w.issue)).map(toCommentRecord), { trustedAuthors: new Set(["agent", "checkpost-bot"]) });
    expect(full.entries.find((e) => e.session === "s1")?.latest?.commentId).toBe(viaIndex.checkpoint?.commentId);
  });

  it("shows a forged checkpoint by an untrusted user as an anomaly and never resumes from it", async () => {
    w = await botWorld();
    await post(cp("clone_complete", { n: 1 }));
    const forged = await post(cp("pr_created", { pr_number: 666 }), w.malloryToken);
    await w.settle();
    expect((await resumeApi("implementation-worker", "s1")).body).toMatchObject({ phase: "clone_complete", state: { n: 1 } });
    const body = await issueBody();
    expect(body).toMatch(new RegExp(`comment ${forged.id}.*untrusted-author`));
  });

  it("stops resuming from a deleted checkpoint", async () => {
    w = await botWorld();
    await post(cp("clone_complete"));
    const newest = await post(cp("commit_complete"));
    await w.settle();
    expect((await resumeApi("implementation-worker", "s1")).body).toMatchObject({ phase: "commit_complete" });
    await w.api(w.agentToken).deleteComment(w.repo, newest.id);
    await w.settle();
    expect((await resumeApi("implementation-worker", "s1")).body).toMatchObject({ phase: "clone_complete" });
  });

  it("marks an agent that stops signalling Stale, on the dashboard, in the log and with one alert comment", async () => {
    w = await botWorld();
    await post(cp("clone_complete"));
    await w.settle();
    await w.bot.checkLiveness();
    w.advance(2 * 60_000); // past the 1-minute floor
    await w.bot.checkLiveness();
    await w.bot.checkLiveness(); // a second check must not alert again
    await w.settle();
    expect(await issueBody()).toMatch(/Stale/);
    expect(w.logs.some((l) => l.includes('"to":"stale"'))).toBe(true);
    const comments = await w.api(w.agentToken).listComments(w.repo, w.issue);
    expect(comments.filter((c) => c.body.includes("is **Stale**"))).toHaveLength(1);
  });

  it("rejects a delivery with a bad signature and processes nothing", async () => {
    w = await botWorld({}, { webhook: false });
    const payload = JSON.stringify({ action: "created" });
    const r = await fetch(`${w.bot.url}/api/github/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "issue_comment", "x-github-delivery": "1", "x-hub-signature-256": `sha256=${"0".repeat(64)}` },
      body: payload,
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    const metrics = await (await w.botFetch("/metrics")).text();
    expect(metrics).not.toMatch(/checkpost_webhook_deliveries_total\{event="issue_comment",result="applied"\} [1-9]/);
  });

  it("rejects a webhook body over the cap with 413", async () => {
    w = await botWorld({ maxWebhookBytes: 1000 }, { webhook: false });
    const r = await fetch(`${w.bot.url}/api/github/webhooks`, { method: "POST", headers: { "content-type": "application/json", "x-github-event": "issue_comment" }, body: "x".repeat(5000) });
    expect(r.status).toBe(413);
  });

  it("serves health, readiness and Prometheus metrics", async () => {
    w = await botWorld();
    expect((await fetch(`${w.bot.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${w.bot.url}/readyz`)).status).toBe(200);
    await post(cp("clone_complete"));
    await w.settle();
    const text = await (await w.botFetch("/metrics")).text();
    // The agent's checkpoint, and the bot's own index comment (created on its first dashboard write).
    expect(text).toMatch(/checkpost_webhook_deliveries_total\{event="issue_comment",result="applied"\} 2/);
    expect(text).toMatch(/checkpost_dashboard_writes_total\{result="written"\} [1-9]/);
  });
});
