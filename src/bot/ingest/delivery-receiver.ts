import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { Probot, ProbotOctokit } from "probot";
import { isSessionIssue } from "../../session-client/index.ts";
import type { BotConfig } from "../bot-config.ts";
import type { BotMetrics } from "../bot-metrics.ts";
import { handleDelivery } from "./handle-delivery.ts";
import type { DeliveryDeps } from "./handle-delivery.ts";
import { parseWebhookJson } from "./parse-webhook-json.ts";
import { readCappedBody } from "./read-capped-body.ts";
import type { HostDefinition, ReadDelivery, RepoRef } from "../../ports/issue-host.ts";
import type { WatchedIssue } from "../tracker-ports.ts";

export interface DeliveryReceiver {
  /** Answer a POST to the webhook path (size cap, signature, dispatch). */
  receive(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Resolves when the deliveries received so far are handled. */
  idle(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/**
 * The webhook end of the bot: caps the body, checks the signature (Probot) or,
 * in insecure development mode, only the JSON, and hands each delivery to
 * handleDelivery. It reads the webhook headers GitHub defined (X-GitHub-Event,
 * X-GitHub-Delivery), which Forgejo sends too beside its own X-Forgejo-* copies;
 * which header signs a delivery, and how, the host says (HostDefinition.verifyDelivery): no host's own
 * header names are read here (issue 31). Deliveries in flight are tracked so tests and shutdown can wait.
 */
/** The watched issues, as the receiver uses them (TrackerRegistry is one). */
export interface WatchedIssues {
  watches(repo: RepoRef): boolean;
  track(repo: RepoRef, issue: number): Promise<WatchedIssue>;
  get(repo: RepoRef, issue: number): WatchedIssue | undefined;
}

export async function createDeliveryReceiver(
  config: BotConfig,
  d: {
    registry: WatchedIssues;
    clientApiUrl: string;
    readDelivery: ReadDelivery;
    /** The host's signature check (its header, its HMAC). */
    verifyDelivery: HostDefinition["verifyDelivery"];
    selfLogin: string;
    logger: Logger;
    metrics: BotMetrics;
  },
): Promise<DeliveryReceiver> {
  const { logger: log, metrics, registry } = d;
  const inflight = new Set<Promise<unknown>>();
  const deliveryDeps: DeliveryDeps = {
    log,
    metrics,
    self: d.selfLogin,
    watched: (r) => registry.watches(r),
    track: (r, n) => registry.track(r, n),
    tracker: (r, n) => registry.get(r, n),
    isSessionIssue: (i) => isSessionIssue(i, config),
    readDelivery: d.readDelivery,
  };
  const run = (name: string, payload: unknown, deliveryId: string | null) => {
    const p = handleDelivery(name, payload, deliveryDeps, deliveryId);
    inflight.add(p);
    return p.finally(() => inflight.delete(p));
  };
  const handler = await verifyingHandler(config, log, d.clientApiUrl, run);

  return {
    async receive(req, res) {
      // Rejections cost one bounded log line and a counter with a fixed label set; the unverified
      // payload is never logged (Probot's own error log carries it whole: issue 9).
      const reject = (status: number, reason: string, bytes: number | null, text: string) => {
        metrics.deliveries.inc({ event: eventLabel(req.headers["x-github-event"]), result: status === 413 ? "too_large" : "rejected" });
        log.warn({ delivery: headerText(req.headers["x-github-delivery"]), bytes, reason }, "webhook delivery rejected");
        res.writeHead(status, { connection: "close", "content-type": "text/plain" }).end(text);
        return true;
      };
      const body = await readCappedBody(req, config.maxWebhookBytes);
      if (body === null) {
        const declared = Number(req.headers["content-length"]);
        return reject(413, `body over CHECKPOST_MAX_WEBHOOK_BYTES (${config.maxWebhookBytes})`, Number.isSafeInteger(declared) ? declared : null, "payload too large");
      }
      const bytes = body.length;
      if (config.webhookSecret) {
        const why = d.verifyDelivery(req.headers, body, config.webhookSecret);
        if (why) return reject(400, why, bytes, "signature does not match");
      }
      Object.assign(req, { body });
      return handler(req, res);
    },
    async idle() {
      while (inflight.size) await Promise.allSettled([...inflight]);
    },
  };
}

/**
 * The verified delivery's dispatcher. `receive` has checked the signature on the raw body already
 * (the host's verifyDelivery) and the handler parses it once: Probot's own middleware would HMAC the body a
 * second time and parse it again (@octokit/webhooks verifyAndReceive), which at Forgejo's payload size
 * (the whole issue, body included, rides along every issue_comment delivery) cost the bench half its
 * ingest rate (docs/benchmarks.md, issue 22). Probot stays the app framework: its handlers run from
 * `probot.webhooks.receive`, which does not verify; `Probot#receive` is not used because it logs the
 * whole event at debug level.
 */
async function verifyingHandler(config: BotConfig, log: Logger, apiUrl: string, run: (event: string, payload: unknown, deliveryId: string | null) => Promise<void>): Promise<Handler> {
  if (config.webhookSecret) {
    // Its throttling (3 s between writes) and retries (1/4/9 s) are off: the bot makes
    // no writes through Probot's client, and our own client has the retry policy.
    const probot = new Probot({
      githubToken: config.token,
      baseUrl: apiUrl,
      secret: config.webhookSecret,
      // Its error log would carry the whole payload (err.event): keep errors to type and message.
      log: log.child({ name: "probot" }, { serializers: { err: (e: unknown) => (e instanceof Error ? { type: e.name, message: e.message.slice(0, 500) } : { message: String(e).slice(0, 500) }) } }),
      Octokit: ProbotOctokit.defaults({ throttle: { enabled: false }, retry: { enabled: false } }),
    });
    await probot.load((app) => {
      // ctx.id is X-GitHub-Delivery, which Forgejo sends equal to X-Forgejo-Delivery (a UUID per delivery, kept on redelivery).
      app.on("issue_comment", async (ctx) => void (await run("issue_comment", ctx.payload, ctx.id || null)));
      app.on("issues", async (ctx) => void (await run("issues", ctx.payload, ctx.id || null)));
    });
    return async (req, res) => {
      const name = headerText(req.headers["x-github-event"]);
      const id = headerText(req.headers["x-github-delivery"]) ?? "";
      if (!name) {
        res.writeHead(400, { "content-type": "text/plain" }).end("no X-GitHub-Event header");
        return true;
      }
      const payload = Buffer.isBuffer(req.body) ? parseWebhookJson(req.body, name) : undefined;
      if (payload === undefined) {
        log.warn({ delivery: id.slice(0, 80), reason: "invalid JSON" }, "webhook delivery rejected");
        res.writeHead(400, { "content-type": "text/plain" }).end("invalid JSON");
        return true;
      }
      try {
        // Probot's types are GitHub's event map; the payload is checked with zod in handleDelivery.
        await probot.webhooks.receive({ id, name, payload } as Parameters<typeof probot.webhooks.receive>[0]);
      } catch (e) {
        // As Probot's middleware does: the first handler error's status (503 when the shared store is down), else 500.
        const first: unknown = e instanceof AggregateError ? e.errors[0] : e;
        const status = typeof (first as { status?: unknown })?.status === "number" ? (first as { status: number }).status : 500;
        log.error({ err: first instanceof Error ? { type: first.name, message: first.message.slice(0, 500) } : String(first).slice(0, 500), delivery: id.slice(0, 80) }, "webhook delivery failed");
        res.writeHead(status, { "content-type": "text/plain" }).end(status === 503 ? "store unavailable: redeliver later" : "failed");
        return true;
      }
      res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
      return true;
    };
  }
  if (config.insecure) {
    log.warn("CHECKPOST_INSECURE_NO_WEBHOOK_SECRET is set: webhook deliveries are NOT authenticated. Never run this way on a network.");
    return async (req, res) => {
      const event = String(req.headers["x-github-event"] ?? "");
      const raw: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const payload = parseWebhookJson(raw, event);
      if (payload === undefined) {
        log.warn({ delivery: headerText(req.headers["x-github-delivery"]), bytes: raw.length, reason: "invalid JSON" }, "webhook delivery rejected");
        res.writeHead(400).end("invalid JSON");
        return true;
      }
      const id = req.headers["x-github-delivery"];
      try {
        await run(event, payload, typeof id === "string" && id ? id : null);
      } catch (e) {
        // As Probot's middleware does: the error's own status (503 when the shared store is down), else 500.
        const status = typeof (e as { status?: unknown }).status === "number" ? (e as { status: number }).status : 500;
        res.writeHead(status).end(status === 503 ? "store unavailable: redeliver later" : "failed");
        return true;
      }
      res.writeHead(200).end("ok");
      return true;
    };
  }
  throw new Error("createBot: webhookSecret is required unless insecure is set");
}

/** The events the bot handles; anything else is one label, so a header cannot grow the metric's series. */
export function eventLabel(h: string | string[] | undefined): string {
  return h === "issue_comment" || h === "issues" ? h : "other";
}

/** A header value fit for one log field: a string, at most 80 characters. */
function headerText(h: string | string[] | undefined): string | null {
  const v = Array.isArray(h) ? h[0] : h;
  return v === undefined ? null : v.slice(0, 80);
}
