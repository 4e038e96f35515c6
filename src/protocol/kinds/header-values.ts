import { InvalidComment } from "../comment-kind.ts";

export function requireHeader(headers: ReadonlyMap<string, string>, key: string, label: string): string {
  const v = headers.get(key);
  if (!v) throw new InvalidComment(`missing "${label}:" line`);
  return v;
}

export function optionalInt(headers: ReadonlyMap<string, string>, key: string, label: string, min: number): number | undefined {
  const v = headers.get(key);
  if (v === undefined) return undefined;
  // Up to Number.MAX_SAFE_INTEGER (16 digits), which is what the writer's schema allows.
  if (!/^\d{1,16}$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) < min) throw new InvalidComment(`"${label}:" must be an integer ≥ ${min}, got "${v}"`);
  return Number(v);
}
