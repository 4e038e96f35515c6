/** Fault knobs seen from a raw fetch client. */
import { afterEach, describe, expect, it } from "vitest";
import { api, asArray, asRecord, seededForge, type Seeded } from "./helpers.ts";

const COMMENTS_POST = "POST /repos/{owner}/{repo}/issues/{index}/comments";

let s: Seeded | undefined;
afterEach(async () => {
  await s?.forge.close();
  s = undefined;
});

async function statusOrError(url: string, init?: RequestInit): Promise<number | "error"> {
  try {
    const r = await fetch(url, init);
    await r.arrayBuffer();
    return r.status;
  } catch {
    return "error";
  }
}

describe("request stats", () => {
  it("count API requests per requester (login, anonymous, invalid) and reset with the rest", async () => {
    s = await seededForge();
    const path = `${s.forge.apiUrl}/repos/alice/widgets`;
    await statusOrError(path, { headers: { Authorization: `token ${s.bob}` } });
    await statusOrError(path, { headers: { Authorization: `token ${s.bob}` } });
    await statusOrError(path);
    expect(await statusOrError(path, { headers: { Authorization: "token no-such-token" } })).toBe(401);
    const { requests, requestsBy } = s.forge.admin.stats();
    expect(requestsBy).toEqual({ bob: { "GET /repos/{owner}/{repo}": 2 }, anonymous: { "GET /repos/{owner}/{repo}": 1 }, invalid: { "GET /repos/{owner}/{repo}": 1 } });
    expect(requests["GET /repos/{owner}/{repo}"]).toBe(4);
    s.forge.admin.resetStats();
    expect(s.forge.admin.stats().requestsBy).toEqual({});
  });
});

describe("fault knobs", () => {
  it("errorRate answers 500/502/503 and counts them", async () => {
    s = await seededForge({ faults: { errorRate: 1 } });
    const statuses = new Set<number | "error">();
    for (let i = 0; i < 12; i++) statuses.add(await statusOrError(`${s.forge.apiUrl}/version`));
    expect([...statuses].every((x) => x === 500 || x === 502 || x === 503)).toBe(true);
    expect(statuses.size).toBeGreaterThan(1);
    const f = s.forge.admin.stats().faults;
    expect(f.error500 + f.error502 + f.error503).toBe(12);
  });

  it("rateLimitRate answers 429 with a configurable Retry-After (0 allowed)", async () => {
    s = await seededForge({ faults: { rateLimitRate: 1 } });
    const r = await fetch(`${s.forge.apiUrl}/version`);
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("1");
    s.forge.admin.setFaults({ rateLimitRate: 1, retryAfterSec: 0 });
    expect((await fetch(`${s.forge.apiUrl}/version`)).headers.get("retry-after")).toBe("0");
    s.forge.admin.resetFaults();
    expect((await fetch(`${s.forge.apiUrl}/version`)).status).toBe(200);
    expect(s.forge.admin.stats().faults.rateLimit).toBe(2);
  });

  it("resetRate destroys the connection without a response", async () => {
    s = await seededForge({ faults: { resetRate: 1 } });
    await expect(fetch(`${s.forge.apiUrl}/version`)).rejects.toThrow();
    expect(s.forge.admin.stats().faults.reset).toBeGreaterThanOrEqual(1);
  });

  it("commitThenDropRate stores the write, then drops the socket; faults can be limited to one route", async () => {
    s = await seededForge();
    const issue = s.forge.admin.createIssue("alice", "widgets", { title: "drop" });
    s.forge.admin.setFaults({ commitThenDropRate: 1, match: { routes: [COMMENTS_POST] } });
    const path = `/repos/alice/widgets/issues/${issue.number}/comments`;
    await expect(
      fetch(`${s.forge.apiUrl}${path}`, {
        method: "POST",
        headers: { Authorization: `token ${s.bob}`, "Content-Type": "application/json" },
        body: JSON.stringify({ body: "stored anyway" }),
      }),
    ).rejects.toThrow();
    // The GET is not matched by the fault filter and sees the comment.
    const list = asArray((await api(s.forge, "GET", path)).json);
    expect(list.map((c) => asRecord(c).body)).toEqual(["stored anyway"]);
    expect(s.forge.admin.stats().faults.commitThenDrop).toBe(1);
    // Reads are never commit-then-dropped even when matched.
    s.forge.admin.setFaults({ commitThenDropRate: 1 });
    expect((await api(s.forge, "GET", path)).status).toBe(200);
  });

  it("latencyMs delays each request", async () => {
    s = await seededForge({ faults: { latencyMs: 250 } });
    const t = Date.now();
    expect((await fetch(`${s.forge.apiUrl}/version`)).status).toBe(200);
    expect(Date.now() - t).toBeGreaterThanOrEqual(240);
  });

  it("bandwidthBytesPerSec makes a large body take longer", async () => {
    s = await seededForge();
    const issue = s.forge.admin.createIssue("alice", "widgets", { title: "big" });
    s.forge.admin.bulkComments(
      "alice",
      "widgets",
      issue.number,
      Array.from({ length: 10 }, () => ({ login: "bob", body: "x".repeat(500) })),
    );
    const url = `${s.forge.apiUrl}/repos/alice/widgets/issues/${issue.number}/comments`;
    let t = Date.now();
    const full = await (await fetch(url)).text();
    const fast = Date.now() - t;
    expect(full.length).toBeGreaterThan(10_000);
    s.forge.admin.setFaults({ bandwidthBytesPerSec: full.length }); // ~1 s for the body
    t = Date.now();
    const slow = await (await fetch(url)).text();
    const took = Date.now() - t;
    expect(slow).toBe(full);
    expect(took).toBeGreaterThanOrEqual(800);
    expect(took).toBeGreaterThan(fast + 500);
  });

  it("the same seed gives the same fault sequence", async () => {
    const run = async (seed: number) => {
      const f = await seededForge({ seed, faults: { errorRate: 0.3, rateLimitRate: 0.3 } });
      try {
        const out: Array<number | "error"> = [];
        for (let i = 0; i < 25; i++) out.push(await statusOrError(`${f.forge.apiUrl}/version`));
        return out;
      } finally {
        await f.forge.close();
      }
    };
    const a = await run(42);
    const b = await run(42);
    const c = await run(7);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(new Set(a).size).toBeGreaterThan(1);
  });

  it("counts requests by route and bytes sent", async () => {
    s = await seededForge();
    await api(s.forge, "GET", "/version");
    await api(s.forge, "GET", "/repos/alice/widgets");
    const st = s.forge.admin.stats();
    expect(st.requests["GET /version"]).toBe(1);
    expect(st.requests["GET /repos/{owner}/{repo}"]).toBe(1);
    expect(st.bytesSent).toBeGreaterThan(100);
  });
});
