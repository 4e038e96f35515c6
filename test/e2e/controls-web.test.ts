/**
 * Dashboard ticks through the embedded forge's web page, as a person makes them (issues 18.6, 19.5):
 * the page names each box by its source offset and the body's content_version, as Forgejo's does;
 * a stale page is refused as Forgejo refuses it; the bot holds its dashboard writes after a
 * person's edit so their next tick on the same page still lands while agents keep saving; and
 * text people add (a hidden task line, a raw <input>) shifts no box onto another.
 */
import { afterEach, describe, expect, it } from "vitest";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import type { BotConfig } from "../../src/bot/bot-config.ts";
import { formatCheckpoint, parseComment, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { parseControlCheckboxes } from "../../src/dashboard/index.ts";
import { sourceIndex } from "../../src/embedded-forge/task-positions.ts";

let w: BotWorld;
afterEach(async () => w?.close());

const cp = (agent: string, phase: string, seq: number) => formatCheckpoint({ agent, session: "s1", phase, timestamp: pythonUtcIsoformat(new Date()), data: { phase }, epoch: 1, seq });

async function world(overrides: Partial<BotConfig> = {}): Promise<void> {
  w = await botWorld(overrides);
  w.forge.admin.addCollaborator("agent", "work", "checkpost-bot", "admin");
  w.forge.admin.createUser("alice");
  w.forge.admin.addCollaborator("agent", "work", "alice", "write");
  w.forge.admin.setPassword("alice", "alice-pass");
  for (const a of ["agent-a", "agent-b"]) await w.api(w.agentToken).createComment(w.repo, w.issue, cp(a, "clone_complete", 1));
  await w.settle();
}

/** Deliveries handled, but no forced dashboard write (w.settle() would flush through the hold). */
async function delivered(): Promise<void> {
  await w.forge.admin.idle();
  await w.bot.idle();
}

function jar() {
  const cookies = new Map<string, string>();
  return {
    take(res: Response) {
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(";");
        const eq = (pair as string).indexOf("=");
        cookies.set((pair as string).slice(0, eq), (pair as string).slice(eq + 1));
      }
    },
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
  };
}
const post = (url: string, form: Record<string, string>, cookie: string) =>
  fetch(url, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie }, body: new URLSearchParams(form).toString() });

/** A signed-in browser on the session issue's page. */
async function browser(login: string, password: string) {
  const j = jar();
  const path = `/agent/work/issues/${w.issue}`;
  const page = await fetch(`${w.forge.url}/user/login?redirect_to=${path}`);
  j.take(page);
  const csrf0 = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  j.take(await post(`${w.forge.url}/user/login`, { _csrf: csrf0, user_name: login, password, redirect_to: path }, j.header()));
  let html = "";
  const b = {
    /** Load (or reload) the page, as the browser does after each tick. */
    async load() {
      html = await (await fetch(`${w.forge.url}${path}`, { headers: { cookie: j.header() } })).text();
    },
    /** The rendered boxes: their source offsets, and what the page's form would send. */
    boxes(): number[] {
      return [...html.matchAll(/data-source-position="(\d+)"/g)].map((m) => Number(m[1]));
    },
    inputs(): number {
      return [...html.matchAll(/<input type="checkbox"/g)].length;
    },
    /** Tick the box at `position` as the page's script submits it (this page's content_version). */
    async tick(position: number, checked = true): Promise<Response> {
      const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
      const version = /data-content-version="(\d+)"/.exec(html)?.[1] ?? "";
      return post(`${w.forge.url}${path}/tasks`, { _csrf: csrf, position: String(position), checked: String(checked), content_version: version }, j.header());
    },
  };
  await b.load();
  return b;
}

/** The source offset of the pause box of `agent` (read from the body, by the box's own key). */
async function pauseBoxOf(agent: string, positions: number[]): Promise<number> {
  const body = (await w.api(w.agentToken).getIssue(w.repo, w.issue)).body;
  for (const p of positions) {
    const i = sourceIndex(body, p);
    const line = body.slice(body.lastIndexOf("\n", i) + 1, body.indexOf("\n", i) < 0 ? undefined : body.indexOf("\n", i));
    const box = parseControlCheckboxes(`<!-- checkpost:dashboard:start -->\n${line}\n<!-- checkpost:dashboard:end -->`)[0];
    if (box?.action === "pause" && box.agent === agent) return p;
  }
  throw new Error(`no pause box of ${agent} on the page`);
}

