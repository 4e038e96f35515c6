/** forgeCommand (standalone entry) and the module boundary of src/forge. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";
import { forgeCommand } from "../../src/embedded-forge/index.ts";
import { api, asRecord } from "./helpers.ts";

it("forgeCommand creates the first admin, an optional repo, and prints a working token", async () => {
  const lines: string[] = [];
  const forge = await forgeCommand({ port: 0, createUser: "ops", createRepo: "ops/demo", log: (l) => lines.push(l), logLevel: "silent" });
  try {
    const tokenLine = lines.find((l) => l.includes("token for ops:"));
    expect(tokenLine).toBeDefined();
    const token = tokenLine!.split(": ").pop()!;
    expect(token).toMatch(/^[0-9a-f]{40}$/);
    const me = asRecord((await api(forge, "GET", "/user", { token })).json);
    expect([me.login, me.is_admin]).toEqual(["ops", true]);
    expect((await api(forge, "GET", "/repos/ops/demo")).status).toBe(200);
    expect((await api(forge, "POST", "/user/repos", { token, body: { name: "more" } })).status).toBe(201);
  } finally {
    await forge.close();
  }
});

it("src/embedded-forge imports nothing from elsewhere in src/", () => {
  const root = resolve(import.meta.dirname, "../../src/embedded-forge");
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(".ts")) files.push(p);
    }
  };
  walk(root);
  expect(files.length).toBeGreaterThan(10);
  for (const f of files) {
    for (const m of readFileSync(f, "utf8").matchAll(/from\s+"(\.[^"]+)"/g)) {
      const target = resolve(join(f, ".."), m[1]!);
      expect(target.startsWith(root), `${f} imports ${m[1]}`).toBe(true);
    }
  }
});
