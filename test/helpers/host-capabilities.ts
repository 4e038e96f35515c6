// Cases that need what a host may lack (attachments, …) skip by capability, never by host name (issue 31):
// `itNeeds("attachments", "…", fn)` runs on a host whose capabilities say it can, and is reported as
// skipped elsewhere.
import { it } from "vitest";
import { FORGEJO_CAPABILITIES } from "../../src/forgejo-client/index.ts";
import type { HostCapabilities } from "../../src/ports/issue-host.ts";
import { TEST_HOST } from "./bot-world.ts";
import { GITHUB_CAPABILITIES } from "./github-host/github-host.ts";

/** What the host the suites run on (CHECKPOST_TEST_HOST) can do. */
export const TEST_CAPABILITIES: HostCapabilities = TEST_HOST === "github" ? GITHUB_CAPABILITIES : FORGEJO_CAPABILITIES;

type Flag = keyof HostCapabilities;

/** `it`, skipped when the test host lacks `capability`. */
export function itNeeds(capability: Flag, name: string, fn: () => Promise<void> | void, timeout?: number): void {
  it.skipIf(!TEST_CAPABILITIES[capability])(`${name} (needs ${capability})`, fn, timeout);
}

/** `it` for what a host does when it lacks `capability` (its fallback), skipped where the host has it. */
export function itLacks(capability: Flag, name: string, fn: () => Promise<void> | void, timeout?: number): void {
  it.skipIf(TEST_CAPABILITIES[capability])(`${name} (lacks ${capability})`, fn, timeout);
}
