/**
 * The bot's and the embedded forge's packages: optional peer dependencies of checkpost, so that
 * `npm i checkpost` (library and CLI) installs none of them (docs/install.md). A command that needs
 * one and does not find it says which to install instead of a module-resolution stack.
 */
export const OPTIONAL_PACKAGES = ["better-sqlite3", "marked", "mermaid", "pg", "probot", "prom-client", "sanitize-html"] as const;

/** Every package the bot, `checkpost rebuild` and `checkpost forge` use, as one install command. */
export const OPTIONAL_INSTALL = `npm i ${OPTIONAL_PACKAGES.join(" ")}`;

/** `checkpost mcp`'s one optional package (docs/mcp.md), installed on its own: it needs none of the bot's. */
export const MCP_SDK = "@modelcontextprotocol/sdk";

/** The install command that brings `missing` (what missingOptionalPackage named). */
export const installFor = (missing: string): string => (missing === MCP_SDK ? `npm i ${MCP_SDK}` : OPTIONAL_INSTALL);

/** The package a module specifier belongs to: `a/b` → `a`, `@scope/a/b` → `@scope/a`. */
const packageOf = (specifier: string): string =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/** The optional package a "Cannot find package/module" error names, or undefined. */
export function missingOptionalPackage(e: unknown): string | undefined {
  const err = e as { code?: unknown; message?: unknown } | null;
  if (!err || (err.code !== "ERR_MODULE_NOT_FOUND" && err.code !== "MODULE_NOT_FOUND") || typeof err.message !== "string") return undefined;
  const m = /Cannot find (?:package|module) '([^']+)'/.exec(err.message);
  const name = m?.[1] === undefined ? undefined : packageOf(m[1]);
  return name === MCP_SDK ? MCP_SDK : OPTIONAL_PACKAGES.find((p) => p === name);
}
