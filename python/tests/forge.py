"""The embedded Forgejo for the Python end-to-end tests, started from the built CLI
(`node bin/checkpost.cjs forge --port 0 --data DIR --user LOGIN --repo owner/name`).

The standalone forge prints one token, for the user it was started with. Tokens for more users come
from starting it on the same data folder once per extra user first (tokens are stored, so they stay
valid), then starting it for good with the main user and its repository.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import unittest
import urllib.request
from typing import Dict, List, Optional

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.join(ROOT, "bin", "checkpost.cjs")
BUILT = os.path.exists(os.path.join(ROOT, "dist", "cli-bundle", "hot.cjs")) and os.path.exists(os.path.join(ROOT, "dist", "index.js"))
NODE = shutil.which("node")


def require_built() -> None:
    """Skip (outside CI) or fail (CHECKPOST_CI=1) when the CLI is not built: CI must never pass by skipping."""
    if BUILT and NODE:
        return
    msg = "the built CLI is missing: run `npm run build` (dist/) and have node on PATH"
    if os.environ.get("CHECKPOST_CI") == "1":
        raise AssertionError(msg)
    raise unittest.SkipTest(msg)


class Forge:
    def __init__(self, main: str = "agent", others: List[str] = (), repo: str = "work") -> None:  # type: ignore[assignment]
        require_built()
        self.dir = tempfile.mkdtemp(prefix="checkpost-py-forge-")
        self.tokens: Dict[str, str] = {}
        self.owner = main
        self.repo = repo
        for u in others:
            p = self._start(["--user", u])
            self._read_until(p, u)
            p.terminate()
            p.wait(10)
            if p.stdout:
                p.stdout.close()
        self.proc = self._start(["--user", main, "--repo", "%s/%s" % (main, repo)])
        self.url = self._read_until(self.proc, main)
        # Keep reading what it prints, so a full pipe can never block the server.
        threading.Thread(target=lambda: [None for _ in self.proc.stdout or []], daemon=True).start()
        self.cache = tempfile.mkdtemp(prefix="checkpost-py-cache-")

    def _start(self, extra: List[str]) -> subprocess.Popen:
        return subprocess.Popen(
            [NODE or "node", BIN, "forge", "--port", "0", "--data", self.dir, *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "LOG_LEVEL": "warn"},
        )

    def _read_until(self, p: subprocess.Popen, user: str) -> str:
        url = None
        assert p.stdout is not None
        for line in p.stdout:
            m = re.search(r"listening on (http://\S+) \(API", line)
            if m:
                url = m.group(1)
            m = re.search(r"token for (\S+): ([0-9a-f]{40})", line)
            if m:
                self.tokens[m.group(1)] = m.group(2)
            if url and user in self.tokens:
                return url
        raise RuntimeError("forge exited before printing its URL and a token for %s" % user)

    def env(self, user: Optional[str] = None, **extra: str) -> Dict[str, str]:
        """The environment an agent of `user` runs with (the CLI's variables)."""
        e = {k: v for k, v in os.environ.items() if not k.startswith(("CHECKPOST_", "FORGEJO_"))}
        e.update(
            FORGEJO_URL=self.url,
            FORGEJO_TOKEN=self.tokens[user or self.owner],
            FORGEJO_REPOSITORY="%s/%s" % (self.owner, self.repo),
            CHECKPOST_CACHE_DIR=tempfile.mkdtemp(dir=self.cache),
            LOG_LEVEL="warn",
        )
        e.update(extra)
        return e

    def api(self, method: str, path: str, body: object = None, user: Optional[str] = None) -> object:
        """A raw API call as `user` (test set-up: close an issue, edit a comment...)."""
        req = urllib.request.Request(
            self.url + "/api/v1" + path,
            data=None if body is None else json.dumps(body).encode(),
            method=method,
            headers={"Authorization": "token " + self.tokens[user or self.owner], "Content-Type": "application/json", "Accept": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            raw = r.read()
        return json.loads(raw) if raw else None

    def cli(self, args: List[str], env: Dict[str, str]) -> object:
        """The checkpost CLI (the built bin), one JSON line out."""
        out = subprocess.run([NODE or "node", BIN, *args], env=env, capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise AssertionError("checkpost %s exited %d: %s" % (" ".join(args), out.returncode, out.stderr))
        return json.loads(out.stdout.strip().splitlines()[-1])

    def node(self, script: str, env: Dict[str, str], *args: str) -> object:
        """A TypeScript library agent: a script importing the built package (dist/index.js)."""
        out = subprocess.run([NODE or "node", "--input-type=module", "-e", script, *args], env={**env, "CHECKPOST_DIST": os.path.join(ROOT, "dist", "index.js")}, capture_output=True, text=True, timeout=60, cwd=ROOT)
        if out.returncode != 0:
            raise AssertionError("node script exited %d: %s" % (out.returncode, out.stderr))
        return json.loads(out.stdout.strip().splitlines()[-1])

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        if self.proc.stdout:
            self.proc.stdout.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.rmtree(self.cache, ignore_errors=True)


#: A library agent: the TypeScript SessionStore saving, or resuming, through the built package.
LIBRARY_AGENT = r"""
const { SessionStore, ForgejoApi, ForgejoClient } = await import(process.env.CHECKPOST_DIST);
const [owner, repo] = process.env.FORGEJO_REPOSITORY.split("/");
const api = new ForgejoApi(new ForgejoClient({ url: process.env.FORGEJO_URL, token: process.env.FORGEJO_TOKEN }));
const store = new SessionStore({ api, repo: { owner, repo }, trustedAuthors: (process.env.CHECKPOST_TRUSTED_AUTHORS ?? "").split(",").filter(Boolean), signingKey: process.env.CHECKPOST_SIGNING_KEY });
const [cmd, agent, session, phase, data] = process.argv.slice(1);
const out = cmd === "save" ? await store.save({ agent, session, phase, data: JSON.parse(data) }) : await store.resume(agent, session, {});
console.log(JSON.stringify(out));
"""

#: The bot's part for a test: fold the issue and write the signed resume index into its body, as the bot does.
WRITE_INDEX = r"""
const m = await import(process.env.CHECKPOST_DIST);
const [owner, repo] = process.env.FORGEJO_REPOSITORY.split("/");
const issue = Number(process.argv[1]);
const api = new m.ForgejoApi(new m.ForgejoClient({ url: process.env.FORGEJO_URL, token: process.env.FORGEJO_TOKEN }));
const me = (await api.currentUser()).login;
const p = m.createProjection({ trustedAuthors: new Set([me, ...(process.env.CHECKPOST_TRUSTED_AUTHORS ?? "").split(",").filter(Boolean)]), ...(process.env.CHECKPOST_SIGNING_KEY ? { signingKey: process.env.CHECKPOST_SIGNING_KEY } : {}) });
p.replaceAll((await api.listComments({ owner, repo }, issue)).map(m.toCommentRecord));
const key = process.env.CHECKPOST_SIGNING_KEY;
const line = m.formatResumeIndex(m.buildResumeIndex(p.snapshot()), key ? { key, scope: m.resumeIndexScope(owner, repo, issue) } : undefined);
await api.editIssue({ owner, repo }, issue, { body: `Session issue.\n\n${m.DASHBOARD_START}\n${line}\n${m.DASHBOARD_END}\n` });
console.log(JSON.stringify({ ok: true }));
"""

#: The bot's part for a large index (src/bot/upkeep/dashboard-writer.ts): over 8 KiB, the signed index goes to
#: one comment of the bot's (created, then edited) and the body's dashboard section holds the pointer.
#: Prints the index's size and where it went.
WRITE_INDEX_COMMENT = r"""
const m = await import(process.env.CHECKPOST_DIST);
const [owner, repo] = process.env.FORGEJO_REPOSITORY.split("/");
const issue = Number(process.argv[1]);
const held = process.argv[2] ? Number(process.argv[2]) : null;
const api = new m.ForgejoApi(new m.ForgejoClient({ url: process.env.FORGEJO_URL, token: process.env.FORGEJO_TOKEN }));
const me = (await api.currentUser()).login;
const p = m.createProjection({ trustedAuthors: new Set([me, ...(process.env.CHECKPOST_TRUSTED_AUTHORS ?? "").split(",").filter(Boolean)]), ...(process.env.CHECKPOST_SIGNING_KEY ? { signingKey: process.env.CHECKPOST_SIGNING_KEY } : {}) });
p.replaceAll((await api.listComments({ owner, repo }, issue)).filter((c) => !c.body.includes(m.RESUME_INDEX_OPEN)).map(m.toCommentRecord));
const key = process.env.CHECKPOST_SIGNING_KEY;
const ix = m.buildResumeIndex(p.snapshot());
const text = m.formatResumeIndex(ix, key ? { key, scope: m.resumeIndexScope(owner, repo, issue) } : undefined);
const bytes = Buffer.byteLength(text);
if (bytes <= 8 * 1024) throw new Error(`index is ${bytes} bytes: the test needs one over 8 KiB`);
const body = `_checkpost resume index: where each agent session's resume point is, for readers without the bot._\n\n${text}`;
const c = held ? await api.editComment({ owner, repo }, held, body) : await api.createComment({ owner, repo }, issue, body);
const ref = m.formatResumeIndexRef({ comment: c.id, since: ix.watermarkUpdatedAt });
await api.editIssue({ owner, repo }, issue, { body: `Session issue.\n\n${m.DASHBOARD_START}\n${ref}\n${m.DASHBOARD_END}\n` });
console.log(JSON.stringify({ bytes, comment: c.id }));
"""

#: The TypeScript cold reader (SessionStore.resume) counting its requests to the forge.
COUNTED_RESUME = r"""
const m = await import(process.env.CHECKPOST_DIST);
const [owner, repo] = process.env.FORGEJO_REPOSITORY.split("/");
const [agent, session] = process.argv.slice(1);
let requests = 0;
const counting = (input, init) => { requests++; return fetch(input, init); };
const api = new m.ForgejoApi(new m.ForgejoClient({ url: process.env.FORGEJO_URL, token: process.env.FORGEJO_TOKEN, fetch: counting }));
const store = new m.SessionStore({ api, repo: { owner, repo }, issue: Number(process.env.CHECKPOST_ISSUE), selfLogin: process.env.SELF_LOGIN, trustedAuthors: (process.env.CHECKPOST_TRUSTED_AUTHORS ?? "").split(",").filter(Boolean), signingKey: process.env.CHECKPOST_SIGNING_KEY });
const r = await store.resume(agent, session, {});
console.log(JSON.stringify({ requests, via: r.via, phase: r.phase, commentId: r.checkpoint?.commentId ?? null }));
"""
