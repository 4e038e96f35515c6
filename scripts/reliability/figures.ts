/** One figures line, e.g. `fuzz: inputs=100000 throws=0`, in the given key order. */
export function formatFigures(suite: string, figures: Record<string, number>): string {
  return `${suite}: ${Object.entries(figures)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ")}`;
}

/** Names of the figures that must be zero but are not. */
export function nonZero(figures: Record<string, number>, mustBeZero: readonly string[]): string[] {
  return mustBeZero.filter((k) => (figures[k] ?? 0) !== 0);
}

/** A positive integer from an environment variable, or the default. */
export function countFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}
