import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** The bot's Prometheus metrics, on their own registry (no global state). */
export function createBotMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "checkpost_" });
  return {
    registry,
    deliveries: new Counter({ name: "checkpost_webhook_deliveries_total", help: "Webhook deliveries by event and result", labelNames: ["event", "result"], registers: [registry] }),
    handleSeconds: new Histogram({
      name: "checkpost_webhook_handle_seconds",
      help: "Time to handle one delivery",
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5],
      registers: [registry],
    }),
    dashboardWrites: new Counter({
      name: "checkpost_dashboard_writes_total",
      help: "Dashboard writes by result (written, unchanged, failed, repaired, not_writer, held)",
      labelNames: ["result"],
      registers: [registry],
    }),
    polls: new Counter({
      name: "checkpost_polls_total",
      help: "Polls by kind (incremental, reconcile; follower: a follower read while the leader lease lapses) and result",
      labelNames: ["kind", "result"],
      registers: [registry],
    }),
    comments: new Gauge({ name: "checkpost_comments", help: "Live comments held in the projection", labelNames: ["issue"], registers: [registry] }),
    agents: new Gauge({ name: "checkpost_agents", help: "Agent sessions by liveness", labelNames: ["liveness"], registers: [registry] }),
    anomalies: new Gauge({ name: "checkpost_anomalies", help: "Anomalies currently shown", labelNames: ["issue"], registers: [registry] }),
    transitions: new Counter({ name: "checkpost_liveness_transitions_total", help: "Liveness transitions", labelNames: ["to"], registers: [registry] }),
    leasesHeld: new Gauge({ name: "checkpost_leases_held", help: "Session issues this replica leads (shared store only)", registers: [registry] }),
    leaseChanges: new Counter({ name: "checkpost_lease_changes_total", help: "Leases released by this replica to spread them (shared store only)", labelNames: ["change"], registers: [registry] }),
    controls: new Counter({
      name: "checkpost_controls_total",
      help: "People's commands (dashboard checkboxes, /checkpost comments) by action and result (accepted, refused: no write access, invalid)",
      labelNames: ["action", "result"],
      registers: [registry],
    }),
    resumes: new Counter({ name: "checkpost_resume_requests_total", help: "Resume API requests by result", labelNames: ["result"], registers: [registry] }),
  };
}
export type BotMetrics = ReturnType<typeof createBotMetrics>;
