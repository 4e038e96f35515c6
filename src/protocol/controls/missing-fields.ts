import { CONTROLS } from "./control-actions.ts";

/**
 * What a control of this action lacks, by the registry: `"target"` (a target action needs `Target:` and
 * `Epoch:`), `"epoch"` (a fence needs `Epoch:`), or null. The reader and the writer ask this one rule.
 */
export function missingFields(c: { action: string; target?: number | undefined; epoch?: number | undefined }): "target" | "epoch" | null {
  const spec = CONTROLS.byName(c.action);
  if (!spec) return null;
  if (spec.target && (c.target === undefined || c.epoch === undefined)) return "target";
  if (spec.effect === "fence" && c.epoch === undefined) return "epoch";
  return null;
}
