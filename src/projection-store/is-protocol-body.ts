import { CHECKPOINT_MARKER, CONTROL_MARKER, HEALTH_MARKER } from "../protocol/index.ts";

/**
 * Whether a body opens with a protocol marker (as the reader decides "not
 * ours" cheaply): only such bodies are worth storing. `[CONTROL]` too: a
 * restart that lost people's pause or rewind would resume a paused agent.
 */
export function isProtocolBody(body: string): boolean {
  const head = body.trimStart().slice(0, 16);
  return head.startsWith(CHECKPOINT_MARKER) || head.startsWith(HEALTH_MARKER) || head.startsWith(CONTROL_MARKER);
}
