import { describe, expect, it } from "vitest";
import * as z from "zod";
import { AgentNameSchema, CheckpointSchema, protocolJsonSchema } from "../../../src/protocol/index.ts";
import { builtSchema, lazySchema } from "../../../src/protocol/lazy-schema.ts";

describe("lazySchema", () => {
  it("builds the schema on first use, once", () => {
    let builds = 0;
    const S = lazySchema(() => {
      builds++;
      return z.object({ a: z.string().min(1) });
    });
    expect(builds).toBe(0);
    expect(S.parse({ a: "x", b: 1 })).toEqual({ a: "x" });
    expect(S.safeParse({ a: "" }).success).toBe(false);
    expect(builds).toBe(1);
  });

  it("behaves as the schema: methods, instanceof, nesting, derived schemas, inferred types", () => {
    const Inner = lazySchema(() => z.string().regex(/^a/));
    const Outer = lazySchema(() => z.object({ inner: Inner, n: z.number().optional() }));
    expect(Inner instanceof z.ZodString).toBe(true);
    expect(Outer instanceof z.ZodObject).toBe(true);
    expect(Object.keys(Outer.shape)).toEqual(["inner", "n"]);
    const parsed: { inner: string; n?: number | undefined } = Outer.parse({ inner: "ab" });
    expect(parsed).toEqual({ inner: "ab" });
    expect(() => Outer.parse({ inner: "b" })).toThrow(z.ZodError);
    const Extended = Outer.extend({ m: z.boolean() });
    expect(Extended.safeParse({ inner: "a", m: true }).success).toBe(true);
    expect(Extended.safeParse({ inner: "a" }).success).toBe(false);
    expect(Inner.optional().parse(undefined)).toBeUndefined();
    // A method read off the proxy works detached, as zod's own bound methods do.
    const { safeParse } = Inner;
    expect(safeParse("a").success).toBe(true);
  });

  it("builtSchema gives the schema behind the proxy, which builders nest (one trap per parse)", () => {
    const S = lazySchema(() => z.string());
    const real = builtSchema(S);
    expect(real).not.toBe(S);
    expect(real instanceof z.ZodString).toBe(true);
    expect(builtSchema(real)).toBe(real);
    expect(builtSchema(S)).toBe(real);
    // The protocol's nested header schemas are the built ones, not proxies.
    expect(CheckpointSchema.shape.agent).toBe(builtSchema(AgentNameSchema));
  });

  it("keeps the exported protocol schemas working (parse, JSON Schema)", () => {
    const cp = { version: "1.0", agent: "a", session: "s", phase: "p", timestamp: null, data: { x: 1 } };
    expect(CheckpointSchema.parse(cp)).toEqual(cp);
    expect(CheckpointSchema.safeParse({ ...cp, agent: " a" }).success).toBe(false);
    const defs = protocolJsonSchema().$defs as Record<string, { properties?: Record<string, unknown> }>;
    expect(Object.keys(defs.Checkpoint?.properties ?? {})).toContain("agent");
  });
});
