/**
 * Conformance: every response of the embedded forge is checked against swagger.v1.json (Forgejo v13.0.5):
 * (a) the operation (method + path template) exists and every query parameter used is declared for it,
 * (b) the status is declared for the operation (or is one of the documented middleware exceptions below),
 * (c) the body validates against the declared schema (additionalProperties closed to catch invented keys).
 */
import type { ValidateFunction } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORGE_ROUTES } from "../../src/embedded-forge/index.ts";
import { FORGEJO_METHODS } from "../../src/embedded-forge/routes-table.ts";
import { api, asArray, asRecord, seededForge, type Reply, type Seeded } from "./helpers.ts";
import { namedResponseValidator, operation, queryParams, responseValidator, swagger } from "./spec.ts";

/**
 * Statuses Forgejo's middleware answers that the per-operation swagger responses omit:
 * 401 from apiAuth/reqToken (the spec only declares global "security"), 403 from reqAdmin/reqRepoWriter,
 * 422 from bind() on bodies, 404 from commentAssignment on DELETE. Validated against the named response.
 */
const MIDDLEWARE_EXCEPTIONS: Record<number, string> = {
  401: "unauthorized",
  403: "forbidden",
  404: "notFound",
  422: "validationError",
};

const hitRoutes = new Set<string>();
const checkedStatuses: string[] = [];

let s: Seeded;
beforeAll(async () => {
  s = await seededForge();
  s.forge.admin.createLabel("alice", "widgets", { name: "bug", color: "#ee0701" });
  s.forge.admin.createLabel("alice", "widgets", { name: "prio", color: "00ff00" });
});
afterAll(async () => {
  await s.forge.close();
});

