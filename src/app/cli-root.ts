// The CLI's composition root (src/app/): what the commands receive (CliRoot, src/cli/context.ts). Each
// part is imported when a command first asks for it, so a command loads only the adapters it uses
// (`checkpost parse` no HTTP client, `save` no forge and no SQLite).
import type { CliRoot } from "../cli/context.ts";

export function cliRoot(): CliRoot {
  const root: CliRoot = {
    context: async (io, flags) => (await import("./cli-context.ts")).cliContext(io, flags),
    settings: async (io, repoFlag) => (await import("./cli-settings.ts")).clientSettings(io, repoFlag),
    host: async (o) => (await import("./cli-settings.ts")).checkingHost(o),
    openBotStore: async (io, file) => (await import("./cli-settings.ts")).openCliBotStore(io, file),
    snapshotSettings: async (io) => (await import("./cli-snapshot.ts")).snapshotSettings(io),
    forge: async (io, o) => (await import("./cli-forge.ts")).forge(io, o),
    // Each tool call runs a command with this same root (src/app/cli-mcp.ts).
    mcp: async (io, o) => (await import("./cli-mcp.ts")).mcp(io, o, root),
  };
  return root;
}
