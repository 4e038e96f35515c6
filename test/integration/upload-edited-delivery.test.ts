/**
 * After an attachment upload Forgejo sends `issues` `edited` with the body unchanged
 * (routers/api/v1/repo/issue_attachment.go:225, ChangeContent with the same body). The bot must not take
 * that for a person's edit of the session issue's body (no tick diff, no dashboard hold), whoever's token
 * uploaded: here the agent's, as `checkpost compact` run from the CLI does. A real edit still counts.
 */
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { BotMetrics } from "../../src/bot/bot-metrics.ts";
import { handleDelivery } from "../../src/bot/ingest/handle-delivery.ts";
import { readForgejoDelivery } from "../../src/forgejo-client/index.ts";
import type { WatchedIssue } from "../../src/bot/tracker-ports.ts";
import { seededForge, type Seeded } from "../forge/helpers.ts";
import { startReceiver, type Receiver } from "../forge/receiver.ts";

let s: Seeded | undefined;
let r: Receiver | undefined;
afterEach(async () => {
  await s?.forge.close();
  await r?.close();
  s = r = undefined;
});

/** The `issues` payloads the forge sends for an upload and then for a real body edit, both by bob's token. */
async function payloads(): Promise<unknown[]> {
  s = await seededForge();
  r = await startReceiver();
  const f = s.forge;
  f.admin.addCollaborator("alice", "widgets", "bob", "write");
  f.admin.createIssue("alice", "widgets", { title: "Agent session state", body: "- [ ] pause" });
  const hook = { type: "forgejo", config: { url: `${r.url}/h`, content_type: "json" }, events: ["issues"], active: true };
  await fetch(`${f.apiUrl}/repos/alice/widgets/hooks`, { method: "POST", headers: { Authorization: `token ${s.alice}`, "Content-Type": "application/json" }, body: JSON.stringify(hook) });
  const head = '--b\r\nContent-Disposition: form-data; name="attachment"; filename="checkpost-health-archive-x.jsonl.gz"\r\n\r\n';
  const up = await fetch(`${f.apiUrl}/repos/alice/widgets/issues/1/assets`, {
    method: "POST",
    headers: { Authorization: `token ${s.bob}`, "Content-Type": "multipart/form-data; boundary=b" },
    body: `${head}x\r\n--b--\r\n`,
  });
  expect(up.status).toBe(201);
  const edit = await fetch(`${f.apiUrl}/repos/alice/widgets/issues/1`, {
    method: "PATCH",
    headers: { Authorization: `token ${s.bob}`, "Content-Type": "application/json" },
    body: JSON.stringify({ body: "- [x] pause" }),
  });
  expect(edit.status).toBe(201);
  await f.admin.idle();
  return r.received.map((x) => JSON.parse(x.raw.toString("utf8")) as unknown);
}

describe("an upload's `edited` webhook", () => {
  it("is no one's box edit; the real edit after it is", async () => {
    const sent = await payloads();
    expect(sent).toHaveLength(2);
    const edits: Array<[string | null, string]> = [];
    // onBodyDelivered: where i28-controls' handle-delivery sends a delivery that named no body change.
    const tracker = {
      onHumanBodyEdit: async (before: string | null, after: string) => void edits.push([before, after]),
      onBodyDelivered: async () => {},
      renderSection: () => "",
    } as unknown as WatchedIssue;
    const metrics = { deliveries: { inc: () => {} }, handleSeconds: { observe: () => {} } } as unknown as BotMetrics;
    const deps = {
      log: pino({ level: "silent" }),
      metrics,
      self: "checkpost-bot",
      watched: () => true,
      tracker: () => tracker,
      track: async () => tracker,
      isSessionIssue: () => true,
      readDelivery: readForgejoDelivery,
    };
    for (const p of sent) await handleDelivery("issues", p, deps);
    expect(edits).toEqual([["- [ ] pause", "- [x] pause"]]);
  });
});
