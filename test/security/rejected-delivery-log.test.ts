import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { botWorld, SECRET } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";

// Issue 9, attack 6: anyone who can reach the webhook port grew the bot's log by ~3 MB per rejected
// 1 MB delivery (the unverified payload was logged in full, several times). A rejected delivery must
// cost one bounded log line (delivery id, size, reason) and never echo the payload.

let w: BotWorld;
afterEach(async () => w?.close());

const MARK = "PAYLOAD-CANARY";
const payload = (bytes: number) => JSON.stringify({ action: "created", pad: `${MARK}${"x".repeat(bytes)}` });
const logBytes = () => w.logs.reduce((n, l) => n + Buffer.byteLength(l), 0);

async function deliver(body: string, headers: Record<string, string>) {
  return fetch(`${w.bot.url}/api/github/webhooks`, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", "x-github-event": "issue_comment", "x-github-delivery": "d-1", ...headers },
  });
}

describe("a rejected delivery costs one bounded log line", () => {
  it.each([
    ["a bad signature", (b: string) => ({ "x-hub-signature-256": `sha256=${"0".repeat(64)}` })],
    ["no signature", (_b: string) => ({})],
    ["a signature over other bytes", (b: string) => ({ "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(`${b} `).digest("hex")}` })],
  ])("%s: 1 MB payload → no payload in the log, one line under 1 KiB", async (_name, sign) => {
    w = await botWorld({ maxWebhookBytes: 2 * 1024 * 1024 });
    await w.settle();
    const before = w.logs.length;
    const bytesBefore = logBytes();
    const body = payload(1024 * 1024);
    const r = await deliver(body, sign(body));
    expect(r.status).toBeGreaterThanOrEqual(400);
    await w.bot.idle();
    const lines = w.logs.slice(before);
    expect(lines.join("")).not.toContain(MARK);
    expect(lines).toHaveLength(1);
    expect(logBytes() - bytesBefore).toBeLessThan(1024);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ delivery: "d-1", bytes: Buffer.byteLength(body), reason: expect.any(String) });
  });

  it("an over-limit body: one line with the declared size, the event header not used as a metric label", async () => {
    w = await botWorld({ maxWebhookBytes: 64 * 1024 });
    const before = w.logs.length;
    const body = payload(200 * 1024);
    const r = await deliver(body, { "x-github-event": `evil-${"y".repeat(300)}` });
    expect(r.status).toBe(413);
    const lines = w.logs.slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(MARK);
    expect(lines[0]).not.toContain("yyyy");
    const m = await w.bot.metrics.deliveries.get();
    expect(m.values.map((v) => v.labels.event)).toEqual(["other"]);
  });
});
