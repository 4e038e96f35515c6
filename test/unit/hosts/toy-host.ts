// A toy issue host (issue 31, "Done when"): a new host is one file plus one line in the host registry.
// This is the file; the line is in host-registry.test.ts. Its server is in memory (one FakeIssueHost per
// base URL, shared by every token), a token "token-of-<login>" is that user, and its capabilities are
// its own: no edit history, no attachments, tokens scoped to one repository.
import type { HostCapabilities, HostDefinition } from "../../../src/ports/issue-host.ts";
import { readForgejoDelivery } from "../../../src/forgejo-client/index.ts";
import { sha256SignatureProblem } from "../../../src/util/hmac-signature.ts";
import { FakeIssueHost } from "../../helpers/fake-issue-host.ts";

export const TOY_CAPABILITIES: HostCapabilities = Object.freeze({
  editHistory: false,
  attachments: false,
  repositoryScopedTokens: true,
  pagedCommentLists: false,
  commentsUntil: true,
  compareAndSetBody: false,
  issueRightsApartFromCode: false,
});

/** The toy's servers by base URL: what every token's view of that URL reads and writes. */
export const toyServers = new Map<string, FakeIssueHost>();

export const toyHost: HostDefinition = {
  name: "toy",
  capabilities: TOY_CAPABILITIES,
  // Its own signature header, the bare hex HMAC (no "sha256=" prefix): the receiver checks what the host says.
  verifyDelivery: (headers, body, secret) => sha256SignatureProblem("X-Toy-Signature", headers["x-toy-signature"], body, secret, ""),
  open(s) {
    const server = toyServers.get(s.url) ?? new FakeIssueHost({ url: s.url, now: () => Date.now(), capabilities: TOY_CAPABILITIES });
    toyServers.set(s.url, server);
    const login = s.token?.startsWith("token-of-") ? s.token.slice("token-of-".length) : "anonymous";
    // Its deliveries, were it to send any, would be shaped as GitHub's and Forgejo's are.
    return { api: server.as(login), apiUrl: `${s.url}/toy/api`, readDelivery: readForgejoDelivery, verifyDelivery: toyHost.verifyDelivery };
  },
};
