/**
 * Sign-in rate limit of the embedded forge's web view: per client IP and per account name (known or not,
 * so the limit itself does not tell which logins exist). An attempt takes a slot when it starts and gives
 * it back when the password was right, so a storm of concurrent wrong guesses is cut off while it is still
 * in flight, and a person signing in again and again is not.
 */
export interface SignInLimits {
  /** Attempts per client IP in one window. Default 10. */
  perIp: number;
  /** Attempts per account name in one window. Default 5. */
  perAccount: number;
  /** Window length. Default 60 s. */
  windowMs: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { perIp: 10, perAccount: 5, windowMs: 60_000 };

export type SignInSlot = { ok: true; release(): void } | { ok: false; retryAfterSec: number };

export class SignInLimiter {
  /** Start times of the attempts that still count, per key. */
  private readonly attempts = new Map<string, number[]>();

  constructor(
    private readonly limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A slot for one attempt from `ip` as `account`, or how long to wait (whole seconds, at least 1). */
  take(ip: string, account: string): SignInSlot {
    const t = this.now();
    const keys: [string, number][] = [
      [`ip:${ip}`, this.limits.perIp],
      [`user:${account.toLowerCase()}`, this.limits.perAccount],
    ];
    let waitMs = 0;
    for (const [key, max] of keys) {
      const live = this.live(key, t);
      if (live.length >= max) waitMs = Math.max(waitMs, (live[live.length - max] as number) + this.limits.windowMs - t);
    }
    if (waitMs > 0) return { ok: false, retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)) };
    for (const [key] of keys) this.live(key, t).push(t);
    return {
      ok: true,
      release: () => {
        for (const [key] of keys) {
          const list = this.attempts.get(key);
          const i = list?.lastIndexOf(t) ?? -1;
          if (list && i >= 0) list.splice(i, 1);
        }
      },
    };
  }

  private live(key: string, t: number): number[] {
    if (this.attempts.size > 10_000) for (const [k, v] of this.attempts) if (!v.some((s) => s + this.limits.windowMs > t)) this.attempts.delete(k);
    const list = (this.attempts.get(key) ?? []).filter((s) => s + this.limits.windowMs > t);
    this.attempts.set(key, list);
    return list;
  }
}
