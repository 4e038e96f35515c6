/** Issue 19.9: `$DATA/forge` is owner-only, and attachments are served with `nosniff`. */
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startEmbeddedForgejo } from "../../src/app/embedded-forgejo.ts";
import { forgeWorld, type ForgeWorld } from "../helpers/forge-fixture.ts";

const dirs: string[] = [];
let w: ForgeWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("small fixes of issue 19", () => {
  it("makes $DATA/forge 0700, also when an earlier start left it 0755", async () => {
    for (const pre of [false, true]) {
      const dataDir = mkdtempSync(join(tmpdir(), "forge-mode-"));
      dirs.push(dataDir);
      if (pre) mkdirSync(join(dataDir, "forge"), { mode: 0o755 });
      const world = await startEmbeddedForgejo({ dataDir, port: 0, title: "[Automated] CleverAgents Build Session", label: "Type/Automation", logger: pino({ level: "silent" }) });
      await world.forge.close();
      expect(statSync(join(dataDir, "forge")).mode & 0o777).toBe(0o700);
    }
  });

  it("serves attachments and web assets with X-Content-Type-Options: nosniff", async () => {
    w = await forgeWorld({ withIssue: true });
    // HTML in a .txt file: Forgejo's default ALLOWED_TYPES checks the extension, so this is what gets through.
    const asset = await w.api().createIssueAttachment({ owner: "agent", repo: "work" }, w.issue, "page.txt", Buffer.from("<script>alert(1)</script>"));
    const res = await fetch(asset.downloadUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment;/);
  });
});
