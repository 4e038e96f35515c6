"""Configuration from the same environment variables as the CLI (src/config/env.ts). Errors name the variable."""

from __future__ import annotations

import os
import urllib.parse
from typing import Dict, List, Mapping, Optional, Tuple

from .errors import ConfigError, EnvFileError

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


def _trim(s: str) -> str:
    # Node trims spaces only: a tab is part of a key or a value.
    return s.strip(" ")


def parse_env(text: str) -> Dict[str, str]:
    """A dotenv file's variables, as the CLI reads them: Node's own parser (util.parseEnv, Node 20.19+),
    rule for rule, so that `.env` means the same to the TypeScript and the Python readers.

    `KEY=value`, spaces around both trimmed (tabs kept); `export KEY=value`; a `#` line is a comment, and an
    unquoted value ends at the first `#`; a value in '...', "..." or `...` is taken verbatim up to the same
    quote, across lines, and only "..." turns a backslash-n into a newline; what follows the closing quote on
    its line is ignored; `\r` is dropped everywhere; a later line wins. Node's own oddities are kept too
    (fixtures/conformance/env-file.json pins them against the running Node): a line without `=` runs into
    the next line's key, a line with an empty key (`=value`) ends the file, and an opening quote that is
    never closed keeps its line as the value with the quote, or with no line end left, sets nothing."""
    out: Dict[str, str] = {}
    content = _trim(text.replace("\r", ""))
    while content:
        if content[0] in "\n#":
            nl = content.find("\n")
            if nl != -1:
                content = content[nl + 1 :]
                continue
        eq = content.find("=")
        if eq == -1:
            break
        raw_key = content[:eq]
        key: Optional[str] = _trim(raw_key)
        content = content[eq + 1 :]
        if not key:
            if not raw_key:
                break
            # A key of spaces only: Node 20 reads past its buffer here and sets a junk name ("\n"); it
            # parses the value as usual, so this does too, and sets nothing.
            key = None
        elif key.startswith("export "):
            key = key[7:]

        def put(v: str) -> None:
            if key is not None:
                out[key] = v  # a later line wins

        if not content:
            put("")
            break
        content = _trim(content)
        q = content[0] if content else ""
        close = content.find(q, 1) if q in ("'", '"', "`") else -1
        if q in ("'", '"', "`"):
            if close != -1:
                put(content[1:close].replace("\\n", "\n") if q == '"' else content[1:close])
                nl = content.find("\n", close + 1)
                if q == '"':
                    content = content[nl + 1 :] if nl != -1 else ""
                else:
                    content = content[nl:] if nl != -1 else ""
            else:
                nl = content.find("\n")
                if nl != -1:
                    put(content[:nl])
                    content = content[nl:]
                # else: nothing is set, and the rest is read again from the quote on
        else:
            nl = content.find("\n")
            value = content if nl == -1 else content[:nl]
            h = value.find("#")
            put(_trim(value if h == -1 else value[:h]))
            content = "" if nl == -1 else content[nl:]
        content = _trim(content)
    return out


def env_with_file(env: Mapping[str, str], cwd: Optional[str] = None, env_file: Optional[str] = None) -> Dict[str, str]:
    """The environment the CLI would see (src/cli/env-file.ts): `env`, filled in from `env_file` (the CLI's
    `--env-file FILE`, relative to `cwd`) or, without it, from `.env` in `cwd` when there is one. A variable
    already set and not empty wins over the file's. A named file that cannot be read is a ConfigError; a
    missing `.env` is the common case and reads as no file."""
    base = os.getcwd() if cwd is None else cwd
    path = os.path.abspath(os.path.join(base, ".env" if env_file is None else env_file))
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        if env_file is None and isinstance(e, FileNotFoundError):
            return dict(env)
        name = ".env" if env_file is None else "env_file %s" % env_file
        raise EnvFileError("cannot read %s (%s): %s; pass env_file= the path of a dotenv file (as the CLI's --env-file)" % (name, path, e.strerror or e)) from None
    merged = dict(env)
    for k, v in parse_env(text).items():
        if not merged.get(k):
            merged[k] = v
    return merged


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
