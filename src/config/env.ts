import * as z from "zod";
import { ConfigError } from "../errors.ts";
import { DEFAULT_MAX_CHECKPOINT_BYTES, DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../session-client/defaults.ts";
import { DEFAULT_LEGACY_WRITERS } from "../projection/legacy-writers.ts";

const csv = z
  .string()
  .optional()
  .transform((s) =>
    (s ?? "")
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean),
  );

const positiveInt = (def: number) => z.coerce.number().int().positive().default(def);

/** The variables the CLI and the library read. Every one is listed in .env.example. */
export const ClientEnvSchema = z.object({
  /** The issue host's adapter by its name in the host registry (src/hosts/index.ts); the root checks the name. */
  CHECKPOST_HOST: z.string().trim().toLowerCase().min(1).default("forgejo"),
  /** The instance root; a URL ending in /api/v1 is accepted too (the client adds /api/v1 itself). */
  FORGEJO_URL: z.url({ message: "must be the instance's base URL, e.g. http://127.0.0.1:3001 (the embedded Forgejo of `npm start`)" }).optional(),
  FORGEJO_TOKEN: z.string().min(1).optional(),
  /** owner/repo; or FORGEJO_REPO=owner/repo; or FORGEJO_OWNER + FORGEJO_REPO=repo. */
  FORGEJO_REPOSITORY: z
    .string()
    .regex(/^[^/\s]+\/[^/\s]+$/, 'must be "owner/repo"')
    .optional(),
  FORGEJO_OWNER: z.string().min(1).optional(),
  FORGEJO_REPO: z.string().min(1).optional(),
  CHECKPOST_ISSUE: z.coerce.number().int().positive().optional(),
  CHECKPOST_SESSION_TITLE: z.string().min(1).default(DEFAULT_SESSION_TITLE),
  CHECKPOST_SESSION_LABEL: z.string().min(1).default(DEFAULT_SESSION_LABEL),
  CHECKPOST_TRUSTED_AUTHORS: csv,
  CHECKPOST_SIGNING_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  /**
   * A legacy (1.0) writer's checkpoint (no Id, Seq, Epoch, Signature: the seed's agents) below a raised
   * epoch fence: `fence` refuses it as a zombie, `accept` believes it (docs/reliability.md, "Mixed fleets").
   */
  CHECKPOST_LEGACY_WRITERS: z
    .enum(["fence", "accept"], { message: 'must be "fence" (a legacy writer below a take-over\'s epoch is a zombie) or "accept" (believe it)' })
    .default(DEFAULT_LEGACY_WRITERS),
  CHECKPOST_MAX_CHECKPOINT_BYTES: positiveInt(DEFAULT_MAX_CHECKPOINT_BYTES),
  /** Liveness, as the bot reads them (`checkpost status` answers as the dashboard does). */
  CHECKPOST_STALE_AFTER_MS: z.coerce.number().int().positive().optional(),
  CHECKPOST_MIN_STALE_MS: z.coerce.number().int().min(0).default(300_000),
  CHECKPOST_CACHE_DIR: z.string().min(1).optional(),
  CHECKPOST_REQUEST_TIMEOUT_MS: positiveInt(30_000),
  CHECKPOST_RETRIES: z.coerce.number().int().min(0).max(20).default(4),
  /**
   * Bearer token(s) of the bot's HTTP API, comma-separated so a new one can be added before the old is
   * removed. The bot requires one on /api/* (and /metrics off loopback); `checkpost doctor --bot-url` sends
   * the first.
   */
  CHECKPOST_API_TOKEN: z
    .string()
    .optional()
    .transform((s) =>
      (s ?? "")
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z
          .string()
          .min(16, "each token must be at least 16 characters")
          .regex(/^[\x21-\x7e]+$/, "tokens are printable ASCII with no spaces"),
      ),
    ),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
});
export type ClientEnv = z.infer<typeof ClientEnvSchema>;

/** Validate env with zod; the error names each bad variable and what it must be. */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  // Only the schema's own variables (a shell has dozens of others; the schema would drop them anyway).
  // Empty strings (e.g. `FORGEJO_URL=` in .env) mean unset.
  const cleaned: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const v = env[name];
    if (v !== undefined && v !== "") cleaned[name] = v;
  }
  const r = schema.safeParse(cleaned);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
  throw new ConfigError(`invalid configuration:\n${lines.join("\n")}`);
}

/** Where the repository came from, in the words the user typed: hints name it instead of guessing. */
export interface RepoFromEnv {
  owner: string;
  repo: string;
  /** e.g. "--repo acme/widgets", "FORGEJO_REPOSITORY=acme/widgets", "FORGEJO_OWNER=acme and FORGEJO_REPO=widgets" */
  source: string;
}

/**
 * owner/repo from, in order: the --repo flag, FORGEJO_REPOSITORY=owner/name, FORGEJO_REPO=owner/name
 * (the core issue's contract), or FORGEJO_OWNER + FORGEJO_REPO=name.
 */
export function repoFromEnv(env: Pick<ClientEnv, "FORGEJO_REPOSITORY" | "FORGEJO_OWNER" | "FORGEJO_REPO">, flag?: string): RepoFromEnv {
  const split = (spec: string, name: string): RepoFromEnv => {
    const [owner, repo, extra] = spec.split("/");
    if (owner && repo && extra === undefined) return { owner, repo, source: `${name}${name.startsWith("--") ? " " : "="}${spec}` };
    throw new ConfigError(`${name} "${spec}" must be "owner/repo"`);
  };
  if (flag !== undefined) return split(flag, "--repo");
  if (env.FORGEJO_REPOSITORY) return split(env.FORGEJO_REPOSITORY, "FORGEJO_REPOSITORY");
  if (env.FORGEJO_REPO?.includes("/")) {
    const r = split(env.FORGEJO_REPO, "FORGEJO_REPO");
    if (env.FORGEJO_OWNER && env.FORGEJO_OWNER !== r.owner)
      throw new ConfigError(`FORGEJO_REPO=${env.FORGEJO_REPO} names owner "${r.owner}" but FORGEJO_OWNER=${env.FORGEJO_OWNER}: unset one of them`);
    return r;
  }
  if (env.FORGEJO_OWNER && env.FORGEJO_REPO) return { owner: env.FORGEJO_OWNER, repo: env.FORGEJO_REPO, source: `FORGEJO_OWNER=${env.FORGEJO_OWNER} and FORGEJO_REPO=${env.FORGEJO_REPO}` };
  if (env.FORGEJO_REPO) throw new ConfigError(`FORGEJO_REPO=${env.FORGEJO_REPO} has no owner: set FORGEJO_REPO=owner/${env.FORGEJO_REPO} (or FORGEJO_OWNER too)`);
  throw new ConfigError("no repository: set FORGEJO_REPO=owner/repo (or FORGEJO_REPOSITORY=owner/repo, or FORGEJO_OWNER and FORGEJO_REPO), or pass --repo owner/repo");
}