async function pauses(): Promise<{ agent: string; by: string | undefined }[]> {
  return (await w.api(w.agentToken).listComments(w.repo, w.issue))
    .map((c) => parseComment(c.body))
    .flatMap((p) => (p.kind === "control" && p.control.action === "pause" ? [{ agent: p.control.agent, by: p.control.by }] : []));
}

describe("dashboard ticks from the web page", () => {
  it("a page older than the body's last change is refused, as Forgejo refuses it (content_version)", async () => {
    await world();
    const alice = await browser("alice", "alice-pass");
    const a = await pauseBoxOf("agent-a", alice.boxes());
    // The bot rewrites the dashboard after the page was loaded (an agent saved).
    await w.api(w.agentToken).createComment(w.repo, w.issue, cp("agent-a", "commit_complete", 2));
    await w.settle();
    const r = await alice.tick(a);
    expect(r.status).toBe(400);
    expect(await r.text()).toMatch(/already been changed/);
    expect(await pauses()).toEqual([]);
  });

  it("while agents keep saving, a person's second tick on the same page still lands (the bot holds its writes)", async () => {
    await world();
    const alice = await browser("alice", "alice-pass");
    expect((await alice.tick(await pauseBoxOf("agent-a", alice.boxes()))).status).toBe(303);
    await alice.load(); // the browser follows the redirect
    await delivered(); // the bot records the pause
    // The fleet is busy: saves the bot would show at once.
    for (let seq = 2; seq <= 4; seq++) await w.api(w.agentToken).createComment(w.repo, w.issue, cp("agent-b", `phase_${seq}`, seq));
    await delivered();
    await new Promise((r) => setImmediate(r));
    await delivered();
    const second = await alice.tick(await pauseBoxOf("agent-b", alice.boxes()));
    expect(second.status).toBe(303);
    await delivered();
    expect((await pauses()).map((p) => [p.agent, p.by])).toEqual([
      ["agent-a", "alice"],
      ["agent-b", "alice"],
    ]);
    // The saves are shown once the hold is over (flush: what the timer does when it ends).
    await w.settle();
    expect((await w.api(w.agentToken).getIssue(w.repo, w.issue)).body).toContain("phase_4");
  });

  it("without the hold, the same busy fleet makes that second tick stale (the test above can fail)", async () => {
    await world({ dashboardHoldMs: 0 });
    const alice = await browser("alice", "alice-pass");
    expect((await alice.tick(await pauseBoxOf("agent-a", alice.boxes()))).status).toBe(303);
    await alice.load();
    await delivered();
    for (let seq = 2; seq <= 4; seq++) await w.api(w.agentToken).createComment(w.repo, w.issue, cp("agent-b", `phase_${seq}`, seq));
    await w.settle();
    expect((await alice.tick(await pauseBoxOf("agent-b", alice.boxes()))).status).toBe(400);
  });

  it("a hidden task line and a raw <input> in people's text shift no box: the tick acts on the box the person saw", async () => {
    await world();
    const body = (await w.api(w.agentToken).getIssue(w.repo, w.issue)).body;
    await w.api(w.agentToken).editIssue(w.repo, w.issue, { body: `<!--\n- [ ] invisible\n-->\n<input type="checkbox" checked> <ul><li><input type=checkbox></li></ul>\n\n${body}` });
    await w.settle();
    const alice = await browser("alice", "alice-pass");
    // Only the boxes the renderer drew are inputs, and each carries its source offset.
    expect(alice.inputs()).toBe(alice.boxes().length);
    const b = await pauseBoxOf("agent-b", alice.boxes());
    expect((await alice.tick(b)).status).toBe(303);
    await delivered();
    expect(await pauses()).toEqual([{ agent: "agent-b", by: "alice" }]);
  });
});
