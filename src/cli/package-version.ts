import { readFileSync } from "node:fs";

/**
 * The package's version, read from its package.json at run time. src/cli, dist/cli and the bundle in
 * dist/cli-bundle all sit two folders below the package root, so one relative URL serves all three.
 */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown"; // a copied bundle without its package.json: --version says so rather than failing
  }
}
