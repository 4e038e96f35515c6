import * as z from "zod";
import { JsonObjectSchema, JsonValueSchema } from "./json-value.ts";
import { builtSchema, lazySchema } from "./lazy-schema.ts";
import { CONTROLS } from "./controls/control-actions.ts";
import type { ControlActionName } from "./controls/control-actions.ts";

/** The protocol version the seed writes and this project writes. */
export const PROTOCOL_VERSION = "1.0";
export const CHECKPOINT_MARKER = "[CHECKPOINT]";
export const HEALTH_MARKER = "[HEALTH]";
/** Additive kind (1.0 readers ignore it): a person's command, accepted and recorded by the bot. */
export const CONTROL_MARKER = "[CONTROL]";
export const DEFAULT_NEXT_CHECK = "in 10 iterations";

/** One line, no surrounding whitespace: the reader strips it, so the writer must not rely on it. */
const HeaderValue = lazySchema(() =>
  z
    .string()
    .min(1, "must not be empty")
    .max(256, "must be at most 256 characters")
    .refine((s) => !/[\r\n]/.test(s), "must be a single line")
    .refine((s) => s === s.trim(), "must not start or end with whitespace"),
);

export const AgentNameSchema = HeaderValue;
export const SessionIdSchema = HeaderValue;
export const PhaseSchema = HeaderValue;
/** Unique checkpoint id (additive header `Id:`). */
export const CheckpointIdSchema = lazySchema(() => z.string().regex(/^[A-Za-z0-9._:-]{8,128}$/, "must be 8–128 characters of A–Z a–z 0–9 . _ : -"));
export const SeqSchema = lazySchema(() => z.number().int().min(1).max(Number.MAX_SAFE_INTEGER));
export const EpochSchema = lazySchema(() => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER));
export const SignatureSchema = lazySchema(() => z.string().regex(/^hmac-sha256=[0-9a-f]{64}$/, 'must be "hmac-sha256=" and 64 hex digits'));

/**
 * A checkpoint: the seed's six fields plus the additive ones this project writes
 * (1.0 readers ignore unknown header lines).
 */
export const CheckpointSchema = lazySchema(() =>
  z.object({
    version: z.string(),
    agent: builtSchema(AgentNameSchema),
    session: builtSchema(SessionIdSchema),
    phase: builtSchema(PhaseSchema),
    /** The writer's clock, as written (the seed: Python `utcnow().isoformat() + "Z"`). Never used to order. */
    timestamp: z.string().nullable(),
    /** The state to resume from, as saved. The seed writes a JSON object (its **kwargs). */
    data: JsonValueSchema,
    id: CheckpointIdSchema.optional(),
    seq: SeqSchema.optional(),
    epoch: EpochSchema.optional(),
    signature: SignatureSchema.optional(),
  }),
);
export type Checkpoint = z.infer<typeof CheckpointSchema>;

/** What a writer supplies to make a checkpoint. */
export const CheckpointInputSchema = lazySchema(() =>
  z.object({
    agent: builtSchema(AgentNameSchema),
    session: builtSchema(SessionIdSchema),
    phase: builtSchema(PhaseSchema),
    data: JsonObjectSchema,
    /** Python-style UTC time; see `pythonUtcIsoformat`. */
    timestamp: z
      .string()
      .min(1)
      .refine((s) => !/[\r\n]/.test(s), "must be a single line"),
    id: CheckpointIdSchema.optional(),
    seq: SeqSchema.optional(),
    epoch: EpochSchema.optional(),
    signature: SignatureSchema.optional(),
  }),
);
export type CheckpointInput = z.infer<typeof CheckpointInputSchema>;

export const HealthSchema = lazySchema(() =>
  z.object({
    agent: builtSchema(AgentNameSchema),
    session: builtSchema(SessionIdSchema),
    timestamp: z.string().nullable(),
    status: z.string(),
    metrics: JsonValueSchema,
    nextCheck: z.string().nullable(),
  }),
);
export type Health = z.infer<typeof HealthSchema>;

export const HealthInputSchema = lazySchema(() =>
  z.object({
    agent: builtSchema(AgentNameSchema),
    session: builtSchema(SessionIdSchema),
    timestamp: z
      .string()
      .min(1)
      .refine((s) => !/[\r\n]/.test(s), "must be a single line"),
    status: HeaderValue.default("Active"),
    metrics: JsonObjectSchema,
    nextCheck: HeaderValue.default(DEFAULT_NEXT_CHECK),
  }),
);
export type HealthInput = z.input<typeof HealthInputSchema>;

/**
 * What a `[CONTROL]` comment asks of an agent+session: one of the registry's actions (controls/: pause,
 * unpause, rewind, release, hide; each action's file says what it does).
 */
export const ControlActionSchema = lazySchema(() => z.enum(CONTROLS.names as [ControlActionName, ...ControlActionName[]]));
export type ControlAction = z.infer<typeof ControlActionSchema>;

const CommentIdSchema = lazySchema(() => z.number().int().positive().max(Number.MAX_SAFE_INTEGER));

/** A `[CONTROL]` comment's fields. */
export const ControlSchema = lazySchema(() =>
  z.object({
    version: z.string(),
    agent: builtSchema(AgentNameSchema),
    session: builtSchema(SessionIdSchema),
    action: builtSchema(ControlActionSchema),
    timestamp: z.string().nullable(),
    /** rewind: the comment id of the checkpoint to go back to. */
    target: CommentIdSchema.optional(),
    /** rewind: that checkpoint's `Id:`, when it has one (shown; the comment id decides). */
    targetId: CheckpointIdSchema.optional(),
    /** rewind/release: the fence; checkpoints of this agent+session posted after this comment with a lower epoch are zombies. */
    epoch: EpochSchema.optional(),
    /** The Forgejo login whose command this is. */
    by: HeaderValue.optional(),
    /** Where the command came from ("checkbox", "comment 123"). */
    reason: HeaderValue.optional(),
    signature: SignatureSchema.optional(),
  }),
);
export type Control = z.infer<typeof ControlSchema>;

/** What a writer supplies to make a control comment. */
export const ControlInputSchema = lazySchema(() =>
  ControlSchema.omit({ version: true, timestamp: true }).extend({
    timestamp: z
      .string()
      .min(1)
      .refine((s) => !/[\r\n]/.test(s), "must be a single line"),
  }),
);
export type ControlInput = z.infer<typeof ControlInputSchema>;
