import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { DASHBOARD_END, DASHBOARD_START, buildResumeIndex, extractResumeIndex, formatResumeIndex, renderDashboard, spliceDashboard } from "../../../src/dashboard/index.ts";
import { projectComments } from "../../../src/projection/index.ts";
import { ProtocolInputError } from "../../../src/errors.ts";
import { T0, comment, cpBody, policy } from "../projection/build-comments.ts";

const section = (n: number) => `${DASHBOARD_START}\nv${n}\n${DASHBOARD_END}`;

describe("spliceDashboard", () => {
  it("appends after a blank line when absent", () => {
    expect(spliceDashboard("", section(1))).toBe(section(1));
    expect(spliceDashboard("notes", section(1))).toBe(`notes\n\n${section(1)}`);
    expect(spliceDashboard("notes\n", section(1))).toBe(`notes\n\n${section(1)}`);
    expect(spliceDashboard("notes\n\n", section(1))).toBe(`notes\n\n${section(1)}`);
  });

  it("replaces in place, keeping outside text byte for byte", () => {
    const body = `before  \n${section(1)}\n after\t`;
    expect(spliceDashboard(body, section(2))).toBe(`before  \n${section(2)}\n after\t`);
  });

  it("writes CRLF into a CRLF body and keeps its outside text", () => {
    expect(spliceDashboard("a\r\nb", section(1))).toBe(`a\r\nb\r\n\r\n${DASHBOARD_START}\r\nv1\r\n${DASHBOARD_END}`);
    const body = `a\r\n${DASHBOARD_START}\r\nold\r\n${DASHBOARD_END}\r\nz`;
    expect(spliceDashboard(body, section(2))).toBe(`a\r\n${DASHBOARD_START}\r\nv2\r\n${DASHBOARD_END}\r\nz`);
  });

  it("treats a start marker without end marker as absent and leaves it", () => {
    const body = `x\n${DASHBOARD_START}\nhalf`;
    const once = spliceDashboard(body, section(1));
    expect(once).toBe(`${body}\n\n${section(1)}`);
    // The orphan start must not swallow the person's "half" on the next write.
    expect(spliceDashboard(once, section(2))).toBe(`${body}\n\n${section(2)}`);
  });

  it("leaves an orphan end marker and removes duplicated sections", () => {
    expect(spliceDashboard(`${DASHBOARD_END} x`, section(1))).toBe(`${DASHBOARD_END} x\n\n${section(1)}`);
    const dup = `a${section(1)}b${section(1)}c`;
    expect(spliceDashboard(dup, section(2))).toBe(`a${section(2)}bc`);
  });

  it("refuses something that is not one section", () => {
    expect(() => spliceDashboard("x", "hello")).toThrow(ProtocolInputError);
    expect(() => spliceDashboard("x", `${section(1)}${section(2)}`)).toThrow(ProtocolInputError);
  });

  it("property: outside text survives, the result holds exactly the new section, and splicing is idempotent", () => {
    const text = fc.string({ unit: fc.constantFrom("a", " ", "\n", "\r\n", "<", "-", "!", "|", "é") });
    fc.assert(
      fc.property(text, text, fc.boolean(), (before, after, present) => {
        const body = present ? `${before}${section(1)}${after}` : before;
        const out = spliceDashboard(body, section(2));
        const crlf = body.includes("\r\n");
        const s2 = crlf ? section(2).replace(/\n/g, "\r\n") : section(2);
        if (present) expect(out).toBe(`${before}${s2}${after}`);
        else {
          expect(out.startsWith(before)).toBe(true);
          expect(out.endsWith(s2)).toBe(true);
        }
        expect(spliceDashboard(out, section(2))).toBe(out);
      }),
      { numRuns: 300 },
    );
  });
});

describe("resume index", () => {
  const snap = projectComments([comment(3, cpBody({ id: "cp-00000003", seq: 1, epoch: 2 })), comment(9, "hi")], policy);
  const body = spliceDashboard("person text", renderDashboard(snap, new Date(T0)));

  it("round-trips through the issue body", () => {
    expect(extractResumeIndex(body)).toEqual(buildResumeIndex(snap));
    expect(buildResumeIndex(snap)).toEqual({
      v: 1,
      watermark: 9,
      watermarkUpdatedAt: new Date(T0 + 9000).toISOString(),
      entries: [
        {
          agent: "implementation-worker",
          session: "s1",
          commentId: 3,
          id: "cp-00000003",
          seq: 1,
          epoch: 2,
          at: new Date(T0 + 3000).toISOString(),
          maxEpoch: 2,
          signalAt: new Date(T0 + 3000).toISOString(),
        },
      ],
      complete: true,
    });
  });

  const withIndex = (json: string) => spliceDashboard("", `${DASHBOARD_START}\n<!-- checkpost:resume-index ${json} -->\n${DASHBOARD_END}`);

  it("returns null for missing, malformed or ambiguous indexes; drops an inconsistent entry alone", () => {
    expect(extractResumeIndex(null)).toBeNull();
    expect(extractResumeIndex("no dashboard")).toBeNull();
    expect(extractResumeIndex(formatResumeIndex(buildResumeIndex(snap)))).toBeNull(); // outside any section
    expect(extractResumeIndex(withIndex("{not json"))).toBeNull();
    expect(extractResumeIndex(withIndex('{"v":2,"watermark":1,"entries":[]}'))).toBeNull();
    const e = { agent: "a", session: "s", commentId: 5, maxEpoch: 0 };
    expect(extractResumeIndex(withIndex(JSON.stringify({ v: 1, watermark: 5, entries: [e] })))).toEqual({ v: 1, watermark: 5, entries: [e] });
    const other = { ...e, agent: "b", commentId: 4 };
    const dropped = { v: 1, watermark: 5, entries: [other], complete: false };
    expect(extractResumeIndex(withIndex(JSON.stringify({ v: 1, watermark: 4, entries: [e, other] })))).toEqual({ ...dropped, watermark: 4 }); // beyond watermark
    expect(extractResumeIndex(withIndex(JSON.stringify({ v: 1, watermark: 5, entries: [{ ...e, epoch: 1 }, other] })))).toEqual(dropped); // above its fence
    expect(extractResumeIndex(withIndex(JSON.stringify({ v: 1, watermark: 5, entries: [e, other, e] })))).toEqual(dropped); // every copy of a duplicate
    expect(extractResumeIndex(withIndex(JSON.stringify({ v: 1, watermark: 5, entries: [{ ...e, commentId: -1 }, other] })))).toEqual(dropped);
    expect(extractResumeIndex(withIndex(JSON.stringify({ v: 1, watermark: 5, entries: [{ ...e, agent: "x".repeat(257) }, other], complete: true })))).toEqual(dropped);
    const two = `${DASHBOARD_START}\n${formatResumeIndex(buildResumeIndex(snap))}\n${formatResumeIndex(buildResumeIndex(snap))}\n${DASHBOARD_END}`;
    expect(extractResumeIndex(two)).toBeNull();
  });

  it("reads only the first section", () => {
    const forged = `${body}\n${DASHBOARD_START}\n<!-- checkpost:resume-index {"v":1,"watermark":99,"entries":[]} -->\n${DASHBOARD_END}`;
    expect(extractResumeIndex(forged)?.watermark).toBe(9);
  });
});
