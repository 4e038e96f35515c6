"""Configuration from the same environment variables as the CLI (src/config/env.ts). Errors name the variable."""

from __future__ import annotations

import os
import urllib.parse
from typing import List, Mapping, Optional, Tuple

from .errors import ConfigError

DEFAULT_SESSION_TITLE = "[Automated] CleverAgents Build Session"
DEFAULT_SESSION_LABEL = "Type/Automation"
DEFAULT_MAX_CHECKPOINT_BYTES = 64 * 1024


class Config:
    """The settings, as read from the environment. (A plain class: `dataclasses` imports `inspect`,
    which alone costs a save process more start-up time than the seed's whole import list.)"""

    title: str = DEFAULT_SESSION_TITLE
    label: str = DEFAULT_SESSION_LABEL
    max_checkpoint_bytes: int = DEFAULT_MAX_CHECKPOINT_BYTES

    def __init__(self) -> None:
        self.url: Optional[str] = None
        self.token: Optional[str] = None
        self.owner: Optional[str] = None
        self.repo: Optional[str] = None
        #: where owner/repo came from, in the words the user typed (hints name it)
        self.repo_source: Optional[str] = None
        self.issue: Optional[int] = None
        self.title = DEFAULT_SESSION_TITLE
        self.label = DEFAULT_SESSION_LABEL
        self.trusted_authors: List[str] = []
        self.signing_key: Optional[str] = None
        self.legacy_writers = "fence"
        self.max_checkpoint_bytes = DEFAULT_MAX_CHECKPOINT_BYTES
        self.cache_dir: Optional[str] = None
        self.timeout = 30.0
        self.retries = 4

    def __repr__(self) -> str:
        shown = {k: ("<set>" if k in ("token", "signing_key") and v else v) for k, v in vars(self).items()}
        return "Config(%s)" % ", ".join("%s=%r" % kv for kv in shown.items())


def _int(env: Mapping[str, str], name: str, lo: int, hi: Optional[int] = None) -> Optional[int]:
    v = env.get(name)
    if v is None:
        return None
    try:
        n = int(v.strip())
    except ValueError:
        raise ConfigError("invalid configuration:\n  %s: must be an integer, got %r" % (name, v)) from None
    if n < lo or (hi is not None and n > hi):
        raise ConfigError("invalid configuration:\n  %s: must be %s" % (name, "≥ %d" % lo if hi is None else "between %d and %d" % (lo, hi)))
    return n


def repo_from_env(env: Mapping[str, str], flag: Optional[str] = None) -> Tuple[str, str, str]:
    """owner, repo, source: from a flag, FORGEJO_REPOSITORY=owner/name, FORGEJO_REPO=owner/name, or FORGEJO_OWNER + FORGEJO_REPO=name."""

    def split(spec: str, name: str) -> Tuple[str, str, str]:
        parts = spec.split("/")
        if len(parts) == 2 and parts[0] and parts[1]:
            return parts[0], parts[1], "%s%s%s" % (name, " " if name.startswith("--") else "=", spec)
        raise ConfigError('%s "%s" must be "owner/repo"' % (name, spec))

    if flag is not None:
        return split(flag, "--repo")
    if env.get("FORGEJO_REPOSITORY"):
        return split(env["FORGEJO_REPOSITORY"], "FORGEJO_REPOSITORY")
    r = env.get("FORGEJO_REPO")
    o = env.get("FORGEJO_OWNER")
    if r and "/" in r:
        owner, repo, src = split(r, "FORGEJO_REPO")
        if o and o != owner:
            raise ConfigError('FORGEJO_REPO=%s names owner "%s" but FORGEJO_OWNER=%s: unset one of them' % (r, owner, o))
        return owner, repo, src
    if o and r:
        return o, r, "FORGEJO_OWNER=%s and FORGEJO_REPO=%s" % (o, r)
    if r:
        raise ConfigError("FORGEJO_REPO=%s has no owner: set FORGEJO_REPO=owner/%s (or FORGEJO_OWNER too)" % (r, r))
    raise ConfigError("no repository: set FORGEJO_REPO=owner/repo (or FORGEJO_REPOSITORY=owner/repo, or FORGEJO_OWNER and FORGEJO_REPO)")


