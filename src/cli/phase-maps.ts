import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import * as z from "zod";
import { builtSchema, lazySchema } from "../protocol/lazy-schema.ts";
import { BUILTIN_PHASE_MAPS, PhaseMapSchema } from "../protocol/index.ts";
import type { PhaseMap } from "../protocol/index.ts";
import { usage } from "./parse-json-arg.ts";

/** A phase map and where it came from, for messages. */
export interface ChosenPhaseMap {
  name: string;
  map: Readonly<PhaseMap>;
}

/** A maps file: agent name → a built-in map's name or an inline phase map. */
const MapsFileSchema = lazySchema(() => z.record(z.string().min(1), z.union([z.string().min(1), builtSchema(PhaseMapSchema)])));

function builtin(name: string): Readonly<PhaseMap> | undefined {
  // Own keys only: "__proto__" or "constructor" is not a map.
  return Object.hasOwn(BUILTIN_PHASE_MAPS, name) ? BUILTIN_PHASE_MAPS[name] : undefined;
}

function readJson(file: string, cwd: string, what: string): unknown {
  let raw: string;
  try {
    raw = readFileSync(resolve(cwd, file), "utf8");
  } catch {
    throw usage(`${what}: not a built-in map (${Object.keys(BUILTIN_PHASE_MAPS).join(", ")}) and not a readable file`);
  }
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw usage(`${what}: not valid JSON: ${(e as Error).message}`);
  }
}

/** `--map NAME|FILE`: a built-in map by name or a JSON file of phase → resume point. */
export function loadPhaseMap(spec: string, cwd: string): ChosenPhaseMap {
  const b = builtin(spec);
  if (b) return { name: spec, map: b };
  const r = PhaseMapSchema.safeParse(readJson(spec, cwd, `--map ${spec}`));
  if (!r.success) throw usage(`--map ${spec}: must be a JSON object of phase → resume point strings`);
  return { name: spec, map: r.data };
}

/**
 * The phase map of one agent: `--map` if given; else its entry in the maps file (`--maps` or
 * CHECKPOST_PHASE_MAPS); else the built-in map named like the agent (implementation-worker); else
 * none, and the agent resumes at its own phase (`mapped: false`), never silently at "start".
 */
export function phaseMapFor(agent: string, o: { map?: string | undefined; maps?: string | undefined; cwd: string }): ChosenPhaseMap | undefined {
  if (o.map !== undefined) return loadPhaseMap(o.map, o.cwd);
  if (o.maps !== undefined) {
    const r = MapsFileSchema.safeParse(readJson(o.maps, o.cwd, `maps file ${o.maps}`));
    if (!r.success) throw usage(`maps file ${o.maps}: must be a JSON object of agent → built-in map name or {phase: resume point}`);
    if (Object.hasOwn(r.data, agent)) {
      const entry = r.data[agent] as string | PhaseMap;
      if (typeof entry === "object") return { name: `${o.maps}#${agent}`, map: entry };
      const b = builtin(entry);
      if (!b) throw usage(`maps file ${o.maps}: agent "${agent}" names "${entry}", which is not a built-in map (${Object.keys(BUILTIN_PHASE_MAPS).join(", ")})`);
      return { name: entry, map: b };
    }
  }
  const own = builtin(agent);
  return own ? { name: agent, map: own } : undefined;
}
