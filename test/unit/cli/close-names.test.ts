import { describe, expect, it } from "vitest";
import { closeNames } from "../../../src/util/close-names.ts";

describe("closeNames (the CLI's did-you-mean)", () => {
  it("finds a name one letter off, a swapped pair, and up to two edits in long names", () => {
    expect(closeNames("known-workr", ["known-worker", "reviewer"])).toEqual(["known-worker"]);
    expect(closeNames("known-wokrer", ["known-worker"])).toEqual(["known-worker"]);
    expect(closeNames("known-wrkr", ["known-worker"])).toEqual(["known-worker"]);
    expect(closeNames("known-wr", ["known-worker"])).toEqual([]);
  });

  it("allows one edit in short names, never offers the name itself, and sorts nearest first", () => {
    expect(closeNames("bob", ["bib", "bobby", "bob"])).toEqual(["bib"]);
    expect(closeNames("planner", ["implementation-worker"])).toEqual([]);
    expect(closeNames("worker-a1", ["worker-b2", "worker-a2"])).toEqual(["worker-a2", "worker-b2"]);
  });
});
