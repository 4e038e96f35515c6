/** Test helpers for the embedded forge: a seeded server and a tiny fetch wrapper. */
import { startForge, type ForgeServer } from "../../src/embedded-forge/index.ts";
import type { ForgeOptions } from "../../src/embedded-forge/index.ts";

export interface Seeded {
  forge: ForgeServer;
  /** alice: owner of alice/widgets (public) and alice/secret (private). */
  alice: string;
  /** bob: plain user, no collaborator rights. */
  bob: string;
  /** root: site admin. */
  root: string;
}

export async function seededForge(opts: ForgeOptions = {}): Promise<Seeded> {
  const forge = await startForge(opts);
  const a = forge.admin;
  a.createUser("alice", { fullName: "Alice" });
  a.createUser("bob");
  a.createUser("root", { isAdmin: true });
  a.createRepo("alice", "widgets");
  a.createRepo("alice", "secret", { private: true });
  return { forge, alice: a.createToken("alice"), bob: a.createToken("bob"), root: a.createToken("root") };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export async function api(forge: ForgeServer, method: string, path: string, opts: { token?: string; body?: unknown; rawBody?: string; contentType?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.Authorization = `token ${opts.token}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers["Content-Type"] = opts.contentType ?? "application/json";
  const res = await fetch(forge.apiUrl + path, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  if (text.length > 0 && (res.headers.get("content-type") ?? "").includes("json")) json = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, json };
}

export function asRecord(v: unknown): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error(`not an object: ${JSON.stringify(v)}`);
  return v as Record<string, unknown>;
}

export function asArray(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new Error(`not an array: ${JSON.stringify(v)}`);
  return v;
}
