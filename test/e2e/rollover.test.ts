import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { IMPLEMENTATION_WORKER_PHASE_MAP, formatCheckpoint, formatHealth, parseComment, pythonUtcIsoformat, signCheckpoint } from "../../src/protocol/index.ts";
import type { JsonObject } from "../../src/protocol/index.ts";
import { SessionStore } from "../../src/session-client/index.ts";
import { continuedFrom, continuedIn } from "../../src/chain/chain-links.ts";
import { botWorld } from "../helpers/bot-world.ts";
import { runCli } from "../../src/app/cli.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BotWorld } from "../helpers/bot-world.ts";
import { runSeedParser, seedFunction } from "../helpers/seed-python.ts";
import { describeWithPython3 } from "../helpers/seed-python.ts";

const KEY = "a-signing-key-of-some-length";
let w: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const signed = (phase: string, session: string, data: JsonObject, seq: number) => {
  const cp = { agent: "implementation-worker", version: "1.0", session, phase, timestamp: pythonUtcIsoformat(new Date()), data, seq, epoch: 1 };
  return formatCheckpoint({ ...cp, signature: signCheckpoint(cp, KEY) });
};
const health = (session: string, n: number) => formatHealth({ agent: "implementation-worker", session, timestamp: pythonUtcIsoformat(new Date()), metrics: { n } });

/** The seed's own find_session_state_issue and resume_agent_work, run in python3 against the forge. */
async function seedResume(world: BotWorld, session: string): Promise<{ issue: number; resume: [JsonObject | null, string] }> {
  const program = [
    "import json, sys, urllib.request, urllib.parse",
    "from datetime import datetime, timedelta",
    "API, TOKEN = sys.argv[1], sys.argv[2]",
    "def _get(path, **q):",
    "    url = API + path + '?' + urllib.parse.urlencode({k: v for k, v in q.items() if v is not None})",
    "    return json.load(urllib.request.urlopen(urllib.request.Request(url, headers={'Authorization': 'token ' + TOKEN})))",
    "def forgejo_list_repo_issues(owner, repo, state=None, labels=None):",
    "    return _get(f'/repos/{owner}/{repo}/issues', state=state, labels=labels, type='issues')",
    "def forgejo_list_issue_comments(owner, repo, index, since=None):",
    "    return _get(f'/repos/{owner}/{repo}/issues/{index}/comments', since=since)",
    'SESSION_STATE_TITLE_PATTERN = "[Automated] CleverAgents Build Session"',
    seedFunction("find_session_state_issue"),
    seedFunction("parse_checkpoint_comment"),
    seedFunction("load_latest_checkpoint"),
    seedFunction("resume_agent_work"),
    `issue = find_session_state_issue("agent", "work")`,
    `data, phase = resume_agent_work("agent", "work", "implementation-worker", ${JSON.stringify(session)})`,
    "print(json.dumps({'issue': issue, 'resume': [data, phase]}))",
  ].join("\n");
  // Asynchronously: the forge answering python runs in this process.
  const { stdout: out } = await promisify(execFile)("python3", ["-W", "ignore", "-c", program, `${world.forge.url}/api/v1`, world.agentToken], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop() as string) as { issue: number; resume: [JsonObject | null, string] };
}

async function rolledWorld() {
  // 12 agent comments and the bot's index comment: the rollover comes after the last agent comment.
  const world = (w = await botWorld({ rolloverAt: 13, signingKey: KEY }));
  const api = world.api(world.agentToken);
  const posted: Record<string, string> = {};
  for (let i = 1; i <= 4; i++) {
    for (const s of ["s1", "s2"]) await api.createComment(world.repo, world.issue, (posted[`${s}/cp`] = signed(`subtask_${i}_complete`, s, { i }, i)));
    await api.createComment(world.repo, world.issue, (posted["s1/health"] = health("s1", i)));
  }
  // An untrusted author's checkpoint must not be carried.
  await world.api(world.malloryToken).createComment(world.repo, world.issue, signed("evil", "s1", { evil: true }, 99));
  await world.settle();
  const t = world.bot.tracker(world.repo, world.issue);
  await t?.maintained();
  await world.settle();
  return { world, api, posted };
}

