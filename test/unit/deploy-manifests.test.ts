// deploy/Dockerfile and deploy/kubernetes.yaml must agree with the env schema, the served routes and package.json.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import * as z from "zod";
import { apiRoutes } from "../../src/bot/api/api-routes.ts";
import { BotEnvSchema, botConfigFromEnv, loadBotEnv } from "../../src/config/bot-env.ts";

const root = new URL("../../", import.meta.url);
const read = (p: string) => readFileSync(new URL(p, root), "utf8");
const known = new Set(Object.keys(BotEnvSchema.shape));

const EnvVar = z.object({
  name: z.string(),
  value: z.string().optional(),
  valueFrom: z.object({ secretKeyRef: z.object({ name: z.string(), key: z.string() }).optional(), fieldRef: z.object({ fieldPath: z.string() }).optional() }).optional(),
});
const Probe = z.object({ httpGet: z.object({ path: z.string(), port: z.union([z.string(), z.number()]) }) });
const Deployment = z.object({
  kind: z.literal("Deployment"),
  spec: z.object({
    replicas: z.number(),
    template: z.object({
      spec: z.object({
        containers: z.array(
          z.object({
            ports: z.array(z.object({ name: z.string(), containerPort: z.number() })),
            env: z.array(EnvVar),
            livenessProbe: Probe,
            readinessProbe: Probe,
          }),
        ),
      }),
    }),
  }),
});
const Service = z.object({ kind: z.literal("Service"), spec: z.object({ ports: z.array(z.object({ port: z.number(), targetPort: z.union([z.string(), z.number()]) })) }) });

const docs = parseAllDocuments(read("deploy/kubernetes.yaml")).map((d) => d.toJS() as unknown);
const deployment = Deployment.parse(docs.find((d) => (d as { kind?: string }).kind === "Deployment"));
const service = Service.parse(docs.find((d) => (d as { kind?: string }).kind === "Service"));
const ConfigMap = z.object({ kind: z.literal("ConfigMap"), data: z.record(z.string(), z.string()) });
const settings = ConfigMap.parse(docs.find((d) => (d as { kind?: string }).kind === "ConfigMap")).data;
const container = deployment.spec.template.spec.containers[0]!;
const dockerfile = read("deploy/Dockerfile");
/** ENV NAME=value pairs of the final stage (after the last FROM), continuation lines joined. */
const finalStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM ")).replace(/\\\n\s*/g, " ");
const dockerEnv = Object.fromEntries(
  finalStage
    .split("\n")
    .filter((l) => l.startsWith("ENV "))
    .flatMap((l) => [...l.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)].map((m) => [m[1] as string, m[2] as string])),
);

describe("deployment manifests", () => {
  it("set only variables the bot reads (or Node's own)", () => {
    const names = [...container.env.map((e) => e.name), ...Object.keys(dockerEnv), ...Object.keys(settings)];
    const node = new Set(["NODE_ENV", "MALLOC_ARENA_MAX"]);
    expect(names.filter((n) => !known.has(n) && !node.has(n))).toEqual([]);
  });

  it("give a configuration the bot accepts, scaled out on PostgreSQL, secrets from a Secret", () => {
    const env: Record<string, string> = { ...dockerEnv, ...settings };
    for (const e of container.env) {
      if (e.value !== undefined) env[e.name] = e.value;
      else if (e.valueFrom?.secretKeyRef) env[e.name] = e.name === "CHECKPOST_DATABASE_URL" ? "postgres://u:p@db:5432/checkpost" : "s3cret-placeholder-0123456789abcdef";
      else if (e.valueFrom?.fieldRef) env[e.name] = "checkpost-7d9f-abcde";
    }
    const config = botConfigFromEnv(loadBotEnv(env), { url: env["FORGEJO_URL"] ?? "", token: env["FORGEJO_TOKEN"] ?? "" });
    expect(config.database).toMatchObject({ url: "postgres://u:p@db:5432/checkpost", replicaId: "checkpost-7d9f-abcde" });
    expect(config.host).toBe("0.0.0.0");
    expect(config.trustedAuthors).toEqual(["agent-1"]);
    for (const secret of ["FORGEJO_TOKEN", "WEBHOOK_SECRET", "CHECKPOST_API_TOKEN", "CHECKPOST_SIGNING_KEY", "CHECKPOST_DATABASE_URL"])
      expect(container.env.find((e) => e.name === secret)?.valueFrom?.secretKeyRef, `${secret} from a Secret`).toBeDefined();
    expect(deployment.spec.replicas).toBeGreaterThan(1);
  });

  it("probe routes the bot serves, on the port it listens on, behind the Service", () => {
    expect(Object.keys(apiRoutes)).toEqual(expect.arrayContaining([container.livenessProbe.httpGet.path, container.readinessProbe.httpGet.path]));
    expect(container.readinessProbe.httpGet.path).toBe("/readyz");
    const port = container.ports.find((p) => p.name === container.readinessProbe.httpGet.port);
    expect(port?.containerPort).toBe(Number(container.env.find((e) => e.name === "PORT")?.value ?? dockerEnv["PORT"]));
    expect(service.spec.ports[0]?.targetPort).toBe(port?.name);
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${port?.containerPort}$`, "m"));
  });

  it("run the image the way `npm start` runs the bot", () => {
    // npm start (scripts/start.mjs) runs the bot with the node arguments and env of scripts/bot-command.json.
    const bot = JSON.parse(read("scripts/bot-command.json")) as { nodeArgs: string[]; env: Record<string, string> };
    expect(bot.nodeArgs.some((a) => a.endsWith(".js"))).toBe(true);
    expect(dockerfile).toContain(`CMD ${JSON.stringify(["node", ...bot.nodeArgs]).replaceAll(",", ", ")}`);
    for (const [name, value] of Object.entries(bot.env)) expect(dockerEnv[name]).toBe(value);
    // The image builds what `npm run build` needs.
    const build = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts["build"] ?? "";
    for (const f of build.match(/scripts\/[\w-]+\.ts|tsconfig[\w.]*\.json/g) ?? []) expect(dockerfile, f).toMatch(new RegExp(`COPY [^\n]*${f.split("/")[0]}`));
  });

  it("are explained in docs/scale-out.md, with every scale-out variable", () => {
    const doc = read("docs/scale-out.md");
    for (const v of ["CHECKPOST_DATABASE_URL", "CHECKPOST_LEASE_TTL_MS", "CHECKPOST_FEED_INTERVAL_MS", "CHECKPOST_REPLICA_ID"]) {
      expect(known.has(v), v).toBe(true);
      expect(doc, v).toContain(v);
    }
    expect(doc).toContain("deploy/kubernetes.yaml");
    expect(doc).toContain("deploy/Dockerfile");
  });
});