def config_from_env(env: Optional[Mapping[str, str]] = None, need_repo: bool = True) -> Config:
    """Read FORGEJO_URL, FORGEJO_TOKEN, FORGEJO_REPO(SITORY)/FORGEJO_OWNER, CHECKPOST_ISSUE, CHECKPOST_SESSION_TITLE,
    CHECKPOST_SESSION_LABEL, CHECKPOST_TRUSTED_AUTHORS, CHECKPOST_SIGNING_KEY, CHECKPOST_LEGACY_WRITERS,
    CHECKPOST_MAX_CHECKPOINT_BYTES, CHECKPOST_CACHE_DIR, CHECKPOST_REQUEST_TIMEOUT_MS, CHECKPOST_RETRIES.
    Empty values mean unset, as for the CLI."""
    raw = os.environ if env is None else env
    e = {k: v for k, v in raw.items() if isinstance(v, str) and v != ""}
    problems: List[str] = []
    c = Config()
    url = e.get("FORGEJO_URL")
    if url is not None:
        p = urllib.parse.urlsplit(url)
        if p.scheme not in ("http", "https") or not p.hostname:
            problems.append("  FORGEJO_URL: must be the instance's base URL, e.g. http://127.0.0.1:3001 (the embedded Forgejo of `npm start`)")
        c.url = url
    c.token = e.get("FORGEJO_TOKEN")
    if "FORGEJO_REPOSITORY" in e:
        parts = e["FORGEJO_REPOSITORY"].split("/")
        if len(parts) != 2 or not all(parts) or any(ch.isspace() for ch in e["FORGEJO_REPOSITORY"]):
            problems.append('  FORGEJO_REPOSITORY: must be "owner/repo"')
    key = e.get("CHECKPOST_SIGNING_KEY")
    if key is not None and len(key) < 16:
        problems.append("  CHECKPOST_SIGNING_KEY: must be at least 16 characters")
    c.signing_key = key
    lw = e.get("CHECKPOST_LEGACY_WRITERS", "fence")
    if lw not in ("fence", "accept"):
        problems.append('  CHECKPOST_LEGACY_WRITERS: must be "fence" (a legacy writer below a take-over\'s epoch is a zombie) or "accept" (believe it)')
    c.legacy_writers = lw
    if problems:
        raise ConfigError("invalid configuration:\n" + "\n".join(problems))
    c.issue = _int(e, "CHECKPOST_ISSUE", 1)
    c.title = e.get("CHECKPOST_SESSION_TITLE", DEFAULT_SESSION_TITLE)
    c.label = e.get("CHECKPOST_SESSION_LABEL", DEFAULT_SESSION_LABEL)
    c.trusted_authors = [x.strip() for x in e.get("CHECKPOST_TRUSTED_AUTHORS", "").split(",") if x.strip()]
    c.max_checkpoint_bytes = _int(e, "CHECKPOST_MAX_CHECKPOINT_BYTES", 1) or DEFAULT_MAX_CHECKPOINT_BYTES
    c.cache_dir = e.get("CHECKPOST_CACHE_DIR")
    t = _int(e, "CHECKPOST_REQUEST_TIMEOUT_MS", 1)
    c.timeout = (t or 30_000) / 1000.0
    r = _int(e, "CHECKPOST_RETRIES", 0, 20)
    c.retries = 4 if r is None else r
    if need_repo or any(k in e for k in ("FORGEJO_REPOSITORY", "FORGEJO_REPO", "FORGEJO_OWNER")):
        c.owner, c.repo, c.repo_source = repo_from_env(e)
    return c


def cache_dir(configured: Optional[str], env: Optional[Mapping[str, str]] = None) -> str:
    """The CLI's per-machine folder: CHECKPOST_CACHE_DIR, else $XDG_CACHE_HOME/checkpost, else ~/.cache/checkpost."""
    e = os.environ if env is None else env
    if configured:
        return configured
    return os.path.join(e.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "checkpost")