describe("rollover (Continue-As-New)", () => {
  it("opens a successor with the same title and label, carries each entry's newest checkpoint and health, links both ways, closes the old one", async () => {
    const { world, api, posted } = await rolledWorld();
    const old = await api.getIssue(world.repo, world.issue);
    expect(old.state).toBe("closed");
    const oldComments = await api.listComments(world.repo, world.issue);
    const forward = oldComments.map((c) => continuedIn(c.body)).find((n) => n !== null);
    expect(forward).toBeGreaterThan(world.issue);
    const next = await api.getIssue(world.repo, forward as number);
    expect(next.state).toBe("open");
    expect(next.title).toBe(old.title);
    expect(next.labels.map((l) => l.name)).toEqual(old.labels.map((l) => l.name));
    expect(continuedFrom(next.body)).toBe(world.issue);
    // The successor's dashboard links back; the old one's says where it continues.
    await world.bot.flushDashboards();
    expect((await api.getIssue(world.repo, next.number)).body).toMatch(new RegExp(`\\*\\*Retention:\\*\\* \\d+ of 13 comments before this issue rolls over to a new one · continues #${world.issue}`));
    expect((await api.getIssue(world.repo, world.issue)).body).toContain(`continued in #${next.number}`);

    const carried = (await api.listComments(world.repo, next.number)).filter((c) => c.body.includes("carried over by checkpost"));
    // s1: checkpoint + health; s2: checkpoint. Mallory's is not carried.
    expect(carried).toHaveLength(3);
    for (const k of ["s1/cp", "s2/cp", "s1/health"]) {
      const original = posted[k] as string;
      const copy = carried.find((c) => c.body.startsWith(original));
      expect(copy, k).toBeDefined();
      // Additive only: the original bytes, then one provenance line naming the old issue.
      expect(copy?.body.slice(original.length)).toMatch(new RegExp(`^\\n\\n↪ carried over by checkpost from #${world.issue} \\(comment \\d+\\)$`));
      expect(parseComment(copy?.body)).toEqual(parseComment(original));
    }
    expect(carried.some((c) => c.body.includes("evil"))).toBe(false);

    // checkpost finds the successor by title+label, and its signatures still verify there.
    const store = new SessionStore({ api: world.api(world.agentToken), repo: world.repo, title: old.title, label: "Type/Automation", trustedAuthors: ["agent", "checkpost-bot"], signingKey: KEY });
    expect(await store.issueNumber()).toBe(next.number);
    const resumed = await store.resume("implementation-worker", "s2", IMPLEMENTATION_WORKER_PHASE_MAP);
    expect(resumed).toMatchObject({ phase: "subtask_4_complete", state: { i: 4 } });
    const succ = world.bot.tracker(world.repo, next.number);
    expect(succ?.projection.snapshot().anomalies.filter((a) => a.kind === "bad-signature" || a.kind === "unsigned")).toEqual([]);
    expect(succ?.projection.latest("implementation-worker", "s1")?.phase).toBe("subtask_4_complete");
    expect(succ?.projection.snapshot().entries.find((e) => e.session === "s1")?.health?.metrics).toEqual({ n: 4 });
  });

  it("carries a save that raced the rollover (posted on the old issue after the carry), once", async () => {
    const { world, api } = await rolledWorld();
    const successor = (await world.bot.store.issueMeta(`agent/work#${world.issue}`)).successor as number;
    const late = signed("subtask_5_complete", "s1", { i: 5 }, 5);
    await api.createComment(world.repo, world.issue, late); // an agent that looked the issue up before the rollover
    await world.settle();
    await world.bot.tracker(world.repo, world.issue)?.maintained();
    await world.settle();
    await world.bot.tracker(world.repo, world.issue)?.maintained(); // a second pass carries nothing twice
    const copies = (await api.listComments(world.repo, successor)).filter((c) => c.body.startsWith(late));
    expect(copies).toHaveLength(1);
    const store = new SessionStore({ api, repo: world.repo, title: "[Automated] CleverAgents Build Session", label: "Type/Automation", trustedAuthors: ["agent", "checkpost-bot"], signingKey: KEY });
    expect(await store.resume("implementation-worker", "s1", IMPLEMENTATION_WORKER_PHASE_MAP)).toMatchObject({ phase: "subtask_5_complete", state: { i: 5 } });
  });
});

describe("chain following after a rollover", () => {
  it("`checkpost history` lists checkpoints of every issue in the chain once; `latest --all-issues` finds the newest", async () => {
    const { world, api } = await rolledWorld();
    const successor = (await world.bot.store.issueMeta(`agent/work#${world.issue}`)).successor as number;
    await api.createComment(world.repo, successor, signed("subtask_5_complete", "s1", { i: 5 }, 5));
    const run = async (args: string[]) => {
      const out: string[] = [];
      const io = {
        out: (t: string) => out.push(t),
        err: (t: string) => out.push(`ERR ${t}`),
        readStdin: async () => "",
        env: {
          FORGEJO_URL: world.forge.url,
          FORGEJO_TOKEN: world.agentToken,
          FORGEJO_REPOSITORY: "agent/work",
          CHECKPOST_TRUSTED_AUTHORS: "checkpost-bot",
          CHECKPOST_SIGNING_KEY: KEY,
          CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "checkpost-cache-")),
        },
        cwd: process.cwd(),
      };
      expect(await runCli(args, io), out.join("")).toBe(0);
      return out.join("");
    };
    const lines = (await run(["history", "--agent", "implementation-worker", "--session", "s1"]))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { issue: number; phase: string; trusted: boolean; author: string });
    // 4 on the old issue (mallory's untrusted one too) + 1 on the successor; the carried copy is not listed again.
    expect(lines.map((l) => [l.issue, l.phase, l.trusted])).toEqual([
      [world.issue, "subtask_1_complete", true],
      [world.issue, "subtask_2_complete", true],
      [world.issue, "subtask_3_complete", true],
      [world.issue, "subtask_4_complete", true],
      [world.issue, "evil", false],
      [successor, "subtask_5_complete", true],
    ]);
    const latest = JSON.parse(await run(["latest", "--all-issues", "--agent", "implementation-worker", "--session", "s2"])) as { phase: string; issue: number };
    // The carried copy is the newest comment holding it (same content, on the successor).
    expect(latest).toMatchObject({ phase: "subtask_4_complete", issue: successor, data: { i: 4 } });
  });
});

describeWithPython3("the seed's agents across a rollover", () => {
  it("find the successor by title+label and resume from the carried checkpoint, with no change to their code", async () => {
    const { world, api, posted } = await rolledWorld();
    const seed = await seedResume(world, "s2");
    const successor = (await world.bot.store.issueMeta(`agent/work#${world.issue}`)).successor;
    expect(seed.issue).toBe(successor);
    expect(seed.resume).toEqual([{ i: 4 }, "subtask_4_complete"]);
    // The seed's parser reads a carried body exactly as it reads the original.
    const carried = (await api.listComments(world.repo, successor as number)).filter((c) => c.body.includes("carried over"));
    const originals = carried.map((c) => Object.values(posted).find((p) => c.body.startsWith(p)) as string);
    expect(runSeedParser(carried.map((c) => c.body))).toEqual(runSeedParser(originals));
  });
});
