import { gzipSync, gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { forgeWorld } from "../helpers/forge-fixture.ts";
import type { ForgeWorld } from "../helpers/forge-fixture.ts";

let world: ForgeWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("issue assets (POST/GET /repos/{owner}/{repo}/issues/{index}/assets)", () => {
  it("uploads a file as multipart/form-data, lists it, gets it, and serves its bytes at browser_download_url", async () => {
    const w = (world = await forgeWorld({ withIssue: true }));
    const repo = { owner: "agent", repo: "work" };
    const bytes = gzipSync(Buffer.from('{"a":1}\n{"b":2}\n'));
    const created = await w.api().createIssueAttachment(repo, w.issue, "archive.jsonl.gz", bytes);
    expect(created).toMatchObject({ name: "archive.jsonl.gz", size: bytes.length });
    const listed = await w.api().listIssueAttachments(repo, w.issue);
    expect(listed.map((a) => a.id)).toEqual([created.id]);
    const got = await fetch(`${w.forge.url}/api/v1/repos/agent/work/issues/${w.issue}/assets/${created.id}`, { headers: { authorization: `token ${w.token}` } });
    const raw = (await got.json()) as { id: number; type: string; uuid: string; browser_download_url: string };
    expect(raw).toMatchObject({ id: created.id, type: "attachment", browser_download_url: `${w.forge.url}/attachments/${raw.uuid}` });
    expect(created.downloadUrl).toBe(raw.browser_download_url);
    expect(gunzipSync(await w.api().downloadAttachment(created.downloadUrl)).toString()).toBe('{"a":1}\n{"b":2}\n');
  });

  it("answers 404 for an issue that does not exist and 500 without a file, as Forgejo", async () => {
    const w = (world = await forgeWorld({ withIssue: true }));
    const repo = { owner: "agent", repo: "work" };
    await expect(w.api().createIssueAttachment(repo, 999, "x.gz", Buffer.from("x"))).rejects.toMatchObject({ status: 404 });
    const r = await fetch(`${w.forge.url}/api/v1/repos/agent/work/issues/${w.issue}/assets`, {
      method: "POST",
      headers: { authorization: `token ${w.token}`, "content-type": "multipart/form-data; boundary=x" },
      body: '--x\r\nContent-Disposition: form-data; name="other"\r\n\r\nv\r\n--x--\r\n',
    });
    // ctx.Req.FormFile fails → ctx.Error(500) (routers/api/v1/repo/issue_attachment.go:194-198).
    expect(r.status).toBe(500);
  });
});
