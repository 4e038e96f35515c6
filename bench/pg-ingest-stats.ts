/**
 * What PostgreSQL ran during the store comparison's ingest window, per delivery: statements (from
 * pg_stat_statements, which the server must preload: `bench/run.ts --only-stores --pg-stats`), their
 * server time, the rows and the WAL they wrote. The bot's own client time is in its CPU profile
 * (BENCH_BOT_NODE_OPTIONS="--cpu-prof …", bench/cpu-summary.ts); this is the server's side.
 */
import pg from "pg";

interface StatementRow {
  query: string;
  calls: string;
  total_exec_time: number;
  rows: string;
  wal_records: string;
  wal_bytes: string;
}

/** Reset the counters now (call just before the window); `report` reads them after it. */
export async function pgIngestStats(url: string): Promise<{ report(deliveries: number): Promise<string> }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  await c.query("SELECT pg_stat_statements_reset()");
  return {
    async report(deliveries) {
      try {
        const r = await c.query<StatementRow>(
          `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls::text, total_exec_time, rows::text, wal_records::text, wal_bytes::text
             FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
             ORDER BY total_exec_time DESC`,
        );
        const per = (x: number) => (deliveries ? x / deliveries : 0).toFixed(3);
        const sum = (f: (s: StatementRow) => number) => r.rows.reduce((a, s) => a + f(s), 0);
        const lines = [
          `PostgreSQL during the window, ${deliveries} deliveries: statements ${per(sum((s) => Number(s.calls)))}/delivery, server time ${per(sum((s) => s.total_exec_time))} ms/delivery, WAL ${per(sum((s) => Number(s.wal_bytes)))} B/delivery`,
          "calls/dlv  mean ms   total ms   rows/call  WAL B/call  statement",
        ];
        for (const s of r.rows.slice(0, 12)) {
          const calls = Number(s.calls);
          lines.push(
            `${per(calls).padEnd(10)} ${(s.total_exec_time / calls).toFixed(3).padEnd(9)} ${s.total_exec_time.toFixed(0).padEnd(10)} ${(Number(s.rows) / calls).toFixed(1).padEnd(10)} ${(Number(s.wal_bytes) / calls).toFixed(0).padEnd(11)} ${s.query.slice(0, 110)}`,
          );
        }
        return lines.join("\n");
      } finally {
        await c.end();
      }
    },
  };
}
