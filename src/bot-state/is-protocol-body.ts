import { PROTOCOL_KINDS } from "../protocol/index.ts";
import type { KindRegistry } from "../protocol/index.ts";

/**
 * Whether a body opens with a protocol marker (as the reader decides "not ours" cheaply): only such
 * bodies are worth storing. Every kind of the registry counts, so a new kind is stored without a
 * change here (a restart that lost people's `[CONTROL]` pause or rewind would resume a paused agent).
 */
export function isProtocolBody(body: string, kinds: KindRegistry = PROTOCOL_KINDS): boolean {
  return kinds.forHead(body.trimStart().slice(0, kinds.headLength)) !== undefined;
}
