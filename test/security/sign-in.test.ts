/**
 * Issue 19.6: the embedded forge's web sign-in. scrypt runs off the event loop, an unknown user costs
 * the same scrypt as a known one, and attempts are limited per client IP and per account (429 with
 * Retry-After). The storm figure (the bot's /healthz p95 under 20 concurrent wrong sign-ins in one
 * process) is measured by `npm run reliability:trust`, not here.
 */
import { afterEach, describe, expect, it } from "vitest";
import { hashPassword, scryptAsync, verifyPassword } from "../../src/embedded-forge/password.ts";
import { SignInLimiter } from "../../src/embedded-forge/sign-in-limit.ts";
import { seededForge, type Seeded } from "../forge/helpers.ts";

let s: Seeded | undefined;
afterEach(async () => {
  await s?.forge.close();
  s = undefined;
});

async function attempt(base: string, user: string, password: string) {
  const page = await fetch(`${base}/user/login`);
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  const res = await fetch(`${base}/user/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ _csrf: csrf, user_name: user, password }).toString(),
  });
  await res.arrayBuffer();
  return res;
}

describe("web sign-in: scrypt off the event loop, one cost for every name", () => {
  it("lets the event loop run while passwords are checked", async () => {
    const stored = hashPassword("right");
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    // Before the fix scryptSync held the loop for every check: not one tick could land meanwhile.
    await Promise.all(Array.from({ length: 8 }, () => verifyPassword("wrong", stored)));
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
    expect(await verifyPassword("right", stored)).toBe(true);
  });

  it("runs the same key derivation for an unknown user, a user without a password and a known one", async () => {
    const calls: number[] = [];
    const counting = (password: string, salt: Buffer) => {
      calls.push(salt.length);
      return scryptAsync(password, salt);
    };
    expect(await verifyPassword("x", hashPassword("y"), counting)).toBe(false);
    expect(await verifyPassword("x", undefined, counting)).toBe(false);
    expect(await verifyPassword("x", "not-a-hash", counting)).toBe(false);
    expect(calls).toEqual([16, 16, 16]);
  });
});

describe("web sign-in rate limit", () => {
  it("answers 429 with Retry-After past the per-account limit, known or unknown, and lets the right password through before it", async () => {
    let now = Date.parse("2026-12-01T10:00:00Z");
    s = await seededForge({ port: 0, clock: () => now, signInLimits: { perIp: 100, perAccount: 3, windowMs: 60_000 } });
    s.forge.admin.setPassword("bob", "bob-pass");
    expect((await attempt(s.forge.url, "bob", "bob-pass")).status).toBe(303); // a right one does not count
    for (let i = 0; i < 3; i++) expect((await attempt(s.forge.url, "bob", "nope")).status).toBe(200);
    const limited = await attempt(s.forge.url, "bob", "bob-pass");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBe(60);
    // An unknown name is limited the same way, so the limit does not tell which logins exist.
    for (let i = 0; i < 3; i++) expect((await attempt(s.forge.url, "nobody", "nope")).status).toBe(200);
    expect((await attempt(s.forge.url, "nobody", "nope")).status).toBe(429);
    // Another account from the same address is not affected by bob's limit.
    s.forge.admin.setPassword("alice", "alice-pass");
    expect((await attempt(s.forge.url, "alice", "alice-pass")).status).toBe(303);
    now += 30_000;
    expect(Number((await attempt(s.forge.url, "bob", "nope")).headers.get("retry-after"))).toBe(30);
    now += 30_001;
    expect((await attempt(s.forge.url, "bob", "bob-pass")).status).toBe(303);
  });

  it("limits one address across accounts, and cuts a concurrent storm off while it is in flight", async () => {
    s = await seededForge({ port: 0, signInLimits: { perIp: 10, perAccount: 100, windowMs: 60_000 } });
    const storm = await Promise.all(Array.from({ length: 20 }, (_, i) => attempt(s?.forge.url ?? "", `user${i}`, "nope")));
    const statuses = storm.map((r) => r.status).sort();
    expect(statuses.filter((x) => x === 200)).toHaveLength(10);
    expect(statuses.filter((x) => x === 429)).toHaveLength(10);
    expect(storm.find((r) => r.status === 429)?.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
  });

  it("counts a slot given back only once", () => {
    let now = 0;
    const l = new SignInLimiter({ perIp: 2, perAccount: 10, windowMs: 1000 }, () => now);
    const a = l.take("1.2.3.4", "a");
    expect(a.ok).toBe(true);
    if (a.ok) {
      a.release();
      a.release();
    }
    expect(l.take("1.2.3.4", "b").ok).toBe(true);
    expect(l.take("1.2.3.4", "c").ok).toBe(true);
    expect(l.take("1.2.3.4", "d")).toEqual({ ok: false, retryAfterSec: 1 });
    now = 1000;
    expect(l.take("1.2.3.4", "e").ok).toBe(true);
  });
});
