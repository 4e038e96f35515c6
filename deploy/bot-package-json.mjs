#!/usr/bin/env node
// Rewrites ./package.json into the bot image's own: the runtime dependencies plus the optional peer
// dependencies the bot loads (src/cli/optional-packages.ts lists the same; a test keeps them equal),
// at the versions package-lock.json holds, and no devDependencies or scripts. `npm install --omit=dev`
// then installs exactly what the bot needs. (`npm prune --omit=dev` on the full tree removed them: they
// are devDependencies of this repository, so the bot exited with ERR_MODULE_NOT_FOUND prom-client.)
// Plain JavaScript: it runs in the image's deps stage, before anything is compiled.
import { readFileSync, writeFileSync } from "node:fs";

export const BOT_PACKAGES = ["better-sqlite3", "marked", "mermaid", "pg", "probot", "prom-client", "sanitize-html"];

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
const dependencies = { ...pkg.dependencies };
for (const name of BOT_PACKAGES) {
  const version = lock.packages?.[`node_modules/${name}`]?.version;
  if (!version) throw new Error(`deploy/bot-package-json.mjs: ${name} is not in package-lock.json`);
  dependencies[name] = version;
}
const { devDependencies: _d, scripts: _s, peerDependencies: _p, peerDependenciesMeta: _m, ...rest } = pkg;
writeFileSync("package.json", `${JSON.stringify({ ...rest, dependencies }, null, 2)}\n`);
