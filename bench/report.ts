/** The comparison table (seed | checkpost | ratio) and the targets, from one run's results. */
import type { BenchResults } from "./run.ts";
import { retentionTargets } from "./retention-bot.ts";
import type { ScenarioResult } from "./scenario.ts";

export interface Row {
  metric: string;
  seed: string;
  checkpost: string;
  ratio: string;
}
export interface Target {
  target: string;
  result: string;
  met: boolean;
}

const num = (x: number, d = 1) => (Number.isFinite(x) ? x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d }) : String(x));
const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : String(x));
export function bytes(b: number): string {
  if (b >= 1024 * 1024) return `${num(b / 1024 / 1024, 1)} MiB`;
  if (b >= 1024) return `${num(b / 1024, 1)} KiB`;
  return `${int(b)} B`;
}
const ms = (x: number) => (x >= 100 ? `${int(x)} ms` : `${num(x, x < 10 ? 2 : 1)} ms`);
/** "how many times more the seed costs" */
const times = (seed: number, cp: number) => (cp === 0 ? (seed === 0 ? "1×" : "∞") : `${num(seed / cp, seed / cp >= 100 ? 0 : 1)}×`);
const k = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));

export function buildReport(r: BenchResults): { rows: Row[]; targets: Target[] } {
  const rows: Row[] = [];
  const add = (metric: string, seed: string, checkpost: string, ratio = "") => rows.push({ metric, seed, checkpost, ratio });
  for (const s of r.scenarios) {
    const N = `N=${k(s.n)}`;
    add(`save: requests/checkpoint (${N})`, int(s.save.seed.requests), int(s.save.checkpost.requests), times(s.save.seed.requests, s.save.checkpost.requests));
    add(`save: bytes received/checkpoint (${N})`, bytes(s.save.seed.bytes), bytes(s.save.checkpost.bytes), times(s.save.seed.bytes, s.save.checkpost.bytes));
    add(`save: wall time/checkpoint (${N})`, ms(s.save.seed.ms), ms(s.save.checkpost.ms), times(s.save.seed.ms, s.save.checkpost.ms));
    if (s.cold) {
      const { seed, checkpostIndex: ci, checkpostFull: cf } = s.cold;
      const later = s.cold.checkpostIndexLater;
      const tr = s.cold.traffic;
      add(`cold resume: requests, median / max (${N})`, int(seed.cost.requests), `${int(ci.cost.requests)} / ${int(ci.cost.maxRequests)}`, times(seed.cost.requests, ci.cost.requests));
      add(`cold resume: bytes received (${N})`, bytes(seed.cost.bytes), bytes(ci.cost.bytes), times(seed.cost.bytes, ci.cost.bytes));
      add(`cold resume: wall time (${N})`, ms(seed.cost.ms), ms(ci.cost.ms), times(seed.cost.ms, ci.cost.ms));
      add(`cold resume: correct answers (${N})`, `${seed.correct}/${seed.total}`, `${ci.correct}/${ci.total}`);
      add(`cold resume ${num(tr.ms / 1000, 0)} s later (${tr.comments} comments since the index): requests median / max (${N})`, "", `${int(later.cost.requests)} / ${int(later.cost.maxRequests)}`);
      add(`cold resume ${num(tr.ms / 1000, 0)} s later: bytes, wall time, correct (${N})`, "", `${bytes(later.cost.bytes)}, ${ms(later.cost.ms)}, ${later.correct}/${later.total}`);
      add(`cold resume, a machine's first call (login not cached): requests (${N})`, "", int(s.cold.firstCall.requests));
      add(`cold resume without index, full read: bytes (${N})`, bytes(seed.cost.bytes), bytes(cf.cost.bytes), times(seed.cost.bytes, cf.cost.bytes));
      add(`cold resume without index, full read: wall time (${N})`, ms(seed.cost.ms), ms(cf.cost.ms), times(seed.cost.ms, cf.cost.ms));
      add(`cold resume without index, full read: correct (${N})`, `${seed.correct}/${seed.total}`, `${cf.correct}/${cf.total}`);
    }
    if (s.bot) {
      const b = s.bot;
      add(`warm resume via bot API: p50 / p99 (${N})`, "n/a (no bot)", `${ms(b.warm.p50Ms)} / ${ms(b.warm.p99Ms)}`);
      add(`warm resume: Forgejo requests in ${int(b.warm.requests)} calls (${N})`, "n/a", int(b.warm.forgeRequests));
      add(`ingest: deliveries/s over ${num(b.ingest.seconds, 1)} s (${N})`, "n/a", int(b.ingest.perSecond));
      add(`ingest: p50 / p99 client-side (${N})`, "n/a", `${ms(b.ingest.p50Ms)} / ${ms(b.ingest.p99Ms)}`);
      add(`ingest: bot CPU per delivery (user + system) (${N})`, "n/a", b.ingest.botCpuMsPerDelivery === undefined ? "n/a" : `${b.ingest.botCpuMsPerDelivery.toFixed(3)} ms`);
      add(`ingest: p99 handling, bot histogram bucket (${N})`, "n/a", b.ingest.botHandleP99Ms === null ? "n/a" : `≤ ${ms(b.ingest.botHandleP99Ms)}`);
      add(`ingest: deliveries / dashboard writes (${N})`, "n/a", `${int(b.ingest.deliveries)} / ${int(b.ingest.dashboardWrites)}`);
      add(`ingest: events lost; projection = full rebuild (${N})`, "n/a", `${int(b.ingest.lost)}; ${b.ingest.projectionMatches ? "yes" : "NO"}`);
      add(`bot start: full read of the issue (${N})`, "n/a", `${ms(b.startMs)}, ${bytes(b.startBytes)}`);
      add(`bot RSS: modules only / after reading N / after ingest (${N})`, "n/a", `${num(b.rssBaselineMb, 0)} / ${num(b.rssAfterStartMb, 0)} / ${num(b.rssAfterIngestMb, 0)} MiB`);
    }
  }
  const withCold = r.scenarios.filter((s): s is ScenarioResult & { cold: NonNullable<ScenarioResult["cold"]> } => s.cold !== null);
  const first = withCold[0];
  const last = withCold[withCold.length - 1];
  if (first && last && first !== last) {
    const range = `N=${k(first.n)}→${k(last.n)}`;
    add(`cold resume growth, bytes (${range})`, times(last.cold.seed.cost.bytes, first.cold.seed.cost.bytes), times(last.cold.checkpostIndex.cost.bytes, first.cold.checkpostIndex.cost.bytes));
    add(`cold resume growth, bytes 10 s later (${range})`, "", times(last.cold.checkpostIndexLater.cost.bytes, first.cold.checkpostIndexLater.cost.bytes));
    add(`cold resume growth, wall time (${range})`, times(last.cold.seed.cost.ms, first.cold.seed.cost.ms), times(last.cold.checkpostIndex.cost.ms, first.cold.checkpostIndex.cost.ms));
  }
  add(
    `parse: MB/s (${int(r.parse.corpusComments)} bodies)`,
    num(r.parse.seed.mbPerSec, 0),
    num(r.parse.checkpost.mbPerSec, 0),
    `${num(r.parse.checkpost.mbPerSec / r.parse.seed.mbPerSec, 2)}× (cp/seed)`,
  );
  add("parse: comments/s", int(r.parse.seed.commentsPerSec), int(r.parse.checkpost.commentsPerSec));

  // Targets
  const targets: Target[] = [];
  const t = (target: string, result: string, met: boolean) => targets.push({ target, result, met });
  t(
    "save = 1 request",
    r.scenarios.map((s) => `${int(s.save.checkpost.requests)} @${k(s.n)}`).join(", "),
    r.scenarios.every((s) => s.save.checkpost.requests === 1),
  );
  const ref = withCold.find((s) => s.n === 10_000) ?? withCold.filter((s) => s.n <= 10_000).pop() ?? withCold[0];
  if (ref) {
    const c = ref.cold;
    const br = c.seed.cost.bytes / c.checkpostIndex.cost.bytes;
    const tr = c.seed.cost.ms / c.checkpostIndex.cost.ms;
    t(`cold resume @${k(ref.n)}: ≥ 200× fewer bytes than the seed`, `${num(br, 0)}× (${num(c.checkpostIndex.cost.bytes / 1024, 1)} KiB)`, br >= 200);
    t(`cold resume @${k(ref.n)}: ≥ 10× less time than the seed`, `${num(tr, 1)}×`, tr >= 10);
    t(
      `cold resume @${k(ref.n)}: correct where the seed is not`,
      `checkpost ${c.checkpostIndex.correct}/${c.checkpostIndex.total}, seed ${c.seed.correct}/${c.seed.total}`,
      c.checkpostIndex.correct === c.checkpostIndex.total && c.seed.correct < c.seed.total,
    );
  }
  if (first && last) {
    const runs = withCold.flatMap((x) => [x.cold.checkpostIndex.cost, x.cold.checkpostIndexLater.cost]);
    const worst = Math.max(...runs.map((c) => c.maxRequests));
    t(
      "cold resume with the index ≤ 2 requests, every run (right after an index write and 10 s later)",
      `median ${withCold.map((x) => int(x.cold.checkpostIndex.cost.requests)).join("/")}, max ${int(worst)}`,
      worst <= 2,
    );
  }
  if (first && last && first !== last) {
    const spread = (pick: (x: (typeof withCold)[number]) => number) => Math.max(...withCold.map(pick)) / Math.min(...withCold.map(pick));
    const gb = spread((x) => x.cold.checkpostIndex.cost.bytes);
    const gl = spread((x) => x.cold.checkpostIndexLater.cost.bytes);
    const gt = last.cold.checkpostIndex.cost.ms / first.cold.checkpostIndex.cost.ms;
    // The worst case: a median can drop at small N, where the planted probes are recent enough for one read.
    const gr = last.cold.checkpostIndex.cost.maxRequests - first.cold.checkpostIndex.cost.maxRequests;
    t(
      `cold resume flat @${k(first.n)}→${k(last.n)} (same most requests; bytes within 1.5× right after a write and 10 s later; time within 1.5×)`,
      `max requests +${gr}, bytes ${num(gb, 2)}× / ${num(gl, 2)}×, time ${num(gt, 2)}×`,
      gr === 0 && gb <= 1.5 && gl <= 1.5 && gt <= 1.5,
    );
  }
  const bots = r.scenarios.filter((s) => s.bot !== null).map((s) => ({ n: s.n, b: s.bot! }));
  if (bots.length) {
    const worstP99 = Math.max(...bots.map((x) => x.b.warm.p99Ms));
    const forgeReq = bots.reduce((a, x) => a + x.b.warm.forgeRequests, 0);
    t("warm resume p99 < 2 ms with 0 Forgejo requests", `p99 ≤ ${ms(worstP99)}, ${forgeReq} requests`, worstP99 < 2 && forgeReq === 0);
    const minRate = Math.min(...bots.map((x) => x.b.ingest.perSecond));
    const worstIngest = Math.max(...bots.map((x) => x.b.ingest.p99Ms));
    const lost = bots.reduce((a, x) => a + x.b.ingest.lost + (x.b.ingest.projectionMatches ? 0 : 1), 0);
    const shortest = Math.min(...bots.map((x) => x.b.ingest.seconds));
    t(
      `ingest ≥ 3,000 deliveries/s (≥ ${r.mode === "full" ? 10 : 2} s) with p99 < 10 ms and 0 lost`,
      `≥ ${int(minRate)}/s over ≥ ${num(shortest, 1)} s, p99 ≤ ${ms(worstIngest)}, lost ${lost}`,
      minRate >= 3000 && worstIngest < 10 && lost === 0 && shortest >= (r.mode === "full" ? 10 : 2),
    );
    // Issue 22: the main scenario's bot (store on a file, as npm start) at the largest N, and its growth from the smallest.
    const big = bots.find((x) => x.n === 50_000) ?? bots[bots.length - 1]!;
    const small = bots[0]!;
    t(
      `bot RSS ≤ 100 MiB @${k(big.n)} (after reading, after ingest)`,
      `${num(big.b.rssAfterStartMb, 0)} / ${num(big.b.rssAfterIngestMb, 0)} MiB`,
      big.b.rssAfterStartMb <= 100 && big.b.rssAfterIngestMb <= 100,
    );
    if (small !== big) {
      const gs = big.b.rssAfterStartMb / small.b.rssAfterStartMb;
      const gi = big.b.rssAfterIngestMb / small.b.rssAfterIngestMb;
      t(`bot RSS within 1.2× from ${k(small.n)} to ${k(big.n)}`, `after reading ${num(gs, 2)}×, after ingest ${num(gi, 2)}×`, gs <= 1.2 && gi <= 1.2);
    }
  }
  t("parse ≥ 100 MB/s", `${num(r.parse.checkpost.mbPerSec, 0)} MB/s`, r.parse.checkpost.mbPerSec >= 100);
  if (r.bodySize) {
    const b = r.bodySize;
    t(
      "issue body (dashboard section) ≤ 32 KiB at 20 agents, ≤ 128 KiB at 10,000 agents",
      `${num(b.agents20Bytes / 1024, 1)} KiB / ${num(b.agents10kBytes / 1024, 1)} KiB (index comment ${num(b.index10kBytes / 1024, 0)} KiB)`,
      b.agents20Bytes <= 32 * 1024 && b.agents10kBytes <= 128 * 1024,
    );
  }
  // Issue 22: PostgreSQL ingest and first start (bench/store-compare.ts; N = 10k in the full run).
  const pg = r.stores.find((x) => x.store === "postgres");
  if (pg) {
    t(`ingest with PostgreSQL ≥ 1,000/s, p99 < 25 ms (@${k(pg.n)})`, `${int(pg.ingest.perSecond)}/s, p99 ${ms(pg.ingest.p99Ms)}`, pg.ingest.perSecond >= 1000 && pg.ingest.p99Ms < 25);
    t(`PostgreSQL first start ≤ 2 s (@${k(pg.n)})`, `${int(pg.startMs)} ms`, pg.startMs <= 2000);
  }
  // Bounded history (issue 11): the store-backed bot at each N.
  for (const x of retentionTargets(r.retention?.bot ?? [])) t(`bounded history: ${x.target}`, x.result, x.met);
  return { rows, targets };
}

