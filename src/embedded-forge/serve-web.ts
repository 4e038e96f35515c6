/** The non-API half of startForge: attachment downloads, static assets, the web view and its forms. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendResult } from "./http-io.ts";
import type { ServeDeps } from "./http-io.ts";
import { handleWebPost } from "./web-actions.ts";
import { webAsset } from "./web-assets.ts";
import { renderWeb } from "./web-view.ts";

/** GET/HEAD /attachments/{uuid}. */
export function serveAttachment(d: ServeDeps, res: ServerResponse, uuid: string): Promise<void> {
  const { stats, forge } = d;
  // Served without a token here; Forgejo checks the repository's visibility (public in tests).
  stats.totalRequests++;
  stats.requests["ATTACHMENT"] = (stats.requests["ATTACHMENT"] ?? 0) + 1;
  const a = forge.store.attachmentData(uuid);
  if (!a) return sendResult(stats, res, { status: 404, raw: "Not Found" }, 0);
  return sendResult(
    stats,
    res,
    {
      status: 200,
      bytes: a.data,
      contentType: "application/octet-stream",
      headers: { "Content-Disposition": `attachment; filename="${encodeURIComponent(a.name)}"`, "X-Content-Type-Options": "nosniff" },
    },
    0,
  );
}

/** Any path outside /api/v1: a form post, an asset, or a page of the read-only web view. */
export async function serveWeb(d: ServeDeps, req: IncomingMessage, res: ServerResponse, method: string, url: URL, raw: Buffer, responded: Promise<void>): Promise<void> {
  const { stats, forge, webSessions, signIns } = d;
  stats.totalRequests++;
  stats.requests["WEB"] = (stats.requests["WEB"] ?? 0) + 1;
  if (method === "POST") {
    const result = await handleWebPost(forge, webSessions, url, req.headers, raw, { ip: req.socket.remoteAddress ?? "", signIns });
    result.after?.(responded);
    return sendResult(stats, res, result, 0);
  }
  if (method !== "GET" && method !== "HEAD") return sendResult(stats, res, { status: 405, raw: "Method Not Allowed" }, 0);
  const asset = webAsset(url.pathname);
  if (asset) {
    res.writeHead(200, { "Content-Type": asset.contentType, "Content-Length": String(asset.body.length), "Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff" });
    res.end(method === "HEAD" ? undefined : asset.body);
    return;
  }
  const session = webSessions.fromRequest(req.headers);
  const viewerUser = session ? forge.store.userById(session.userId) : undefined;
  const page = renderWeb(forge, url.pathname, session && viewerUser ? { user: viewerUser, csrf: session.csrf } : null, url.search);
  return sendResult(stats, res, { status: page.status, raw: page.html, contentType: "text/html; charset=utf-8", headers: page.headers }, 0);
}
