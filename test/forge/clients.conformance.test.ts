/**
 * Conformance of the embedded forge as two third-party clients see it: gitea-js 1.23 and
 * @llamaduck/forgejo-ts 15.0 each run the whole scenario (test/forge/conformance/scenario.ts) through a
 * recording proxy, and every exchange is checked at run time against Forgejo v13.0.5's swagger
 * (conformance/check.ts). A mismatch passes only when conformance/divergences.ts explains it.
 * The route list is the router's own (FORGE_ROUTES): a route added without a conformance case is not
 * exercised by the clients, and this suite fails.
 */
import { afterAll, describe, expect, it } from "vitest";
import { checkExchange, exercised, type Finding, IMPLEMENTED } from "./conformance/check.ts";
import { FORGE_GAPS, SPEC_DIVERGENCES } from "./conformance/divergences.ts";
import { type Driver, forgejoTs, giteaJs } from "./conformance/drivers.ts";
import { type Exchange, startRecordingProxy } from "./conformance/proxy.ts";
import { runScenario } from "./conformance/scenario.ts";
import { seededForge } from "./helpers.ts";

const CLIENTS: Record<string, (url: string) => Driver> = { "gitea-js": giteaJs, "forgejo-ts": forgejoTs };
const results = new Map<string, { exchanges: Exchange[]; findings: Finding[] }>();

async function runClient(name: string): Promise<{ exchanges: Exchange[]; findings: Finding[] }> {
  const s = await seededForge();
  s.forge.admin.createUser("carol");
  const carol = s.forge.admin.createToken("carol");
  const proxy = await startRecordingProxy(s.forge.url);
  proxy.setClient(name);
  try {
    await runScenario({ ...s, carol }, CLIENTS[name]!(proxy.url));
    // Raw requests no client can make: a method Forgejo does not route, an upload without its file.
    proxy.setClient("fetch");
    await fetch(`${proxy.url}/api/v1/version`, { method: "PUT" });
    await fetch(`${proxy.url}/api/v1/repos/alice/widgets/issues/1/assets`, {
      method: "POST",
      headers: { authorization: `token ${s.alice}`, "content-type": "multipart/form-data; boundary=b" },
      body: '--b\r\nContent-Disposition: form-data; name="other"; filename="x.gz"\r\n\r\nx\r\n--b--\r\n',
    });
    await fetch(`${proxy.url}/api/v1/no/such/route`);
  } finally {
    await proxy.close();
    await s.forge.close();
  }
  const findings = proxy.exchanges.flatMap(checkExchange);
  return { exchanges: proxy.exchanges, findings };
}

describe.each(Object.keys(CLIENTS))("the embedded forge through %s", (name) => {
  it("runs the scenario; every answer conforms or is an explained divergence", async () => {
    const r = await runClient(name);
    results.set(name, r);
    const unexplained = r.findings.filter((f) => !f.explainedBy).map((f) => `${f.exchange.method} ${f.exchange.url} → ${f.exchange.status}: ${f.problem}`);
    expect(unexplained).toEqual([]);
    expect(r.exchanges.filter((x) => x.client === name).length).toBeGreaterThan(100);
  }, 60_000);

  it("exercises every route of the router (a new route without a conformance case fails here)", () => {
    const r = results.get(name);
    expect(r, "the scenario ran").toBeDefined();
    const seen = exercised(r!.exchanges.filter((x) => x.client === name));
    expect(IMPLEMENTED.filter((id) => !seen.has(id))).toEqual([]);
  });
});

describe("the conformance checks themselves", () => {
  it("flag an invented key, an undeclared status, a missing nosniff and a JSON 404 for an unknown route", () => {
    const base = { client: "t", requestContentType: "", headers: { "content-type": "application/json;charset=utf-8", "x-content-type-options": "nosniff" } };
    const invented: Exchange = { ...base, method: "GET", url: "/api/v1/version", status: 200, body: Buffer.from('{"version":"x","invented":1}') };
    expect(
      checkExchange(invented)
        .map((f) => f.problem)
        .join(),
    ).toMatch(/does not match the swagger/);
    const teapot: Exchange = { ...base, method: "GET", url: "/api/v1/version", status: 418, body: Buffer.from('{"message":"x","url":"u"}') };
    expect(checkExchange(teapot).filter((f) => !f.explainedBy)).not.toEqual([]);
    const sniffable: Exchange = { ...base, headers: { "content-type": "application/json;charset=utf-8" }, method: "GET", url: "/api/v1/version", status: 200, body: Buffer.from('{"version":"x"}') };
    expect(
      checkExchange(sniffable)
        .map((f) => f.problem)
        .join(),
    ).toMatch(/nosniff/);
    const jsonUnknown: Exchange = { ...base, method: "GET", url: "/api/v1/nope", status: 404, body: Buffer.from('{"message":"x"}') };
    expect(
      checkExchange(jsonUnknown)
        .map((f) => f.problem)
        .join(),
    ).toMatch(/unknown route/);
  });

  it("every divergence is used or documented as schema-level only", () => {
    const used = new Set([...results.values()].flatMap((r) => r.findings.map((f) => f.explainedBy?.id)));
    const recordOnly = new Set(["go-nulls", "user-username"]);
    expect(SPEC_DIVERGENCES.filter((d) => !used.has(d.id) && !recordOnly.has(d.id)).map((d) => d.id)).toEqual([]);
  });
});

afterAll(() => {
  // The coverage figure (docs/forge.md quotes it).
  const lines = [`conformance: ${IMPLEMENTED.length} endpoints implemented by the embedded forge (Forgejo v13.0.5 API)`];
  for (const [name, r] of results) {
    const seen = exercised(r.exchanges.filter((x) => x.client === name));
    const explained = r.findings.filter((f) => f.explainedBy).length;
    lines.push(`  ${name}: ${seen.size}/${IMPLEMENTED.length} exercised, ${r.exchanges.length} exchanges checked, ${explained} explained divergences, ${r.findings.length - explained} unexplained`);
  }
  lines.push(`  divergences listed: ${SPEC_DIVERGENCES.length} from the swagger, ${FORGE_GAPS.length} known gaps (test/forge/conformance/divergences.ts)`);
  console.log(lines.join("\n"));
});
