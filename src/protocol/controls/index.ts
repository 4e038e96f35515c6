export { CONTROL_ACTIONS, CONTROLS } from "./control-actions.ts";
export type { ControlActionName, DirectiveKind } from "./control-actions.ts";
export { controlActionRegistry } from "./control-action-registry.ts";
export type { ControlActionRegistry } from "./control-action-registry.ts";
export type { ControlActionSpec, ControlBox, ControlEffect } from "./control-action.ts";
