// Issue 33, item 3: the variables the code reads, .env.example, deploy/kubernetes.yaml and the settings
// table of docs/deploy.md name the same settings. A new setting fails here until all four have it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { BotEnvSchema } from "../../src/config/bot-env.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const read = (p: string) => readFileSync(join(root, p), "utf8");

function files(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((f) => (statSync(join(root, dir, f)).isDirectory() ? files(join(dir, f)) : f.endsWith(".ts") ? [join(dir, f)] : []));
}

/** Settings read by name outside the schemas (`env["CHECKPOST_…"]`, `env.CHECKPOST_…`). */
const direct = new Set(files("src").flatMap((f) => [...read(f).matchAll(/env(?:\["|\.)((?:CHECKPOST|FORGEJO|WEBHOOK)_[A-Z0-9_]+)/g)].map((m) => m[1] as string)));
const code = new Set([...Object.keys(BotEnvSchema.shape), ...direct]);

const envExample = new Set([...read(".env.example").matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1] as string));
const deployDoc = read("docs/deploy.md");
const table = new Set([...deployDoc.slice(deployDoc.indexOf("\n## Settings")).matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1] as string));

const manifest = parseAllDocuments(read("deploy/kubernetes.yaml")).map((d) => d.toJS() as Record<string, unknown>);
const configMap = (manifest.find((d) => d["kind"] === "ConfigMap")?.["data"] ?? {}) as Record<string, string>;
const container = (manifest.find((d) => d["kind"] === "Deployment") as { spec: { template: { spec: { containers: { env: { name: string }[] }[] } } } }).spec.template.spec.containers[0];
const dockerfile = read("deploy/Dockerfile");
const dockerEnv = [
  ...dockerfile
    .slice(dockerfile.lastIndexOf("\nFROM "))
    .replace(/\\\n\s*/g, " ")
    .matchAll(/^ENV (.*)$/gm),
].flatMap((m) => [...(m[1] as string).matchAll(/([A-Z_][A-Z0-9_]*)=/g)].map((x) => x[1] as string));
const inImage = new Set([...Object.keys(configMap), ...(container?.env.map((e) => e.name) ?? []), ...dockerEnv]);

/** Read by the code but not the bot's, or not for a deployment: each with why the manifest leaves it out. */
const NOT_IN_MANIFEST: Record<string, string> = {
  FORGEJO_REPO: "CLI/library; the bot watches CHECKPOST_REPOSITORIES",
  FORGEJO_REPOSITORY: "alias of FORGEJO_REPO",
  FORGEJO_OWNER: "alias form of FORGEJO_REPO",
  CHECKPOST_ISSUE: "CLI/library: the bot finds every session issue",
  CHECKPOST_MAX_CHECKPOINT_BYTES: "writers only (a save's size limit)",
  CHECKPOST_CACHE_DIR: "the CLI's per-machine folder",
  CHECKPOST_CODE_CACHE: "the CLI's V8 code cache",
  CHECKPOST_DEBUG_CODE_CACHE: "the CLI's code cache diagnostics",
  CHECKPOST_PHASE_MAPS: "the CLI's phase maps",
  CHECKPOST_BOT_LOGIN: "doctor only",
  // Snapshots are taken and restored by agents (CLI, library, MCP), never by the bot (docs/snapshots.md).
  CHECKPOST_STATE_KEY: "agents' snapshots only; the bot never reads snapshot contents",
  CHECKPOST_STATE_OLD_KEYS: "agents' snapshot restores only",
  CHECKPOST_SNAPSHOT_CHUNK_BYTES: "agents' snapshot saves only",
  CHECKPOST_SNAPSHOT_MAX_FILE_BYTES: "agents' snapshot saves only",
  CHECKPOST_SNAPSHOT_MAX_TOTAL_BYTES: "agents' snapshot saves only",
  CHECKPOST_SNAPSHOT_KEEP: "agents' snapshot saves only",
  CHECKPOST_INSECURE_NO_WEBHOOK_SECRET: "local development only; never in a deployment",
  CHECKPOST_FORGE_PORT: "the embedded Forgejo of `npm start` only",
  CHECKPOST_DATA_DIR: "set by the image (ENV) for its SQLite mode; unused with CHECKPOST_DATABASE_URL",
  CHECKPOST_STORE_FILE: "the SQLite store; replaced by CHECKPOST_DATABASE_URL here",
};

describe("settings: code, .env.example, the manifest and docs/deploy.md agree", () => {
  it("finds the settings (not vacuous)", () => {
    expect(code.size).toBeGreaterThan(40);
    expect(code.has("CHECKPOST_PHASE_MAPS")).toBe(true);
    expect(table.size).toBeGreaterThan(40);
  });

  it(".env.example lists every setting the code reads, and nothing else", () => {
    expect([...code].filter((v) => !envExample.has(v)).sort()).toEqual([]);
    expect([...envExample].filter((v) => !code.has(v)).sort()).toEqual([]);
  });

  it("docs/deploy.md's settings table lists every setting the code reads, and nothing else", () => {
    expect([...code].filter((v) => !table.has(v)).sort()).toEqual([]);
    expect([...table].filter((v) => !code.has(v)).sort()).toEqual([]);
  });

  it("deploy/kubernetes.yaml (with the image's ENV) carries every setting the bot reads, trust and signing key included", () => {
    expect([...code].filter((v) => !inImage.has(v) && !(v in NOT_IN_MANIFEST)).sort()).toEqual([]);
    expect([...inImage].filter((v) => v in NOT_IN_MANIFEST && v !== "CHECKPOST_DATA_DIR")).toEqual([]);
    for (const v of ["CHECKPOST_TRUSTED_AUTHORS", "CHECKPOST_SIGNING_KEY", "CHECKPOST_API_TOKEN", "CHECKPOST_DATABASE_URL"]) expect(inImage.has(v), v).toBe(true);
  });
});
