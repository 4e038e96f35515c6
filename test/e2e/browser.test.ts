/**
 * The control room in a real browser: Debian's Chromium (headless) driven by playwright-core against
 * the embedded Forgejo's web view and the bot. Saves the screenshots README shows (docs/img/).
 * Needs /usr/bin/chromium (or CHECKPOST_CHROMIUM): skipped, visibly, when missing, except under
 * CI (CHECKPOST_CI=1), where .ci/run installs it and a missing browser fails.
 */
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { formatCheckpoint, parseComment, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { runCli } from "../../src/app/cli.ts";

const CHROMIUM = process.env.CHECKPOST_CHROMIUM ?? "/usr/bin/chromium";
const missing = !existsSync(CHROMIUM);
if (missing && process.env.CHECKPOST_CI === "1") throw new Error(`${CHROMIUM} not found: CI must install chromium (apt-get install -y chromium)`);
if (missing) console.warn(`[checkpost tests] skipping the browser tests: ${CHROMIUM} not found (apt-get install -y chromium)`);
const IMG = fileURLToPath(new URL("../../docs/img/", import.meta.url));

let w: BotWorld;
let browser: Browser;
const A = "implementation-worker";
const cp = (agent: string, session: string, phase: string, o: { epoch?: number; seq?: number } = {}) =>
  formatCheckpoint({ agent, session, phase, timestamp: pythonUtcIsoformat(new Date()), data: { phase }, ...o });

async function controls() {
  return (await w.api(w.agentToken).listComments(w.repo, w.issue)).map((c) => parseComment(c.body)).filter((p) => p.kind === "control");
}

async function signIn(page: Page, login: string, password: string, issuePath: string) {
  await page.goto(`${w.forge.url}/user/login?redirect_to=${encodeURIComponent(issuePath)}`);
  await page.fill("input[name=user_name]", login);
  await page.fill("input[name=password]", password);
  await Promise.all([page.waitForURL(`${w.forge.url}${issuePath}`), page.click("button[type=submit]")]);
  await page.waitForSelector(`text=Signed in as ${login}`);
}

/** Open the agent's <details> and tick (or untick) the box whose label contains `label`; wait for the page's form post. */
async function tick(page: Page, summary: string, label: string) {
  const details = page.locator(`.issue-body details:has(> summary:has-text("${summary}"))`);
  if (!(await details.evaluate((d) => (d as unknown as { open: boolean }).open))) await details.locator("> summary").click();
  const box = boxIn(page, summary, label);
  await box.waitFor({ state: "visible" });
  expect(await box.isEnabled()).toBe(true);
  await Promise.all([page.waitForNavigation(), box.click()]);
}

/** The checkbox labelled `label` inside the <details> whose summary contains `summary`. */
function boxIn(page: Page, summary: string, label: string) {
  return page.locator(`.issue-body details:has(> summary:has-text("${summary}")) li:has-text("${label}") > input[type=checkbox]`);
}

/** The issue body (the dashboard) as a person sees it, saved for README. */
async function shot(page: Page, name: string) {
  await page.locator(".issue-body").screenshot({ path: join(IMG, `${name}.png`) });
}

async function reloadAfterBot(page: Page) {
  await w.settle();
  await page.reload();
}

describe.skipIf(missing)("the control room in Chromium", () => {
  beforeAll(async () => {
    // mallory opened the session issue (so Forgejo lets her edit its body) but may not write to the repo.
    w = await botWorld({}, { issueAuthor: "mallory" });
    const a = w.forge.admin;
    a.addCollaborator("agent", "work", "checkpost-bot", "admin");
    a.createUser("alice");
    a.addCollaborator("agent", "work", "alice", "write");
    a.setPassword("alice", "alice-password");
    a.setPassword("mallory", "mallory-password");
    // A stale agent: its only checkpoint is two hours old.
    a.bulkComments("agent", "work", w.issue, [{ login: "agent", body: cp("pr-self-reviewer", "s2", "review_posted"), createdAt: new Date(Date.now() - 2 * 3600_000) }]);
    for (const [phase, seq] of [
      ["clone_complete", 1],
      ["subtask_1_complete", 2],
      ["commit_complete", 3],
    ] as const)
      await w.api(w.agentToken).createComment(w.repo, w.issue, cp(A, "s1", phase, { epoch: 1, seq }));
    await w.bot.reconcileAll();
    await w.bot.checkLiveness();
    await w.settle();
    mkdirSync(IMG, { recursive: true });
    // playwright-core gives every launch a fresh temporary profile (its own --user-data-dir).
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await w?.close();
  });

  it("shows the dashboard table, hides its metadata and draws the Mermaid timeline", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    // Every request the page makes is answered (the browser asks for /favicon.ico by itself: not ours).
    page.on("response", (r) => (r.status() >= 400 && !r.url().endsWith("/favicon.ico") ? errors.push(`${r.status()} ${r.url()}`) : undefined));
    page.on("console", (m) => (m.type() === "error" && !m.text().includes("404") ? errors.push(m.text()) : undefined));
    await page.goto(`${w.forge.url}/agent/work/issues/${w.issue}`);
    await page.waitForSelector(".issue-body table th:has-text('Phase → resume point')");
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText (rendered text with cell breaks), not the DOM's
    const text = await page.innerText(".issue-body");
    expect(text).toContain("Needs attention");
    expect(text).toMatch(/pr-self-reviewer \/ s2\s+🟡 stale|pr-self-reviewer \/ s2\s+🔴 silent/);
    expect(text).not.toContain("checkpost:resume-index");
    expect(text).not.toContain("checkpost:control");
    await page.click(".issue-body summary:has-text('Timeline')");
    await page.waitForSelector(".issue-body div.mermaid svg", { timeout: 30_000 });
    expect(await page.locator(".issue-body div.mermaid svg rect").count()).toBeGreaterThan(2);
    await shot(page, "dashboard-stale-agent");
    expect(errors, errors.join("\n")).toEqual([]);
    await page.close();
  }, 60_000);

  it("a writer signs in and ticks pause: the bot records [CONTROL], `checkpost resume` returns the pause directive", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
    const issuePath = `/agent/work/issues/${w.issue}`;
    await signIn(page, "alice", "alice-password", issuePath);
    await page.click(`.issue-body summary:has-text("${A} / s1")`);
    await shot(page, "dashboard-before-pause");
    await page.click(`.issue-body summary:has-text("${A} / s1")`); // closed again: tick() opens it
    await tick(page, `${A} / s1`, "Pause (untick to resume)");
    await reloadAfterBot(page);
    expect(await controls()).toMatchObject([{ control: { action: "pause", agent: A, session: "s1", by: "alice" } }]);
    await page.waitForSelector(".comment:has-text('[CONTROL] implementation-worker')");
    await page.waitForSelector(".issue-body :text('⏸️ paused by alice')");
    await page.click(`.issue-body summary:has-text("${A} / s1")`);
    expect(await boxIn(page, `${A} / s1`, "Pause (untick to resume)").isChecked()).toBe(true);
    await shot(page, "dashboard-after-pause");

    const out: string[] = [];
    const env = {
      FORGEJO_URL: w.forge.url,
      FORGEJO_TOKEN: w.agentToken,
      FORGEJO_REPOSITORY: "agent/work",
      CHECKPOST_TRUSTED_AUTHORS: "checkpost-bot",
      CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "cp-")),
    };
    expect(await runCli(["resume", "--agent", A, "--session", "s1"], { out: (t) => out.push(t), err: () => {}, readStdin: async () => "", cwd: process.cwd(), env })).toBe(0);
    expect(JSON.parse(out.join(""))).toMatchObject({ phase: "commit_complete", directive: { kind: "pause", by: "alice" } });

    // Time travel: rewind to the first checkpoint from its box in the history.
    await tick(page, `${A} / s1`, "Rewind to clone_complete");
    await reloadAfterBot(page);
    expect((await controls()).map((p) => p.kind === "control" && p.control.action)).toEqual(["pause", "rewind"]);
    await page.click(`.issue-body summary:has-text("${A} / s1")`);
    await shot(page, "dashboard-rewind");
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText, not the DOM's
    expect(await page.innerText(".issue-body")).toMatch(/implementation-worker\s+clone_complete → phase_2_subtasks/);
    await page.close();
  }, 90_000);

  it("a non-writer's tick is reverted with a short reply, and nothing is recorded", async () => {
    const before = (await controls()).length;
    const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
    const issuePath = `/agent/work/issues/${w.issue}`;
    await signIn(page, "mallory", "mallory-password", issuePath);
    await tick(page, `${A} / s1`, "Release for take-over");
    await reloadAfterBot(page);
    expect(await controls()).toHaveLength(before);
    await page.waitForSelector(".comment:has-text('change was reverted')");
    await page.click(`.issue-body summary:has-text("${A} / s1")`);
    expect(await boxIn(page, `${A} / s1`, "Release for take-over").isChecked()).toBe(false);
    // She can still comment from the page, as in Forgejo.
    await page.fill("#comment-form textarea", "Looks stuck to me.");
    await Promise.all([page.waitForNavigation(), page.click("#comment-form button[type=submit]")]);
    await page.waitForSelector(".comment:has-text('Looks stuck to me.')");
    await page.close();
  }, 60_000);
});