/** Call a route and run checks (a)–(c). `template` is the swagger path, `path` the concrete one. */
async function call(method: string, template: string, path: string, opts: { token?: string; body?: unknown; rawBody?: string; contentType?: string } = {}): Promise<Reply> {
  const op = operation(method, template);
  expect(op, `${method} ${template} in swagger paths`).toBeDefined();
  const url = new URL(`http://x${path}`);
  const declared = queryParams(op!);
  for (const name of url.searchParams.keys()) expect(declared, `${method} ${template} declares ?${name}`).toContain(name);
  const reply = await api(s.forge, method, path, opts);
  hitRoutes.add(`${method} ${template}`);
  checkedStatuses.push(`${method} ${template} ${reply.status}`);
  const responses = op!.responses as Record<string, unknown>;
  let validate: ValidateFunction | null;
  if (responses[String(reply.status)] !== undefined) validate = responseValidator(op!, reply.status);
  else {
    const named = MIDDLEWARE_EXCEPTIONS[reply.status];
    expect(named, `${method} ${template} status ${reply.status} declared or excepted`).toBeDefined();
    validate = namedResponseValidator(named!);
  }
  if (reply.text.length === 0) {
    // ctx.Status(403)/204: Forgejo sends no body; nothing to validate.
    expect([204, 403]).toContain(reply.status);
  } else if (validate) {
    const ok = validate(reply.json);
    expect(ok, `${method} ${path} ${reply.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
  if (reply.json !== undefined) expect(reply.headers.get("content-type")).toBe("application/json;charset=utf-8");
  return reply;
}

describe("conformance with swagger.v1.json", () => {
  it("every FORGE_ROUTES entry exists in the spec", () => {
    for (const r of FORGE_ROUTES) expect(operation(r.method, r.path), r.id).toBeDefined();
  });

  it("drives every route, including error statuses", async () => {
    const { alice, bob, root } = s;
    await call("GET", "/version", "/version");
    expect(asRecord((await call("GET", "/user", "/user", { token: alice })).json).login).toBe("alice");
    expect((await call("GET", "/user", "/user")).status).toBe(401);
    expect((await call("GET", "/user", "/user", { token: "0".repeat(40) })).status).toBe(401);
    expect((await call("POST", "/user/repos", "/user/repos", { token: bob, body: { name: "tools" } })).status).toBe(201);
    expect((await call("POST", "/user/repos", "/user/repos", { token: bob, body: { name: "tools" } })).status).toBe(409);
    expect((await call("POST", "/user/repos", "/user/repos", { token: bob, body: {} })).status).toBe(422);

    expect((await call("GET", "/repos/{owner}/{repo}", "/repos/alice/widgets")).status).toBe(200);
    expect((await call("GET", "/repos/{owner}/{repo}", "/repos/alice/nothing")).status).toBe(404);
    expect((await call("GET", "/repos/{owner}/{repo}", "/repos/alice/secret", { token: bob })).status).toBe(404);
    expect((await call("GET", "/repos/{owner}/{repo}", "/repos/alice/secret", { token: alice })).status).toBe(200);

    const labels = asArray((await call("GET", "/repos/{owner}/{repo}/labels", "/repos/alice/widgets/labels?page=1&limit=10")).json);
    expect(labels).toHaveLength(2);
    expect((await call("POST", "/repos/{owner}/{repo}/labels", "/repos/alice/widgets/labels", { token: alice, body: { name: "docs", color: "#0000ff" } })).status).toBe(201);
    expect((await call("POST", "/repos/{owner}/{repo}/labels", "/repos/alice/widgets/labels", { token: alice, body: { name: "x", color: "nope" } })).status).toBe(422);
    expect((await call("POST", "/repos/{owner}/{repo}/labels", "/repos/alice/widgets/labels", { token: bob, body: { name: "y", color: "#000000" } })).status).toBe(403);

    const created = await call("POST", "/repos/{owner}/{repo}/issues", "/repos/alice/widgets/issues", { token: alice, body: { title: "First <issue>", body: "Body & more", labels: [1] } });
    expect(created.status).toBe(201);
    expect((await call("POST", "/repos/{owner}/{repo}/issues", "/repos/alice/widgets/issues", { token: alice, body: { body: "no title" } })).status).toBe(422);
    expect((await call("POST", "/repos/{owner}/{repo}/issues", "/repos/alice/widgets/issues", { body: { title: "anon" } })).status).toBe(401);
    expect((await call("POST", "/repos/{owner}/{repo}/issues", "/repos/alice/secret/issues", { token: bob, body: { title: "hidden" } })).status).toBe(404);

    const list = await call(
      "GET",
      "/repos/{owner}/{repo}/issues",
      "/repos/alice/widgets/issues?state=all&labels=bug&type=issues&q=first&sort=oldest&page=1&limit=5&since=2000-01-01T00:00:00Z&before=2999-01-01T00:00:00Z&created_by=alice",
    );
    expect(asArray(list.json)).toHaveLength(1);
    expect((await call("GET", "/repos/{owner}/{repo}/issues", "/repos/alice/widgets/issues?since=yesterday")).status).toBe(422);
    expect((await call("GET", "/repos/{owner}/{repo}/issues", "/repos/alice/widgets/issues?created_by=ghost")).status).toBe(404);

    expect((await call("GET", "/repos/{owner}/{repo}/issues/{index}", "/repos/alice/widgets/issues/1")).status).toBe(200);
    expect((await call("GET", "/repos/{owner}/{repo}/issues/{index}", "/repos/alice/widgets/issues/99")).status).toBe(404);
    expect((await call("PATCH", "/repos/{owner}/{repo}/issues/{index}", "/repos/alice/widgets/issues/1", { token: alice, body: { body: "edited" } })).status).toBe(201);
    expect((await call("PATCH", "/repos/{owner}/{repo}/issues/{index}", "/repos/alice/widgets/issues/1", { token: bob, body: { title: "hijack" } })).status).toBe(403);
    expect((await call("PATCH", "/repos/{owner}/{repo}/issues/{index}", "/repos/alice/widgets/issues/99", { token: alice, body: { title: "x" } })).status).toBe(404);

    const comment = asRecord((await call("POST", "/repos/{owner}/{repo}/issues/{index}/comments", "/repos/alice/widgets/issues/1/comments", { token: bob, body: { body: "hello" } })).json);
    expect((await call("POST", "/repos/{owner}/{repo}/issues/{index}/comments", "/repos/alice/widgets/issues/1/comments", { token: bob, body: { body: "" } })).status).toBe(422);
    expect((await call("POST", "/repos/{owner}/{repo}/issues/{index}/comments", "/repos/alice/widgets/issues/1/comments", { body: { body: "anon" } })).status).toBe(401);
    expect((await call("POST", "/repos/{owner}/{repo}/issues/{index}/comments", "/repos/alice/widgets/issues/42/comments", { token: bob, body: { body: "x" } })).status).toBe(404);
    const locked = s.forge.admin.createIssue("alice", "widgets", { title: "Locked", locked: true });
    expect((await call("POST", "/repos/{owner}/{repo}/issues/{index}/comments", `/repos/alice/widgets/issues/${locked.number}/comments`, { token: bob, body: { body: "x" } })).status).toBe(403);
    expect((await call("POST", "/repos/{owner}/{repo}/issues/{index}/comments", "/repos/alice/secret/issues/1/comments", { token: bob, body: { body: "x" } })).status).toBe(404);

    expect(
      asArray((await call("GET", "/repos/{owner}/{repo}/issues/{index}/comments", "/repos/alice/widgets/issues/1/comments?since=2000-01-01T00:00:00Z&before=2999-01-01T00:00:00Z")).json),
    ).toHaveLength(1);
    expect((await call("GET", "/repos/{owner}/{repo}/issues/{index}/comments", "/repos/alice/widgets/issues/1/comments?before=bad")).status).toBe(422);
    expect((await call("GET", "/repos/{owner}/{repo}/issues/{index}/comments", "/repos/alice/widgets/issues/77/comments")).status).toBe(404);

    const cid = Number(comment.id);
    expect((await call("GET", "/repos/{owner}/{repo}/issues/comments/{id}", `/repos/alice/widgets/issues/comments/${cid}`)).status).toBe(200);
    expect((await call("GET", "/repos/{owner}/{repo}/issues/comments/{id}", "/repos/alice/widgets/issues/comments/9999")).status).toBe(404);
    expect((await call("PATCH", "/repos/{owner}/{repo}/issues/comments/{id}", `/repos/alice/widgets/issues/comments/${cid}`, { token: bob, body: { body: "hello again" } })).status).toBe(200);
    expect((await call("PATCH", "/repos/{owner}/{repo}/issues/comments/{id}", `/repos/alice/widgets/issues/comments/${cid}`, { token: root, body: { body: "" } })).status).toBe(422);
    const other = asRecord((await api(s.forge, "POST", "/repos/alice/widgets/issues/1/comments", { token: alice, body: { body: "alice's" } })).json);
    expect((await call("PATCH", "/repos/{owner}/{repo}/issues/comments/{id}", `/repos/alice/widgets/issues/comments/${String(other.id)}`, { token: bob, body: { body: "mine now" } })).status).toBe(
      403,
    );
    expect((await call("DELETE", "/repos/{owner}/{repo}/issues/comments/{id}", `/repos/alice/widgets/issues/comments/${String(other.id)}`, { token: bob })).status).toBe(403);
    expect((await call("DELETE", "/repos/{owner}/{repo}/issues/comments/{id}", `/repos/alice/widgets/issues/comments/${cid}`, { token: bob })).status).toBe(204);
    expect((await call("DELETE", "/repos/{owner}/{repo}/issues/comments/{id}", `/repos/alice/widgets/issues/comments/${cid}`, { token: bob })).status).toBe(404);

    expect(asArray((await call("GET", "/repos/{owner}/{repo}/issues/{index}/labels", "/repos/alice/widgets/issues/1/labels")).json)).toHaveLength(1);
    expect(
      asArray((await call("POST", "/repos/{owner}/{repo}/issues/{index}/labels", "/repos/alice/widgets/issues/1/labels", { token: alice, body: { labels: ["prio", "unknown"] } })).json),
    ).toHaveLength(2);
    expect((await call("POST", "/repos/{owner}/{repo}/issues/{index}/labels", "/repos/alice/widgets/issues/1/labels", { token: bob, body: { labels: [1] } })).status).toBe(403);
    // A label neither number nor string is a 400 (issue_label.go:362-372), which the operation does not declare.
    expect((await api(s.forge, "POST", "/repos/alice/widgets/issues/1/labels", { token: alice, body: { labels: [true] } })).status).toBe(400);
    expect((await call("POST", "/repos/{owner}/{repo}/issues/{index}/labels", "/repos/alice/widgets/issues/1/labels", { token: alice, body: { labels: "x" } })).status).toBe(422);

    const assets = "/repos/{owner}/{repo}/issues/{index}/assets";
    const multipart = (field: string) => ({
      contentType: "multipart/form-data; boundary=b",
      rawBody: `--b\r\nContent-Disposition: form-data; name="${field}"; filename="a.jsonl.gz"\r\nContent-Type: application/gzip\r\n\r\nxyz\r\n--b--\r\n`,
    });
    expect(asArray((await call("GET", assets, "/repos/alice/widgets/issues/1/assets")).json)).toHaveLength(0);
    const asset = asRecord((await call("POST", assets, "/repos/alice/widgets/issues/1/assets?name=archive.jsonl.gz", { token: alice, ...multipart("attachment") })).json);
    expect(asset).toMatchObject({ name: "archive.jsonl.gz", size: 3 });
    // No "attachment" file: ctx.Req.FormFile fails and Forgejo answers 500 (issue_attachment.go:194-198).
    expect((await api(s.forge, "POST", "/repos/alice/widgets/issues/1/assets", { token: alice, ...multipart("other") })).status).toBe(500);
    expect((await call("POST", assets, "/repos/alice/widgets/issues/1/assets", { ...multipart("attachment") })).status).toBe(401);
    // A missing issue answers ctx.NotFound's shape (with "errors"), which the spec's "error" response does not allow: source wins (test/forge/assets.test.ts).
    expect(asArray((await call("GET", assets, "/repos/alice/widgets/issues/1/assets")).json)).toHaveLength(1);
    expect((await call("GET", `${assets}/{attachment_id}`, `/repos/alice/widgets/issues/1/assets/${String(asset.id)}`)).status).toBe(200);

    const hookBody = { type: "forgejo", config: { url: "http://127.0.0.1:9/hook", content_type: "json", secret: "s3cret" }, events: ["issues", "issue_comment"], active: false };
    const hook = asRecord((await call("POST", "/repos/{owner}/{repo}/hooks", "/repos/alice/widgets/hooks", { token: alice, body: hookBody })).json);
    expect(JSON.stringify(hook)).not.toContain("s3cret");
    expect((await call("POST", "/repos/{owner}/{repo}/hooks", "/repos/alice/widgets/hooks", { token: alice, body: { ...hookBody, config: { url: "http://x" } } })).status).toBe(422);
    expect((await call("POST", "/repos/{owner}/{repo}/hooks", "/repos/alice/widgets/hooks", { token: bob, body: hookBody })).status).toBe(403);
    expect(asArray((await call("GET", "/repos/{owner}/{repo}/hooks", "/repos/alice/widgets/hooks?page=1&limit=10", { token: alice })).json)).toHaveLength(1);
    expect((await call("GET", "/repos/{owner}/{repo}/hooks", "/repos/alice/widgets/hooks")).status).toBe(401);
    expect((await call("GET", "/repos/{owner}/{repo}/hooks/{id}", `/repos/alice/widgets/hooks/${String(hook.id)}`, { token: alice })).status).toBe(200);
    expect((await call("GET", "/repos/{owner}/{repo}/hooks/{id}", "/repos/alice/widgets/hooks/777", { token: alice })).status).toBe(404);
    expect((await call("DELETE", "/repos/{owner}/{repo}/hooks/{id}", `/repos/alice/widgets/hooks/${String(hook.id)}`, { token: alice })).status).toBe(204);
    expect((await call("DELETE", "/repos/{owner}/{repo}/hooks/{id}", `/repos/alice/widgets/hooks/${String(hook.id)}`, { token: alice })).status).toBe(404);

    // Collaborators and one user's permission (the doctor and slash-command authorization read these).
    s.forge.admin.createUser("carol");
    s.forge.admin.addCollaborator("alice", "widgets", "carol", "write");
    const carol = s.forge.admin.createToken("carol");
    const collabs = asArray((await call("GET", "/repos/{owner}/{repo}/collaborators", "/repos/alice/widgets/collaborators?page=1&limit=10", { token: bob })).json);
    expect(collabs.map((u) => asRecord(u).login)).toEqual(["carol"]);
    expect((await call("GET", "/repos/{owner}/{repo}/collaborators", "/repos/alice/widgets/collaborators")).status).toBe(401);
    const perm = (who: string, token: string) => call("GET", "/repos/{owner}/{repo}/collaborators/{collaborator}/permission", `/repos/alice/widgets/collaborators/${who}/permission`, { token });
    const carolPerm = asRecord((await perm("carol", alice)).json);
    expect([carolPerm.permission, carolPerm.role_name, asRecord(carolPerm.user).login]).toEqual(["write", "write", "carol"]);
    expect(asRecord((await perm("alice", alice)).json).permission).toBe("owner");
    expect(asRecord((await perm("bob", root)).json).permission).toBe("read");
    // A site admin reads as "owner" (models/perm/access/repo_permission.go:225-226).
    expect(asRecord((await perm("root", alice)).json).permission).toBe("owner");
    expect(asRecord((await perm("carol", carol)).json).permission).toBe("write"); // asking about oneself
    expect((await perm("carol", bob)).status).toBe(403);
    expect((await perm("nobody", alice)).status).toBe(404);
    expect((await call("GET", "/repos/{owner}/{repo}/collaborators/{collaborator}/permission", "/repos/alice/widgets/collaborators/carol/permission")).status).toBe(401);

    // Malformed JSON is a binding error (422), like Forgejo's DeserializationError.
    expect((await call("POST", "/repos/{owner}/{repo}/issues", "/repos/alice/widgets/issues", { token: alice, rawBody: "{not json" })).status).toBe(422);
  });

  it("checked a real number of answers (every route is driven by test/forge/clients.conformance.test.ts)", () => {
    expect(hitRoutes.size).toBeGreaterThan(20);
    expect(checkedStatuses.length).toBeGreaterThan(55);
  });

  it("FORGEJO_METHODS lists exactly the swagger's methods of each routed path", () => {
    const paths = swagger.paths as Record<string, Record<string, unknown>>;
    for (const r of FORGE_ROUTES) {
      const methods = Object.keys(paths[r.path] ?? {})
        .filter((m) => m !== "parameters")
        .map((m) => m.toUpperCase())
        .sort();
      expect([...(FORGEJO_METHODS[r.path] ?? [])].sort(), r.path).toEqual(methods);
    }
  });

  it("the schema check can fail (invented keys, wrong types)", () => {
    const v = responseValidator(operation("GET", "/repos/{owner}/{repo}/issues/comments/{id}")!, 200)!;
    expect(v({ id: 1, body: "x" })).toBe(true);
    expect(v({ id: "1" })).toBe(false);
    expect(v({ id: 1, invented: true })).toBe(false);
  });

  it("answers unknown API paths as chi's NotFound does, and a method Forgejo lacks with 405", async () => {
    // Forgejo's API router sets no NotFound handler: chi's default is http.NotFound (plain text).
    const r = await api(s.forge, "GET", "/repos/alice/widgets/nothing-here");
    expect([r.status, r.text, r.headers.get("content-type"), r.headers.get("x-content-type-options")]).toEqual([404, "404 page not found\n", "text/plain; charset=utf-8", "nosniff"]);
    // A method Forgejo has on a path this server routes, but this server lacks: the same unknown-route answer.
    expect((await api(s.forge, "DELETE", "/repos/alice/widgets", { token: s.alice })).text).toBe("404 page not found\n");
    // A method Forgejo does not route either: chi's 405, empty, with Allow.
    const put = await api(s.forge, "PUT", "/version");
    expect([put.status, put.text, put.headers.get("allow")]).toEqual([405, "", "GET"]);
    // ctx.NotFound() is the APINotFound struct: message, url, errors (never null).
    const missing = await api(s.forge, "GET", "/repos/alice/nothing");
    expect(missing.text).toBe(`{"message":"The target couldn't be found.","url":"${s.forge.url}/api/swagger","errors":[]}\n`);
  });
});
