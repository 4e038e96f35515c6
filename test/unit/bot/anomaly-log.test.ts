import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { AnomalyLog } from "../../../src/bot/anomaly-log.ts";
import { createLogger } from "../../../src/log/create-logger.ts";
import { createProjection } from "../../../src/projection/index.ts";
import type { CommentRecord } from "../../../src/projection/index.ts";
import { comment, cpBody, policy } from "../projection/build-comments.ts";

/** A pino logger (the bot's, JSON lines) whose output is kept as parsed lines. */
function captured() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    pretty: false,
    destination: new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        cb();
      },
    }),
  }).child({ issue: "agent/work#1" });
  return { logger, lines, anomalies: () => lines.filter((l) => typeof l["msg"] === "string" && (l["msg"] as string).startsWith("anomaly: ")) };
}

const zombieWorld: CommentRecord[] = [
  comment(1, cpBody({ phase: "clone_complete", id: "cp-000000000001", seq: 1, epoch: 2 })),
  comment(2, cpBody({ phase: "old", id: "cp-000000000002", seq: 2, epoch: 1 })),
  comment(3, "[CHECKPOINT] implementation-worker\nSession: s1\nno json here"),
  comment(4, cpBody({ phase: "x" }), { author: "mallory" }),
];

describe("AnomalyLog: each distinct anomaly once per process", () => {
  it("logs a zombie, an invalid body and an untrusted author once, however often the projection re-derives or re-reads", () => {
    const { logger, anomalies } = captured();
    const log = new AnomalyLog();
    const p = createProjection(policy);
    for (const c of zombieWorld) p.apply({ type: "upsert", comment: c });
    expect(log.note(logger, "agent/work#1", p.anomalies())).toBe(3);
    // A reconcile re-reads everything; a later comment makes every entry re-derive: nothing is logged again.
    p.replaceAll(zombieWorld);
    log.note(logger, "agent/work#1", p.anomalies());
    p.apply({ type: "upsert", comment: comment(5, cpBody({ phase: "commit_complete", id: "cp-000000000005", seq: 2, epoch: 2 })) });
    expect(log.note(logger, "agent/work#1", p.anomalies())).toBe(0);
    const lines = anomalies();
    expect(lines.map((l) => [l["kind"], l["commentId"]])).toEqual([
      ["zombie", 2],
      ["invalid", 3],
      ["untrusted-author", 4],
    ]);
    // One key per name: the issue comes from the tracker's child logger, not again from the line.
    expect(lines.every((l) => l["issue"] === "agent/work#1" && l["level"] === 40)).toBe(true);
    expect(lines[0]?.["msg"]).toMatch(/^anomaly: epoch 1 is below epoch 2/);
  });

  it("an untrusted author's further comments are the same anomaly (one line per author, not per comment)", () => {
    const { logger, anomalies } = captured();
    const log = new AnomalyLog();
    const p = createProjection(policy);
    for (let id = 1; id <= 50; id++) {
      p.apply({ type: "upsert", comment: comment(id, cpBody({ phase: `p${id}` }), { author: id % 2 ? "mallory" : "Eve" }) });
      log.note(logger, "agent/work#1", p.anomalies());
    }
    expect(anomalies().map((l) => String(l["msg"]).split(". ")[0])).toEqual([
      "anomaly: 1 protocol comment by mallory, who is not a trusted author; ignored",
      "anomaly: 1 protocol comment by Eve, who is not a trusted author; ignored",
    ]);
  });

  it("an ignored author's line names the exact setting that admits it (CHECKPOST_TRUSTED_AUTHORS as the bot has it)", () => {
    const { logger, anomalies } = captured();
    const log = new AnomalyLog(undefined, ["ci-bot"]);
    const p = createProjection(policy);
    p.apply({ type: "upsert", comment: comment(1, cpBody({ phase: "p" }), { author: "agent-1" }) });
    log.note(logger, "agent/work#1", p.anomalies());
    const [line] = anomalies();
    expect(line?.["msg"]).toContain("set CHECKPOST_TRUSTED_AUTHORS=ci-bot,agent-1 on the bot and on every agent");
    expect(line?.["fix"]).toMatch(/^checkpoints by agent-1 are ignored: not a trusted author\./);
  });

  it("the same comment on another issue is another anomaly; a new anomaly on the same comment is logged", () => {
    const { logger, anomalies } = captured();
    const log = new AnomalyLog();
    const a = { kind: "zombie", commentId: 7, agent: "w", session: "s", detail: "z" } as const;
    log.note(logger, "o/r#1", [a]);
    log.note(logger, "o/r#2", [a]);
    log.note(logger, "o/r#1", [a, { ...a, kind: "deleted-checkpoint", detail: "gone" }]);
    expect(anomalies().map((l) => [l["kind"], l["msg"]])).toEqual([
      ["zombie", "anomaly: z"],
      ["zombie", "anomaly: z"],
      ["deleted-checkpoint", "anomaly: gone"],
    ]);
  });

  it("remembers a bounded number of anomalies: past the bound the oldest is forgotten", () => {
    const { logger, anomalies } = captured();
    const log = new AnomalyLog(3);
    const an = (id: number) => ({ kind: "invalid", commentId: id, agent: null, session: null, detail: `bad ${id}` }) as const;
    log.note(logger, "o/r#1", [1, 2, 3, 4].map(an));
    // 2..4 are remembered; 1 was forgotten, so it is logged again (and then 2 is the oldest).
    expect(log.note(logger, "o/r#1", [2, 3, 4].map(an))).toBe(0);
    expect(log.note(logger, "o/r#1", [an(1)])).toBe(1);
    expect(log.note(logger, "o/r#1", [3, 4, 1].map(an))).toBe(0);
    expect(anomalies()).toHaveLength(5);
  });
});
