import { controlActionRegistry } from "./control-action-registry.ts";
import { hide } from "./hide.ts";
import { pause } from "./pause.ts";
import { release } from "./release.ts";
import { rewind } from "./rewind.ts";
import { unpause } from "./unpause.ts";

/**
 * Every control action, one line each. Adding one: its file in this folder and its line here. The
 * `Action:` values the reader accepts, the writer's checks, the slash verbs, the dashboard's boxes, the
 * desk's checks, the directive kinds of the API and the MCP tools, the docs table (docs/bot.md) and the
 * Python client's table (`npm run generate`) are derived from this list. The order is the dashboard's.
 */
export const CONTROL_ACTIONS = [pause, unpause, rewind, release, hide] as const;

/** The registry everything in checkpost reads (tests may stand a longer one in its place: test/unit/control-registry). */
export const CONTROLS = controlActionRegistry(CONTROL_ACTIONS);

/** An `Action:` value. */
export type ControlActionName = (typeof CONTROL_ACTIONS)[number]["action"];
/** An action `resume`/`save` reports as a directive. */
export type DirectiveKind = Extract<(typeof CONTROL_ACTIONS)[number], { directive: string }>["action"];
