import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

declare const CHECKPOST_VERSION: string | undefined;

/**
 * The package's version, read from its package.json at run time. src/cli, dist/cli and the bundle in
 * dist/cli-bundle all sit two folders below the package root, so one relative URL serves all three.
 */
export function packageVersion(): string {
  // The bundled CLI has it inlined at build time (scripts/bundle-cli.ts): no file read on every call.
  if (typeof CHECKPOST_VERSION === "string") return CHECKPOST_VERSION;
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown"; // a copied bundle without its package.json: --version says so rather than failing
  }
}

/**
 * A file shipped at the package's root (app.yml), as a path: found from this module the same way as
 * package.json above, so it works from a clone (src/cli), the compiled code and the bundled CLI alike,
 * whatever the working directory.
 */
export function packageFile(name: string): string {
  return fileURLToPath(new URL(`../../${name}`, import.meta.url));
}
