import { HostError, type HostErrorReason } from "../../../errors.ts";

export type CheckStatus = "ok" | "warn" | "fail" | "skip";

/** One line of `checkpost doctor`: each check in doctor/ adds some. */
export interface DoctorCheck {
  check: string;
  status: CheckStatus;
  message: string;
  /** What to do about it (warn and fail). */
  fix?: string;
}

/** An error's message, for a check's line. */
export const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));
/** A host error's neutral reason (not found, forbidden, …); undefined for anything else. */
export const reasonOf = (e: unknown): HostErrorReason | undefined => (e instanceof HostError ? e.reason : undefined);
