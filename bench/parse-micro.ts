// Quick parse throughput probe: `node --import tsx bench/parse-micro.ts` (the full figure is in `npm run bench`).
import { formatCheckpoint, formatHealth, parseComment } from "../src/protocol/index.ts";

const bodies: string[] = [];
for (let i = 0; i < 5000; i++) {
  if (i % 3 === 0)
    bodies.push(
      formatCheckpoint({
        agent: `worker-${i % 20}`,
        session: "s1",
        phase: `subtask_${i}_complete`,
        timestamp: "2026-11-29T10:00:00.500000Z",
        id: `cp-${String(i).padStart(24, "0")}`,
        seq: i + 1,
        epoch: 1,
        data: { issue_number: i, branch_name: `feat/issue-${i}`, completed_subtasks: Array.from({ length: 20 }, (_, k) => k), working_dir: "/tmp/work/" + "x".repeat(200), notes: "n".repeat(300) },
      }),
    );
  else if (i % 3 === 1)
    bodies.push(
      formatHealth({
        agent: `orch-${i % 5}`,
        session: "s1",
        timestamp: "2026-11-29T10:00:00Z",
        metrics: { cycle_count: i, active_workers: 3, queue_depth: 7, completed: Array.from({ length: 30 }, (_, k) => k) },
      }),
    );
  else bodies.push(`A person's comment ${i}: `.repeat(30));
}
const bytes = bodies.reduce((s, b) => s + Buffer.byteLength(b), 0);
let sink = 0;
for (const b of bodies) sink += parseComment(b).kind.length;
const t0 = performance.now();
let rounds = 0;
while (performance.now() - t0 < 3000) {
  for (const b of bodies) sink += parseComment(b).kind.length;
  rounds++;
}
const sec = (performance.now() - t0) / 1000;
console.log(`parse: ${((bytes * rounds) / 1e6 / sec).toFixed(1)} MB/s, ${Math.round((bodies.length * rounds) / sec)} comments/s (avg ${Math.round(bytes / bodies.length)} B) ${sink > 0 ? "" : "!"}`);
