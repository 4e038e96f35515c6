import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import * as z from "zod";
import { ConfigError } from "../../errors.ts";
import type { CliRoot, RepoFlags } from "../context.ts";
import { type CliIo, printJson } from "../io.ts";
import { packageFile } from "../package-version.ts";

const AppYmlSchema = z.object({
  default_events: z.array(z.string()).min(1),
  forgejo: z.object({
    // No hook type here: the host's adapter picks its own kind of hook (issue 31); a `type` key is ignored.
    webhook: z.object({ content_type: z.literal("json"), path: z.string().startsWith("/"), events: z.array(z.enum(["issues", "issue_comment"])).min(1) }),
  }),
});

export interface InstallWebhookOptions extends RepoFlags {
  botUrl: string;
  app?: string;
}

/**
 * `checkpost install-webhook --bot-url URL`: register (or replace) the bot's
 * webhook on the repository, with the events of checkpost's own app.yml (or --app FILE) and WEBHOOK_SECRET.
 */
export async function installWebhook(io: CliIo, o: InstallWebhookOptions, root: CliRoot): Promise<void> {
  // Without --app: the app.yml checkpost ships with (an installed package has no ./app.yml to read).
  const file = o.app !== undefined ? resolve(io.cwd, o.app) : packageFile("app.yml");
  let app: z.infer<typeof AppYmlSchema>;
  try {
    const r = AppYmlSchema.safeParse(parseYaml(readFileSync(file, "utf8")));
    if (!r.success) throw new ConfigError(`${file}: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    app = r.data;
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const secret = io.env["WEBHOOK_SECRET"];
  if (!secret || secret.length < 8) throw new ConfigError("WEBHOOK_SECRET must be set (8+ characters): the bot verifies every delivery with it");
  const ctx = await root.context(io, o);
  const api = ctx.store.api;
  const target = `${o.botUrl.replace(/\/+$/, "")}${app.forgejo.webhook.path}`;
  const { webhook, replaced } = await api.ensureWebhook(ctx.store.repo, { url: target, secret, events: app.forgejo.webhook.events });
  printJson(io, { hook_id: webhook.id, url: target, events: webhook.events, replaced });
}