function table(header: string[], body: string[][]): string {
  const w = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(w[i] ?? 0)).join(" | ")} |`;
  return [line(header), `|${w.map((x) => "-".repeat(x + 2)).join("|")}|`, ...body.map(line)].join("\n");
}

export function formatReport(r: BenchResults, rep: { rows: Row[]; targets: Target[] }): string {
  const c = r.config;
  const head = [
    `checkpost benchmark (${r.mode}) — ${r.generatedAt}`,
    `machine: ${r.machine.nproc} cores, ${r.machine.cpu}, node ${r.machine.node}, ${r.machine.platform}`,
    `forge: embedded Forgejo, +${c.latencyMs} ms/request, ${num(c.bandwidthBytesPerSec / 1024 / 1024, 0)} MiB/s cap; sizes ${c.sizes.join(", ")}; wall ${num(r.wallSeconds, 0)} s`,
    "",
  ];
  const rows = table(
    ["metric", "seed", "checkpost", "ratio (seed/checkpost)"],
    rep.rows.map((x) => [x.metric, x.seed, x.checkpost, x.ratio]),
  );
  const tg = table(
    ["target", "result", "met"],
    rep.targets.map((x) => [x.target, x.result, x.met ? "yes" : "NO"]),
  );
  const probes = r.scenarios
    .filter((s) => s.cold)
    .slice(-1)
    .flatMap((s) => [
      "",
      `answers at N=${k(s.n)} (truth = newest trusted checkpoint by comment id):`,
      table(
        ["probe", "case", "seed", "checkpost (index)", "checkpost (full read)"],
        (s.cold?.seed.answers ?? []).map((a, i) => {
          const ci = s.cold?.checkpostIndex.answers[i];
          const cf = s.cold?.checkpostFull.answers[i];
          const show = (x: { answer: string | null; correct: boolean } | undefined) => (x ? `${x.correct ? "ok" : "WRONG"} (${x.answer ?? "none"})` : "");
          return [a.kind, a.what, show(a), show(ci), show(cf)];
        }),
      ),
    ]);
  return [...head, rows, "", tg, ...probes].join("\n");
}
