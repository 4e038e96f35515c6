"""The Client: checkpost's semantics for Python agents (src/session-client/session-store.ts, cold-resume.ts,
post-exactly-once.ts, with the CLI's phase maps and caches)."""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

from . import chain as C
from . import protocol as P
from . import resume_index as RI
from .config import Config, cache_dir, config_from_env, env_with_file
from .errors import CheckpointTooLargeError, ConfigError, ForgejoApiError, ProtocolInputError, SessionChainError, SessionIssueNotFoundError
from .forgejo import Forgejo, forgejo_time
from .projection import Comments, Policy, comment_record, parse_time_ms, project, resume_answer

#: How far before the first attempt (server clock) a retried save looks for its own Id.
LOOKBACK_MS = 60_000
#: A pointed comment this few ids below the index's watermark is read with the tail in one request.
ONE_READ_MAX_ID_GAP = 32
#: A plain save checks beside its POST that the issue is still the open head this often (SessionStore.HEAD_RECHECK_MS).
HEAD_RECHECK_S = 60.0
#: A save with check_directive on an issue without a usable resume index reads every comment up to this
#: many (src/session-client/session-store.ts, SAVE_FULL_READ_MAX_COMMENTS); above, fenced is None (unknown).
SAVE_FULL_READ_MAX_COMMENTS = 200
#: How long a remembered login is used without asking Forgejo again (the CLI's LOGIN_CACHE_TTL_MS).
LOGIN_CACHE_TTL_MS = 24 * 3600_000

PhaseMapSpec = Union[None, str, Mapping[str, str]]


def new_checkpoint_id() -> str:
    """"cp-" + 24 hex digits (96 random bits), unique per save: what makes a retried save findable."""
    return "cp-" + os.urandom(12).hex()


