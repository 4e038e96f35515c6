import { createHmac } from "node:crypto";
import { afterEach, describe } from "vitest";
import { FORGEJO_CAPABILITIES, forgejoHost } from "../../src/forgejo-client/index.ts";
import type { HostCapabilities, IssueHost } from "../../src/ports/issue-host.ts";
import { FakeIssueHost } from "../helpers/fake-issue-host.ts";
import { type DeliveryContract, issueHostContract } from "../helpers/issue-host-contract.ts";
import { type ForgeWorld, forgeWorld } from "../helpers/forge-fixture.ts";
import { GITHUB_CAPABILITIES, GitHubHost, verifyGitHubDelivery } from "../helpers/github-host/github-host.ts";
import { GitHubRest } from "../helpers/github-host/github-rest.ts";

/**
 * One contract, three IssueHosts: the Forgejo adapter against the embedded Forgejo, the in-memory
 * fake the unit tests use, and an adapter of GitHub's REST behaviour (issue 31: the port takes a second
 * host). What the product relies on must read the same from each, so a unit test on the fake says
 * something about the real host. A case that needs a feature is skipped by its capability, never by
 * the host's name.
 */
let world: ForgeWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const repo = { owner: "agent", repo: "work" };

const hex = (body: string, secret: string) => createHmac("sha256", secret).update(body).digest("hex");
/** As Forgejo's webhook sender signs (services/webhook/deliver.go): X-Hub-Signature-256 and its own bare-hex copies. */
const forgejoDelivery: DeliveryContract = {
  verify: forgejoHost.verifyDelivery,
  sign: (body, secret) => ({ "x-hub-signature-256": `sha256=${hex(body, secret)}`, "x-forgejo-signature": hex(body, secret), "x-gitea-signature": hex(body, secret) }),
};
const githubDelivery: DeliveryContract = { verify: verifyGitHubDelivery, sign: (body, secret) => ({ "x-hub-signature-256": `sha256=${hex(body, secret)}` }) };

const hosts: [string, () => Promise<IssueHost>, HostCapabilities, DeliveryContract | undefined][] = [
  [
    "ForgejoApi on the embedded Forgejo",
    async () => {
      world = await forgeWorld({ withIssue: false });
      return world.api();
    },
    FORGEJO_CAPABILITIES,
    forgejoDelivery,
  ],
  ["FakeIssueHost", async () => new FakeIssueHost({ login: "agent", now: () => Date.now() }), FORGEJO_CAPABILITIES, undefined],
  [
    "GitHubHost on GitHub's REST behaviour",
    async () => {
      const rest = new GitHubRest({ repo, now: () => Date.now() });
      const { token } = rest.addUser("agent");
      return new GitHubHost({ apiUrl: rest.apiUrl, token, fetch: rest.fetch, now: () => Date.now() });
    },
    GITHUB_CAPABILITIES,
    githubDelivery,
  ],
];

describe.each(hosts)("IssueHost contract: %s", (_name, open, can, delivery) => issueHostContract(open, can, delivery));
