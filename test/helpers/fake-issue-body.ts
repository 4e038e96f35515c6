import { FakeIssueHost } from "./fake-issue-host.ts";

/**
 * Issue #1 on a FakeIssueHost, seen the way the dashboard tests look at it: its body (a setter is a
 * person's edit behind the writer's back), how many times it was patched, its comments and how many
 * times they were written, and one-shot hooks into the writer's race windows.
 */
export function fakeIssueBody(initial: string, host: ConstructorParameters<typeof FakeIssueHost>[0] = {}) {
  const api = new FakeIssueHost(host);
  api.addIssue({ number: 1, body: initial });
  const issue = () => api.issues.get(1) ?? api.addIssue({ number: 1 });
  const state = {
    get body(): string {
      return issue().body;
    },
    set body(body: string) {
      api.issues.set(1, { ...issue(), body });
    },
    get patches(): number {
      return api.calls.filter((c) => c === "editIssue").length;
    },
    get comments(): Map<number, string> {
      return new Map((api.comments.get(1) ?? []).map((c) => [c.id, c.body]));
    },
    get commentWrites(): number {
      return api.calls.filter((c) => c === "createComment" || c === "editComment").length;
    },
    /** Runs once, after the writer's next read and before it gets the answer. */
    set onAfterGet(fn: () => void) {
      api.after("getIssue", fn);
    },
    /** Runs once, after the writer's next write took effect. */
    set onAfterPatch(fn: () => void) {
      api.after("editIssue", fn);
    },
  };
  return { state, api };
}