class Future:
    """The result of a call running beside the caller (concurrent.futures costs a process start more)."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._value: Any = None
        self._error: Optional[BaseException] = None

    def result(self) -> Any:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value


def _in_thread(fn: Callable[[], Any]) -> Future:
    """Run fn beside the caller (one request's latency hidden behind another's)."""
    fut = Future()

    def run() -> None:
        try:
            fut._value = fn()
        except BaseException as e:  # handed to the caller through the future, never lost
            fut._error = e
        fut._done.set()

    threading.Thread(target=run, daemon=True).start()
    return fut


class _JsonFile:
    """A small JSON map on disk (the issue and login caches), written atomically, owner-only."""

    def __init__(self, path: Optional[str]) -> None:
        self.path = path

    def get(self, key: str) -> Any:
        if not self.path:
            return None
        try:
            with open(self.path, encoding="utf-8") as f:
                d = json.load(f)
            return d.get(key) if isinstance(d, dict) else None
        except (OSError, ValueError):
            return None

    def set(self, key: str, value: Any) -> None:
        if not self.path:
            return
        try:
            try:
                with open(self.path, encoding="utf-8") as f:
                    d = json.load(f)
                if not isinstance(d, dict):
                    d = {}
            except (OSError, ValueError):
                d = {}
            if d.get(key) == value and (value is not None or key not in d):
                return  # nearly always what it holds already: no write
            if value is None:
                d.pop(key, None)
            else:
                d[key] = value
            os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
            tmp = "%s.%d.%s.tmp" % (self.path, os.getpid(), os.urandom(4).hex())
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(d, f)
            os.replace(tmp, self.path)
        except OSError:
            pass  # a cache only saves requests; failing to write it changes no answer


class Client:
    """Save checkpoints exactly once, resume right, follow the session chain.

    >>> c = Client.from_env()                         # FORGEJO_URL, FORGEJO_TOKEN, FORGEJO_REPO...
    >>> c.save("implementation-worker", "s1", "clone_complete", {"branch_name": "feat/x"})
    >>> r = c.resume("implementation-worker", "s1")   # r["resume_point"], r["state"], r["directive"]
    """

    def __init__(
        self,
        url: str,
        token: Optional[str],
        owner: str,
        repo: str,
        *,
        issue: Optional[int] = None,
        title: str = Config.title,
        label: str = Config.label,
        trusted_authors: Optional[List[str]] = None,
        signing_key: Optional[str] = None,
        legacy_writers: str = "fence",
        max_checkpoint_bytes: int = Config.max_checkpoint_bytes,
        timeout: float = 30.0,
        retries: int = 4,
        cache_dir: Optional[str] = None,
        use_cache: bool = True,
        self_login: Optional[str] = None,
        phase_maps: Optional[Mapping[str, Union[str, Mapping[str, str]]]] = None,
        api: Optional[Forgejo] = None,
        repo_source: Optional[str] = None,
    ) -> None:
        if not url:
            raise ConfigError("no Forgejo instance: set FORGEJO_URL (e.g. http://127.0.0.1:3001) or pass url=")
        if legacy_writers not in ("fence", "accept"):
            raise ConfigError('legacy_writers must be "fence" or "accept" (CHECKPOST_LEGACY_WRITERS)')
        self.api = api or Forgejo(url, token, retries=retries, timeout=timeout)
        self.owner = owner
        self.repo = repo
        self.repo_source = repo_source or "%s/%s" % (owner, repo)
        self.title = title
        self.label = label
        self.trusted_authors = list(trusted_authors or [])
        self.signing_key = signing_key or None
        self.legacy_writers = legacy_writers
        self.max_checkpoint_bytes = max_checkpoint_bytes
        self.phase_maps = dict(phase_maps or {})
        self._configured_issue = issue
        self._issue = issue
        self._self = self_login
        # {epoch, next_seq} per agent+session: what resume took over with and the next Seq to write.
        self._writers: Dict[Tuple[str, str], Dict[str, int]] = {}
        d = cache_dir if use_cache else None
        self._token = token or ""
        # The CLI's per-machine memory, same files and keys (src/cli/issue-cache.ts, login-cache.ts,
        # writer-memory.ts): a CLI and a Python agent on one machine share the issue, login and fence.
        self._url = url.rstrip("/")
        if self._url.endswith("/api/v1"):
            self._url = self._url[: -len("/api/v1")]
        self._issue_key = "|".join([self._url, owner, repo, title, label])
        self._issues = _JsonFile(os.path.join(d, "issues.json") if d else None)
        self._logins = _JsonFile(os.path.join(d, "logins.json") if d else None)
        self._writer_file = _JsonFile(os.path.join(d, "writers.json") if d else None)
        # Where each issue's resume index comment is (src/cli/index-ref-cache.ts): a resume skips the issue read.
        self._index_refs = _JsonFile(os.path.join(d, "index-refs.json") if d else None)
        self._index_ref_prefix = "|".join([self._url, owner, repo])
        self._login_looked_up = self._self is not None
        self._head_checked_at = time.monotonic()
        #: the login in use came from the machine's memory, not from Forgejo now (re-checked on a full read)
        self._self_remembered = False
        if self._issue is None:
            cached = self._issues.get(self._issue_key)
            self._issue = cached if isinstance(cached, int) and not isinstance(cached, bool) and cached > 0 else None

    @property
    def _login_key(self) -> str:
        import hashlib  # here, not at the top: a save process never needs it (start-up time)

        return hashlib.sha256(("checkpost-login-v1\n%s\n%s" % (self._url, self._token)).encode("utf-8")).hexdigest()

    def _cached_login(self) -> Optional[str]:
        """The token's login as remembered on this machine for up to 24 h (read once, when first needed)."""
        if not self._login_looked_up:
            self._login_looked_up = True
            v = self._logins.get(self._login_key)
            if self._self is None and isinstance(v, dict) and isinstance(v.get("login"), str) and isinstance(v.get("at"), (int, float)):
                age = time.time() * 1000 - v["at"]
                if 0 <= age < LOGIN_CACHE_TTL_MS:
                    self._self = v["login"]
                    self._self_remembered = True
        return self._self

    def _writer_key(self, agent: str, session: str) -> str:
        return "|".join([self._url, self.owner, self.repo, agent, session])

    def _writer(self, agent: str, session: str) -> Optional[Dict[str, int]]:
        """The fence this handle (else this machine: `resume` in another process) holds for agent+session."""
        held = self._writers.get((agent, session))
        if held is None:
            v = self._writer_file.get(self._writer_key(agent, session))
            if isinstance(v, dict) and isinstance(v.get("epoch"), int) and isinstance(v.get("next_seq"), int) and v["epoch"] >= 0 and v["next_seq"] >= 1:
                held = {"epoch": v["epoch"], "next_seq": v["next_seq"]}
        return held

    def _hold(self, agent: str, session: str, epoch: int, next_seq: int) -> None:
        state = {"epoch": epoch, "next_seq": next_seq}
        self._writers[(agent, session)] = state
        if self._writer_file.get(self._writer_key(agent, session)) != state:
            self._writer_file.set(self._writer_key(agent, session), state)

    @classmethod
    def from_env(cls, env: Optional[Mapping[str, str]] = None, *, env_file: Optional[str] = None, cwd: Optional[str] = None, **overrides: Any) -> "Client":
        """A client configured like the CLI: `env` (default os.environ) filled in from `env_file` (the CLI's
        `--env-file FILE`) or else from ./.env when there is one, a set variable winning over the file's, as
        `checkpost` and `SessionStore.fromEnv()` do; `cwd` is where ./.env and a relative env_file are found.
        Keyword arguments override the environment."""
        e = env_with_file(os.environ if env is None else env, cwd, env_file)
        c = config_from_env(e, need_repo="owner" not in overrides)
        url = overrides.pop("url", c.url)
        if not url:
            raise ConfigError("no Forgejo instance: set FORGEJO_URL to its base URL (e.g. http://127.0.0.1:3001)")
        maps: Dict[str, Union[str, Mapping[str, str]]] = {}
        maps_file = e.get("CHECKPOST_PHASE_MAPS")
        if maps_file:
            maps = _read_maps_file(maps_file)
        kw: Dict[str, Any] = dict(
            issue=c.issue,
            title=c.title,
            label=c.label,
            trusted_authors=c.trusted_authors,
            signing_key=c.signing_key,
            legacy_writers=c.legacy_writers,
            max_checkpoint_bytes=c.max_checkpoint_bytes,
            timeout=c.timeout,
            retries=c.retries,
            cache_dir=cache_dir(c.cache_dir, e),
            phase_maps=maps,
            repo_source=c.repo_source,
        )
        kw.update(overrides)
        token = kw.pop("token", c.token)
        owner = kw.pop("owner", c.owner)
        repo = kw.pop("repo", c.repo)
        return cls(url, token, owner, repo, **kw)

    # ---- the session issue ----

    def issue_number(self, create: bool = False) -> int:
        """The open session issue's number: configured, cached, or found by title and label (newest wins)."""
        if self._issue is not None:
            return self._issue
        matches = self.session_issues()
        if matches:
            n = matches[0]["number"]
        elif create:
            n = self._create_issue()["number"]
        else:
            raise SessionIssueNotFoundError(
                'No open issue titled "%s" with label "%s" in %s/%s. Create it with `checkpost init` (or '
                "Client.issue_number(create=True)), set CHECKPOST_ISSUE, or set CHECKPOST_SESSION_TITLE / CHECKPOST_SESSION_LABEL." % (self.title, self.label, self.owner, self.repo)
            )
        self._set_issue(n)
        return n

    def session_issues(self) -> List[Dict[str, Any]]:
        """Every open session-state issue of the repository, newest first. Forgejo drops unknown label
        names from its filter instead of failing, so the label is checked here too."""
        out: List[Dict[str, Any]] = []
        limit = 50
        page = 1
        while True:
            issues = self.api.list_issues(self.owner, self.repo, state="open", labels=self.label, type="issues", page=page, limit=limit)
            for i in issues:
                if not i.get("pull_request") and self.title in (i.get("title") or "") and any(lb.get("name") == self.label for lb in (i.get("labels") or [])):
                    out.append(i)
            # An instance may answer fewer than `limit` per page (MAX_RESPONSE_ITEMS): only an empty page ends the list.
            if not issues:
                break
            page += 1
        return sorted(out, key=lambda i: -i["number"])

    def _create_issue(self) -> Dict[str, Any]:
        labels: List[Dict[str, Any]] = []
        page = 1
        while True:  # every page: a label on page 2 must not be created twice
            got = self.api.list_labels(self.owner, self.repo, page=page)
            if not got:
                break
            labels.extend(got)
            page += 1
        lab = next((lb for lb in labels if lb.get("name") == self.label), None)
        if lab is None:
            lab = self.api.create_label(self.owner, self.repo, {"name": self.label, "color": "#0075ca", "description": "Automated agent session state"})
        return self.api.create_issue(
            self.owner,
            self.repo,
            {
                "title": self.title,
                "body": "Session state for automated agents: checkpoints (`[CHECKPOINT]`) and health signals (`[HEALTH]`) are posted as comments below.",
                "labels": [lab["id"]],
            },
        )

    def _set_issue(self, n: Optional[int]) -> None:
        self._issue = n
        if self._configured_issue is None:
            self._issues.set(self._issue_key, n)

    def _with_issue(self, fn: Callable[[int], Any]) -> Any:
        """Run fn(issue); a cached number that turned out stale (404, or closed with no successor to
        follow: a person closed it) is forgotten and located again, once."""
        from_cache = self._issue is not None and self._configured_issue is None
        issue = self.issue_number()
        try:
            return fn(issue)
        except (ForgejoApiError, SessionChainError) as e:
            stale = isinstance(e, SessionChainError) or (isinstance(e, ForgejoApiError) and e.status == 404)
            if not (from_cache and stale):
                raise self._hint(e) if isinstance(e, ForgejoApiError) else e
            self._set_issue(None)
            try:
                return fn(self.issue_number())
            except ForgejoApiError as e2:
                raise self._hint(e2)

    def _hint(self, e: ForgejoApiError) -> ForgejoApiError:
        if e.status == 404 and "(repository from " not in str(e):
            e.args = ("%s (repository from %s%s)" % (e.args[0], self.repo_source, ", issue from CHECKPOST_ISSUE" if self._configured_issue else ""),)
        return e

    # ---- trust ----

    def self_login(self) -> str:
        """The token's own login (GET /user once, then remembered on this machine)."""
        if self._cached_login() is None:
            self._learn_self(self.api.current_user()["login"])
        return self._self  # type: ignore[return-value]

    def _learn_self(self, login: str) -> None:
        """Forgejo stated the token's login now: use it, and remember it on this machine."""
        self._cached_login()
        self._self_remembered = False
        self._self = login
        self._logins.set(self._login_key, {"login": login, "at": int(time.time() * 1000)})

    def policy(self) -> Policy:
        """Who is believed: the token's user and CHECKPOST_TRUSTED_AUTHORS, plus the signing key."""
        return Policy([self.self_login()] + self.trusted_authors, self.signing_key, self.legacy_writers)

    # ---- writing ----

    def save(
        self,
        agent: str,
        session: str,
        phase: str,
        data: Optional[Mapping[str, Any]] = None,
        *,
        seq: Optional[int] = None,
        epoch: Optional[int] = None,
        check_directive: bool = False,
    ) -> Dict[str, Any]:
        """Post a checkpoint exactly once: one request when the issue is known. A retry after an unknown
        outcome (reset, timeout, 5xx) first looks for this save's Id, so N saves leave N comments.
        Seq/Epoch continue this handle's memory (set by `resume`, which takes over). With
        `check_directive` (and, without it, once a minute) the issue is read beside the POST: if it was
        closed by a rollover, the save is posted again on the open head of the chain (same Id, so readers
        count it once) and `issue` names the head. With `check_directive`, a directive a person gave is
        returned (`directive`, `fenced`)."""
        state = dict(data or {})
        held = self._writer(agent, session)
        if held is not None and epoch is not None and epoch < held["epoch"]:
            raise ProtocolInputError(
                "epoch %d is below epoch %d, which resume took over with: the checkpoint would be fenced off as a zombie and never "
                "resumed. Pass epoch=%d, seq=%d, or leave both out to continue the fence." % (epoch, held["epoch"], held["epoch"], held["next_seq"])
            )
        if seq is None and held is not None and (epoch is None or epoch == held["epoch"]):
            seq = held["next_seq"]
        if epoch is None and held is not None:
            epoch = held["epoch"]
        cp: Dict[str, Any] = {
            "version": P.PROTOCOL_VERSION,
            "agent": agent,
            "session": session,
            "phase": phase,
            "timestamp": P.python_utc_isoformat(),
            "data": state,
            "id": new_checkpoint_id(),
        }
        if seq is not None:
            cp["seq"] = seq
        if epoch is not None:
            cp["epoch"] = epoch
        if self.signing_key:
            cp["signature"] = P.sign_checkpoint(cp, self.signing_key)
        body = P.format_checkpoint(agent, session, phase, cp["timestamp"], state, cp["id"], cp.get("seq"), cp.get("epoch"), cp.get("signature"))
        self._check_size(body, state, "checkpoint")

        marker = "\nId: %s\n" % cp["id"]

        def run(issue: int) -> Dict[str, Any]:
            # Beside the POST (same latency): is the issue still the open head of the chain? Always with
            # check_directive, else once a minute (a save stays one request; src/session-client/session-store.ts).
            head_read = _in_thread(lambda: self._get_issue(issue)) if check_directive or self._head_check_due() else None
            comment = self._post_exactly_once(issue, body, marker)
            landed = issue
            head: Optional[Dict[str, Any]] = None
            if head_read is not None:
                head = head_read.result()
                if head.get("state") != "open":
                    # Rolled over: this save reached a closed issue. Post it on the open head too (same Id,
                    # so the bot's carry of the first copy is skipped: the head holds something newer).
                    head = self._follow(head)
                    comment = self._post_exactly_once(head["number"], body, marker)
                    landed = head["number"]
                self._head_checked_at = time.monotonic()
            login = (comment.get("user") or {}).get("login")
            if login and self._self != login:
                self._self = login  # in memory only: the disk cache is written by self_login()
            out: Dict[str, Any] = {"comment_id": comment["id"], "issue": landed, "html_url": comment.get("html_url"), "checkpoint": cp}
            if check_directive and head is not None:
                # The decision resume makes, from the index and the tail only (never every comment): the
                # tail holds this save, so a pending rewind or release it satisfied is already lifted.
                r = self._cold_resume(head, agent, session, {}, self.policy, full_read=False)
                if r["via"] == "none":
                    # No resume index to answer from (an issue opened a moment ago, or no bot): a small issue is
                    # read whole, or a zombie's save would answer fenced False (issue 28.5); a large one: unknown.
                    count = head.get("comments")
                    if not isinstance(count, int) or count > SAVE_FULL_READ_MAX_COMMENTS:
                        out["directive"] = None
                        out["fenced"] = None
                        return out
                    r = self._cold_resume(head, agent, session, {}, self.policy, full_read=True)
                out["directive"] = r["directive"]
                out["fenced"] = (epoch or 0) < max(r["maxEpoch"], (r["directive"] or {}).get("epoch") or 0)
            return out

        saved = self._with_issue(run)
        if epoch is not None:
            self._hold(agent, session, epoch, (seq or 0) + 1)
        return saved

    def health(self, agent: str, session: str, metrics: Optional[Mapping[str, Any]] = None, status: str = "Active", next_check: str = P.DEFAULT_NEXT_CHECK) -> Dict[str, Any]:
        """Post a [HEALTH] signal (retried; a duplicate health signal is harmless)."""
        m = dict(metrics or {})
        body = P.format_health(agent, session, P.python_utc_isoformat(), m, status, next_check)
        self._check_size(body, m, "health signal")

        def run(issue: int) -> Dict[str, Any]:
            c = self.api.create_comment(self.owner, self.repo, issue, body)
            return {"comment_id": c["id"], "issue": issue, "html_url": c.get("html_url")}

        return self._with_issue(run)

    def _post_exactly_once(self, issue: int, body: str, marker: str) -> Dict[str, Any]:
        first_ms: List[float] = []
        unknown = [False]

        def attempt(_n: int) -> Dict[str, Any]:
            if unknown[0] and first_ms:
                since = forgejo_time(first_ms[0] - LOOKBACK_MS)
                for c in self.api.list_comments(self.owner, self.repo, issue, since=since):
                    if marker in (c.get("body") or ""):
                        return c
            if not first_ms:
                first_ms.append(time.time() * 1000 + self.api.server_clock_offset_ms)
            try:
                return self.api.create_comment(self.owner, self.repo, issue, body, retry=False)
            except ForgejoApiError as e:
                unknown[0] = unknown[0] or e.outcome_unknown
                raise

        return self.api.with_retry(attempt, "save")

    def _check_size(self, body: str, data: Mapping[str, Any], kind: str) -> None:
        size = len(body.encode("utf-8", "surrogatepass"))
        if size <= self.max_checkpoint_bytes:
            return
        largest = sorted(data, key=lambda key: -len(json.dumps(data[key])))[:3]
        raise CheckpointTooLargeError(size, self.max_checkpoint_bytes, list(largest), kind)

    # ---- reading ----

    def _signing(self, issue: int) -> Optional[Dict[str, str]]:
        return {"key": self.signing_key, "scope": RI.resume_index_scope(self.owner, self.repo, issue)} if self.signing_key else None

    def _read_all(self, issue: int) -> List[Dict[str, Any]]:
        comments = Comments()
        comments.replace_all(comment_record(c) for c in self.api.list_comments(self.owner, self.repo, issue))
        return comments.ordered()

    def entries(self, issue: Optional[int] = None) -> Dict[Tuple[str, str], Dict[str, Any]]:
        """Every agent+session's entry (latest, maxEpoch, control, notUsed) from a full read of the issue."""
        n = issue if issue is not None else self.issue_number()
        return project(self._read_all(n), self.policy())

    def latest(self, agent: str, session: Optional[str] = None, all_issues: bool = False) -> Optional[Dict[str, Any]]:
        """The newest trusted checkpoint of an agent (of one session, or any), or None. `all_issues`: across
        the chain of rolled-over issues (comment ids are global, so newest is highest)."""
        head = self._head()
        issues = [i["number"] for i in C.chain_back(self._get_issue, head["number"], self.policy().trusted)] if all_issues else [head["number"]]
        best: Optional[Dict[str, Any]] = None
        for n in issues:
            for (a, s), e in self.entries(n).items():
                lt = e.get("latest")
                if a == agent and (session is None or s == session) and lt and (best is None or lt["commentId"] > best["commentId"]):
                    best = {**lt, "agent": a, "session": s, "issue": n}
        return best

    def _get_issue(self, n: int) -> Dict[str, Any]:
        return self.api.get_issue(self.owner, self.repo, n)

    def _head(self, meta: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """The open head of the session chain, from the configured or located issue (chain.py's rules:
        a closed issue is followed forward, or SessionChainError)."""
        if meta is None:
            return self._with_issue(lambda n: self._follow(self._get_issue(n)))  # type: ignore[no-any-return]
        return self._follow(meta)

    def _follow(self, meta: Dict[str, Any]) -> Dict[str, Any]:
        if meta.get("state") == "open":
            return meta
        trusted = self.policy().trusted
        head = C.follow_forward(self._get_issue, lambda n, since=None: self.api.list_comments(self.owner, self.repo, n, since=since), meta, trusted)
        self._head_checked_at = time.monotonic()
        if head["number"] != meta["number"]:
            self._set_issue(head["number"])
        return head

    def phase_map_for(self, agent: str, phase_map: PhaseMapSpec = None) -> Tuple[Optional[str], Optional[Dict[str, str]]]:
        """(name, map): the given map (a dict, a built-in name or a JSON file); else this agent's entry in
        CHECKPOST_PHASE_MAPS / phase_maps; else the built-in named like the agent; else (None, None)."""
        spec: Any = phase_map
        if spec is None:
            spec = self.phase_maps.get(agent)
            if spec is None:
                spec = agent if agent in P.BUILTIN_PHASE_MAPS else None
        if spec is None:
            return None, None
        if isinstance(spec, Mapping):
            return "custom", {str(k): str(v) for k, v in spec.items()}
        if spec in P.BUILTIN_PHASE_MAPS:
            return spec, P.BUILTIN_PHASE_MAPS[spec]
        try:
            with open(spec, encoding="utf-8") as f:
                m = json.load(f)
        except (OSError, ValueError) as e:
            raise ConfigError("phase map %s: not a built-in map (%s) and not a readable JSON file (%s)" % (spec, ", ".join(P.BUILTIN_PHASE_MAPS), e)) from None
        if not isinstance(m, dict) or not all(isinstance(v, str) and v for v in m.values()):
            raise ConfigError("phase map %s: must be a JSON object of phase -> resume point strings" % spec)
        return spec, m

    def resume(self, agent: str, session: str, phase_map: PhaseMapSpec = None, take_over: bool = False) -> Dict[str, Any]:
        """Where a restarted worker continues, as `checkpost resume` prints it: resume_point, phase, state,
        mapped/map, checkpoint, next_seq, epoch, directive, not_used (plus via, issue).

        Reads the bot's resume index when there is one (the issue, then one `since` read: 2 requests when
        the pointed checkpoint is recent), verifying what it points to; else every comment. A closed issue
        is followed forward to the open head of its chain. Every resume takes over: this handle's next
        save carries epoch = fence + 1, so a superseded worker's later saves are zombies. `take_over`
        writes that fence at once (the same phase and state under the new epoch)."""
        name, pmap = self.phase_map_for(agent, phase_map)
        login = None if self._cached_login() is not None else _in_thread(self.api.current_user)

        def policy() -> Policy:
            if login is not None and self._self is None:
                self._learn_self(login.result()["login"])
            return self.policy()

        a: Optional[Dict[str, Any]] = None
        issue_no = self._issue
        hint = self._index_ref(issue_no) if issue_no is not None else None
        if hint is not None and issue_no is not None:
            # The warm path (SessionStore.resume with indexRefs): no read of the issue; None means the usual read.
            a = self._cold_resume({"number": issue_no}, agent, session, pmap or {}, policy, hint=hint)
        head = {"number": issue_no} if a is not None else self._head()
        if a is None:
            a = self._cold_resume(head, agent, session, pmap or {}, policy)
        # A remembered login that is wrong (the user was renamed) makes our own checkpoints untrusted, which
        # sends the index path to a full read: only then is it worth a GET /user (as SessionStore.resume).
        if a["via"] == "full" and self._self_remembered:
            before = self._self
            self._learn_self(self.api.current_user()["login"])
            if self._self != before:
                a = self._cold_resume(head, agent, session, pmap or {}, self.policy)
        if a.get("indexRef") is not None:
            self._index_refs.set("%s|%d" % (self._index_ref_prefix, head["number"]), a["indexRef"])
        epoch = a["maxEpoch"] + 1
        seq = (a["checkpoint"] or {}).get("seq") or 0
        self._hold(agent, session, epoch, seq + 1)
        resume_point = a["resume_point"] if (pmap is not None or a["checkpoint"] is None) else a["phase"]
        out: Dict[str, Any] = {"resume_point": resume_point, "phase": a["phase"], "state": a["state"], "mapped": pmap is not None}
        if name is not None:
            out["map"] = name
        out.update({"checkpoint": a["checkpoint"], "next_seq": seq + 1, "epoch": epoch, "directive": a["directive"], "not_used": a["not_used"], "via": a["via"], "issue": head["number"]})
        if take_over and a["checkpoint"] is not None:
            saved = self.save(agent, session, a["phase"], a["state"] if isinstance(a["state"], dict) else {"state": a["state"]})
            out["next_seq"] = seq + 2  # the fence's own save took seq + 1
            out["takeover_comment_id"] = saved["comment_id"]
        return out

    def _index_ref(self, issue: int) -> Optional[Dict[str, Any]]:
        v = self._index_refs.get("%s|%d" % (self._index_ref_prefix, issue))
        if isinstance(v, dict) and isinstance(v.get("comment"), int) and not isinstance(v.get("comment"), bool) and v["comment"] > 0 and isinstance(v.get("since"), str):
            return {"comment": v["comment"], "since": v["since"]}
        return None

    def _cold_resume(
        self, meta: Dict[str, Any], agent: str, session: str, pmap: Dict[str, str], policy_fn: Callable[[], Policy], full_read: bool = True, hint: Optional[Dict[str, Any]] = None
    ) -> Any:
        """src/session-client/cold-resume.ts: the index shortcut, checked; any doubt reads every comment (with
        `full_read=False`: answers nothing instead, `via: "none"`). With `hint` (a remembered index
        comment, coldResumeFromHint): the issue is not read, and any doubt returns None."""
        issue = meta["number"]

        def answer(records: List[Dict[str, Any]], policy: Policy, via: str) -> Dict[str, Any]:
            entries = project(records, policy)
            entry = entries.get((agent, session))
            r = resume_answer(entry, pmap)
            r["maxEpoch"] = entry["maxEpoch"] if entry else 0
            r["via"] = via
            return r

        policy = policy_fn()

        def full() -> Any:
            if hint is not None:
                return None
            return answer(self._read_all(issue), policy, "full") if full_read else answer([], policy, "none")

        signing = self._signing(issue)
        found = self._located_by_hint(issue, hint, signing, policy) if hint is not None else self._locate_index(meta, signing, policy)
        if found is None:
            return full()
        index, written_at, listed = found
        if not index.get("watermarkUpdatedAt"):
            return full()
        # The bot writes the index after reading up to its watermark, so its holder (the body, or the
        # index comment) was updated no earlier.
        watermark_ms = parse_time_ms(index["watermarkUpdatedAt"])
        if watermark_ms > parse_time_ms(written_at):
            return full()
        # From the index comment: the comments listed with it must reach back to the watermark, or the tail has a hole.
        if listed is not None and listed[1] > watermark_ms:
            return full()
        if (index.get("legacyWriters") or "fence") != policy.legacy_writers:
            return full()
        entry = next((e for e in index["entries"] if e["agent"] == agent and e["session"] == session), None)
        if entry is None and not (signing and index.get("complete") is True):
            return full()
        at_ms: Optional[int] = None
        if entry is not None and entry.get("at") is not None:
            at_ms = parse_time_ms(entry["at"])
        one_read = at_ms is not None and entry is not None and (index["watermark"] - entry["commentId"] <= ONE_READ_MAX_ID_GAP or at_ms // 1000 >= watermark_ms // 1000)
        since_ms = min(watermark_ms, at_ms) if one_read and at_ms is not None else watermark_ms
        # Not recent: the pointed comment is fetched beside the tail (same round trip). The index comment
        # came with its tail already: what that lacks is fetched by id below.
        pointed_fetch = _in_thread(lambda: self._comment_or_none(entry["commentId"])) if entry is not None and not one_read and listed is None else None
        tail = listed[0] if listed is not None else self.api.list_comments(self.owner, self.repo, issue, since=forgejo_time(since_ms))
        by_id = {c["id"]: c for c in tail}

        # What the tail does not hold is fetched by id, all at once: the pointed comment, the controls, the not-used ones.
        wanted = ([entry["commentId"]] if entry is not None else []) + list((entry or {}).get("controls", [])) + list((entry or {}).get("notUsed", []))
        fetches: Dict[int, Future] = {}
        if pointed_fetch is not None:
            fetches[entry["commentId"]] = pointed_fetch  # type: ignore[index]
        for cid in wanted:
            if cid not in by_id and cid not in fetches:
                fetches[cid] = _in_thread(lambda cid=cid: self._comment_or_none(cid))  # type: ignore[misc]

        def named(cid: int) -> Optional[Dict[str, Any]]:
            return by_id[cid] if cid in by_id else fetches[cid].result()

        pointed_c = named(entry["commentId"]) if entry is not None else None
        controls_c = [named(i) for i in (entry or {}).get("controls", [])]
        skipped_c = [named(i) for i in (entry or {}).get("notUsed", [])]
        extra: List[Dict[str, Any]] = []
        if entry is not None:
            if pointed_c is None or not RI.comment_on_issue(pointed_c, self.owner, self.repo, issue) or not self._matches_entry(pointed_c, entry, agent, session, policy):
                return full()
            extra.append(pointed_c)
        for c in controls_c:
            if c is None or not RI.comment_on_issue(c, self.owner, self.repo, issue):
                return full()
            extra.append(c)
        for c in skipped_c:
            if c is not None and RI.comment_on_issue(c, self.owner, self.repo, issue):
                extra.append(c)
        records = {c["id"]: comment_record(c) for c in extra}
        records.update({c["id"]: comment_record(c) for c in tail})
        result = answer(list(records.values()), policy, "index")
        if entry is not None:
            if result["checkpoint"] is None or result["checkpoint"]["commentId"] < entry["commentId"]:
                return full()
            if result["maxEpoch"] < entry["maxEpoch"]:
                return full()
            # A comment the index lists as not used (a zombie) came out as the resume point: the short read
            # lacks the control that fenced it (a release older than the tail). Only the full read decides.
            if result["checkpoint"]["commentId"] in (entry.get("notUsed") or []):
                return full()
            # Likewise any other checkpoint below the index's fence: a believed one after the index is at or above it.
            cp = result["checkpoint"]
            # Only a directive that goes back to a checkpoint (a fence with a target: rewind) names one.
            rewound_to = ((result.get("directive") or {}).get("to") or {}).get("commentId")
            if cp["commentId"] != entry["commentId"] and cp["commentId"] != rewound_to and cp.get("epoch") is not None and cp["epoch"] < entry["maxEpoch"]:
                return full()
        # For the cache: next time, the tail from this index's watermark (its comment is updated no earlier).
        ref = hint if hint is not None else (RI.extract_resume_index_ref(RI.index_source(meta)) if listed is not None else None)
        if ref is not None:
            result["indexRef"] = {"comment": ref["comment"], "since": index["watermarkUpdatedAt"]}
        return result

    def _located_by_hint(
        self, issue: int, hint: Dict[str, Any], signing: Optional[Dict[str, str]], policy: Policy
    ) -> Optional[Tuple[Dict[str, Any], str, Optional[Tuple[List[Dict[str, Any]], int]]]]:
        """The remembered index comment, from one `since` read that also holds the tail; None when it is
        not there, not by a trusted login, not on this issue, not a (signed, with a key) index, or when a
        trusted `continued-in` comment says the issue rolled over."""
        try:
            since_ms = parse_time_ms(hint["since"])
        except ValueError:
            return None  # a damaged cache entry: the usual read
        comments = self.api.list_comments(self.owner, self.repo, issue, since=forgejo_time(since_ms))
        if C.successor_named(comments, policy.trusted) is not None:
            return None
        holder = next((c for c in comments if c["id"] == hint["comment"]), None)
        if holder is None or (holder.get("user") or {}).get("login", "").lower() not in policy.trusted:
            return None
        if not RI.comment_on_issue(holder, self.owner, self.repo, issue):
            return None
        index = RI.extract_resume_index_from_comment(holder.get("body"), signing)
        return (index, holder["updated_at"], (comments, since_ms)) if index is not None else None

    def _locate_index(
        self, meta: Dict[str, Any], signing: Optional[Dict[str, str]], policy: Policy
    ) -> Optional[Tuple[Dict[str, Any], str, Optional[Tuple[List[Dict[str, Any]], int]]]]:
        """(index, written_at, listed): the index inline in the body's dashboard section, else in the bot's
        comment the section points to, read with the tail in one request (the comments updated since the
        pointer's `since` hold the index comment, edited after the bot read up to then, and everything
        newer; `listed` is that list and its since in ms). `written_at` is when the holder was last
        updated. Listed from this issue's own endpoint, the index comment is on this issue; it is believed
        only when a trusted login wrote it (the bot's, which must be trusted anyway: it writes the carried
        checkpoints), and is then checked exactly as an inline index (signature with a key, entries)."""
        body = RI.index_source(meta)
        inline = RI.extract_resume_index(body, signing)
        if inline is not None:
            return inline, meta["updated_at"], None
        ref = RI.extract_resume_index_ref(body)
        if ref is None:
            return None
        since_ms = parse_time_ms(ref["since"])
        comments = self.api.list_comments(self.owner, self.repo, meta["number"], since=forgejo_time(since_ms))
        holder = next((c for c in comments if c["id"] == ref["comment"]), None)
        if holder is None or (holder.get("user") or {}).get("login", "").lower() not in policy.trusted:
            return None
        index = RI.extract_resume_index_from_comment(holder.get("body"), signing)
        return (index, holder["updated_at"], (comments, since_ms)) if index is not None else None

    def _comment_or_none(self, cid: int) -> Optional[Dict[str, Any]]:
        try:
            return self.api.get_comment(self.owner, self.repo, cid)
        except ForgejoApiError as e:
            if e.status == 404:
                return None
            raise

    @staticmethod
    def _matches_entry(c: Dict[str, Any], e: Dict[str, Any], agent: str, session: str, policy: Policy) -> bool:
        if (c.get("user") or {}).get("login", "").lower() not in policy.trusted:
            return False
        p = P.parse_comment(c.get("body"))
        if p["kind"] != "checkpoint":
            return False
        return (
            p["agent"] == agent
            and p["session"] == session
            and p.get("id") == e.get("id")
            and p.get("seq") == e.get("seq")
            and (p.get("epoch") or 0) == (e.get("epoch") or 0)
            and ((p.get("epoch") or 0) >= e["maxEpoch"] or len(e.get("controls") or []) > 0)
        )

    def _head_check_due(self) -> bool:
        return time.monotonic() - self._head_checked_at >= HEAD_RECHECK_S

    def close(self) -> None:
        """Close the client's connections (also done when it is garbage-collected or leaves a `with`)."""
        self.api.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.api.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown: nothing left to report to
            pass


def _read_maps_file(path: str) -> Dict[str, Union[str, Mapping[str, str]]]:
    try:
        with open(path, encoding="utf-8") as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        raise ConfigError("CHECKPOST_PHASE_MAPS=%s: not a readable JSON file (%s)" % (path, e)) from None
    if not isinstance(m, dict):
        raise ConfigError("CHECKPOST_PHASE_MAPS=%s: must be a JSON object of agent -> built-in map name or {phase: resume point}" % path)
    return m


__all__ = ["Client", "new_checkpoint_id", "ProtocolInputError"]
