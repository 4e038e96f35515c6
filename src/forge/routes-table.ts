/** The API routes this server answers, as swagger path templates under basePath /api/v1. */
export interface RouteSpec {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** Swagger path template, e.g. "/repos/{owner}/{repo}/issues/{index}". */
  path: string;
  /** Stable id used by stats and fault matching: "METHOD path". */
  id: string;
}

function r(method: RouteSpec["method"], path: string): RouteSpec {
  return { method, path, id: `${method} ${path}` };
}

export const FORGE_ROUTES: readonly RouteSpec[] = [
  r("GET", "/version"),
  r("GET", "/user"),
  r("POST", "/user/repos"),
  r("GET", "/repos/{owner}/{repo}"),
  r("GET", "/repos/{owner}/{repo}/issues"),
  r("POST", "/repos/{owner}/{repo}/issues"),
  r("GET", "/repos/{owner}/{repo}/issues/comments/{id}"),
  r("PATCH", "/repos/{owner}/{repo}/issues/comments/{id}"),
  r("DELETE", "/repos/{owner}/{repo}/issues/comments/{id}"),
  r("GET", "/repos/{owner}/{repo}/issues/{index}"),
  r("PATCH", "/repos/{owner}/{repo}/issues/{index}"),
  r("GET", "/repos/{owner}/{repo}/issues/{index}/comments"),
  r("POST", "/repos/{owner}/{repo}/issues/{index}/comments"),
  r("GET", "/repos/{owner}/{repo}/issues/{index}/assets"),
  r("POST", "/repos/{owner}/{repo}/issues/{index}/assets"),
  r("GET", "/repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}"),
  r("GET", "/repos/{owner}/{repo}/issues/{index}/labels"),
  r("POST", "/repos/{owner}/{repo}/issues/{index}/labels"),
  r("GET", "/repos/{owner}/{repo}/labels"),
  r("POST", "/repos/{owner}/{repo}/labels"),
  r("GET", "/repos/{owner}/{repo}/collaborators"),
  r("GET", "/repos/{owner}/{repo}/collaborators/{collaborator}/permission"),
  r("GET", "/repos/{owner}/{repo}/hooks"),
  r("POST", "/repos/{owner}/{repo}/hooks"),
  r("GET", "/repos/{owner}/{repo}/hooks/{id}"),
  r("DELETE", "/repos/{owner}/{repo}/hooks/{id}"),
];

interface Compiled {
  spec: RouteSpec;
  re: RegExp;
  names: string[];
}

const compiled: Compiled[] = FORGE_ROUTES.map((spec) => {
  const names: string[] = [];
  const src = spec.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { spec, re: new RegExp(`^${src}$`), names };
});

/** Match an API path (without /api/v1). `methodAllowed` is false when the path exists for another method. */
export function matchRoute(method: string, path: string): { spec: RouteSpec; params: Record<string, string> } | { spec: null; pathExists: boolean } {
  let pathExists = false;
  for (const c of compiled) {
    const m = c.re.exec(path);
    if (!m) continue;
    // "comments" is a literal segment: /issues/comments/{id} must not be read as /issues/{index}/...
    if (c.names.includes("index") && m[c.names.indexOf("index") + 1] === "comments") continue;
    pathExists = true;
    if (c.spec.method !== method) continue;
    const params: Record<string, string> = {};
    c.names.forEach((n, i) => {
      params[n] = decodeURIComponent(m[i + 1]!);
    });
    return { spec: c.spec, params };
  }
  return { spec: null, pathExists };
}
