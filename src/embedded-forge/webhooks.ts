/**
 * Webhook delivery after Forgejo's services/webhook/deliver.go: POST, body = json.MarshalIndent(payload, "", "  "),
 * HMAC-SHA256 (and SHA1 for X-Hub-Signature) over the exact body bytes, one ordered queue per hook,
 * delivered asynchronously after the API response, with a timeout (Forgejo default 5 s).
 */
import { createHmac, randomUUID } from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { Logger } from "pino";
import { goJsonIndent } from "./go-json.ts";
import { hookEvents } from "./convert.ts";
export { expandHookEvents } from "./hook-events.ts";
import type { ForgeStore } from "./store-sqlite.ts";
import type { DeliveryRecord, HookRow } from "./types.ts";

export type HookEventType = "issues" | "issue_label" | "issue_comment";

/** HookEventType.Event(): the value of X-*-Event (issue_label → "issues"). */
export function eventHeader(t: HookEventType): string {
  return t === "issue_comment" ? "issue_comment" : "issues";
}

/** Does a hook whose (expanded) events are `events` receive `t`? Each type has its own flag, as in Forgejo. */
export function hookWants(events: string[], t: HookEventType): boolean {
  return events.includes(t);
}

export class WebhookDispatcher {
  private readonly queues = new Map<number, Promise<void>>();
  private readonly records: DeliveryRecord[] = [];
  private pending = 0;
  private waiters: Array<() => void> = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly store: ForgeStore,
    private readonly logger: Logger,
    public timeoutMs: number,
  ) {}

  /** Queue `payload` for every active hook of the repo subscribed to `type`. Delivery waits for `gate`. */
  dispatch(repoId: number, type: HookEventType, payload: Record<string, unknown>, gate: Promise<void>): void {
    if (this.closed) return;
    const hooks = this.store.hooksOfRepo(repoId).filter((h) => h.active === 1 && hookWants(hookEvents(h), type));
    if (hooks.length === 0) return;
    const body = goJsonIndent(payload);
    const action = typeof payload.action === "string" ? payload.action : "";
    for (const hook of hooks) {
      this.pending++;
      const prev = this.queues.get(hook.id) ?? Promise.resolve();
      const next = prev
        .then(() => gate)
        .then(() => this.deliver(hook, type, action, body))
        .catch((err: unknown) => this.logger.error({ err, hookId: hook.id }, "webhook delivery crashed"))
        .finally(() => this.settle());
      this.queues.set(hook.id, next);
    }
  }

  private settle(): void {
    this.pending--;
    if (this.pending === 0) {
      const w = this.waiters;
      this.waiters = [];
      for (const resolve of w) resolve();
    }
  }

  /** Resolves when no delivery is queued or in flight. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  deliveries(): DeliveryRecord[] {
    return [...this.records];
  }

  close(): void {
    this.closed = true;
  }

  private headersFor(hook: HookRow, type: HookEventType, uuid: string, body: string): Record<string, string> {
    let sig1 = "";
    let sig256 = "";
    if (hook.secret) {
      sig1 = createHmac("sha1", hook.secret).update(body).digest("hex");
      sig256 = createHmac("sha256", hook.secret).update(body).digest("hex");
    }
    const event = eventHeader(type);
    const h: Record<string, string> = {
      "Content-Type": hook.content_type === "form" ? "application/x-www-form-urlencoded" : "application/json",
      "X-Forgejo-Delivery": uuid,
      "X-Forgejo-Event": event,
      "X-Forgejo-Event-Type": type,
      "X-Forgejo-Signature": sig256,
      "X-Gitea-Delivery": uuid,
      "X-Gitea-Event": event,
      "X-Gitea-Event-Type": type,
      "X-Gitea-Signature": sig256,
      "X-Gogs-Delivery": uuid,
      "X-Gogs-Event": event,
      "X-Gogs-Event-Type": type,
      "X-Gogs-Signature": sig256,
      "X-Hub-Signature": `sha1=${sig1}`,
      "X-Hub-Signature-256": `sha256=${sig256}`,
      "X-GitHub-Delivery": uuid,
      "X-GitHub-Event": event,
      "X-GitHub-Event-Type": type,
    };
    if (hook.authorization_header) h.Authorization = hook.authorization_header;
    return h;
  }

  private async deliver(hook: HookRow, type: HookEventType, action: string, payloadJson: string): Promise<void> {
    const uuid = randomUUID();
    const headers = this.headersFor(hook, type, uuid, payloadJson);
    // Content type "form" sends payload=<json>; the signature stays over the JSON payload (as Forgejo).
    const sent = hook.content_type === "form" ? new URLSearchParams({ payload: payloadJson }).toString() : payloadJson;
    const started = Date.now();
    const record: DeliveryRecord = {
      id: this.nextId++,
      hookId: hook.id,
      uuid,
      event: eventHeader(type),
      eventType: type,
      action,
      url: hook.url,
      body: sent,
      requestHeaders: headers,
      ok: false,
      status: null,
      error: null,
      durationMs: 0,
    };
    try {
      record.status = await this.post(hook.url, headers, sent);
      record.ok = record.status >= 200 && record.status < 300;
      if (!record.ok) record.error = `status ${record.status}`;
    } catch (err) {
      record.error = err instanceof Error ? err.message : String(err);
    }
    record.durationMs = Date.now() - started;
    this.records.push(record);
    // Said as it happened: a 4xx/5xx answer is a rejection, no answer is a failure.
    const fields = { hookId: hook.id, delivery: uuid, event: type, action, ok: record.ok, status: record.status, error: record.error };
    if (record.ok) this.logger.info(fields, "webhook delivered");
    else if (record.status) this.logger.warn(fields, `webhook rejected by the receiver (${record.status})`);
    else this.logger.warn(fields, "webhook delivery failed");
  }

  private post(url: string, headers: Record<string, string>, body: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const target = new URL(url);
      const mod = target.protocol === "https:" ? https : http;
      const bytes = Buffer.from(body, "utf8");
      const req = mod.request(target, {
        method: "POST",
        headers: { ...headers, "Content-Length": String(bytes.length), "User-Agent": "Go-http-client/1.1" },
      });
      const timer = setTimeout(() => {
        req.destroy(new Error(`timeout after ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      req.on("response", (res) => {
        res.resume();
        res.on("end", () => {
          clearTimeout(timer);
          resolve(res.statusCode ?? 0);
        });
        res.on("error", (err) => {
          clearTimeout(timer);
          reject(err);
        });
      });
      req.on("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.end(bytes);
    });
  }
}
