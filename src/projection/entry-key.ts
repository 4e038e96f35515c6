/**
 * The map key of one agent+session. JSON keeps it collision-free whatever the
 * names contain (a plain "agent/session" join would not be).
 *
 * @example entryKey("implementation-worker", "s1") // '["implementation-worker","s1"]'
 */
export function entryKey(agent: string, session: string): string {
  return JSON.stringify([agent, session]);
}
