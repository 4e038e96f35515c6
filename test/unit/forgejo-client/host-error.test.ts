// Issue 31, item 1: the Forgejo adapter maps its statuses to HostError's neutral reasons, and says what
// Forgejo can do as capabilities; code outside the adapter reads only these.
import { describe, expect, it } from "vitest";
import { HostError, type HostErrorReason } from "../../../src/errors.ts";
import { FORGEJO_CAPABILITIES, ForgejoApi, ForgejoApiError, ForgejoClient, forgejoError, networkError } from "../../../src/forgejo-client/index.ts";

const target = { method: "GET", url: "http://forge.test/api/v1/repos/o/r/issues/1", what: "issue #1 of o/r" };

describe("HostError from the Forgejo adapter", () => {
  const cases: [number, HostErrorReason][] = [
    [401, "unauthenticated"],
    [403, "forbidden"],
    [404, "not-found"],
    [409, "conflict"],
    [412, "conflict"],
    [400, "invalid"],
    [422, "invalid"],
    [429, "rate-limited"],
    [500, "unavailable"],
    [503, "unavailable"],
  ];
  it.each(cases)("status %i is reason %s, and the error is a HostError that keeps the status", (status, reason) => {
    const e = forgejoError(status, { message: "no" }, target);
    expect(e).toBeInstanceOf(HostError);
    expect(e).toBeInstanceOf(ForgejoApiError);
    expect(e.reason).toBe(reason);
    expect(e.status).toBe(status);
  });

  it("no answer at all is unavailable", () => {
    const e = networkError(target, new Error("ECONNRESET"));
    expect(e.reason).toBe("unavailable");
    expect(e.status).toBe(0);
  });
});

describe("Forgejo's capabilities", () => {
  it("are the adapter's, and say what Forgejo 13 can and cannot do", () => {
    const api = new ForgejoApi(new ForgejoClient({ url: "http://forge.test" }));
    expect(api.capabilities).toBe(FORGEJO_CAPABILITIES);
    expect(FORGEJO_CAPABILITIES).toEqual({
      editHistory: true,
      attachments: true,
      repositoryScopedTokens: false,
      pagedCommentLists: false,
      commentsUntil: true,
      compareAndSetBody: false,
      issueRightsApartFromCode: true,
    });
    expect(Object.isFrozen(FORGEJO_CAPABILITIES)).toBe(true);
  });
});
