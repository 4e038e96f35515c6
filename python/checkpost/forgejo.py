"""A thin Forgejo REST client on the standard library: keep-alive connections, retries with jittered
exponential backoff for network errors, 5xx and 429 (honouring Retry-After), and errors that say what
to fix (the messages of src/forgejo-client/forgejo-error.ts)."""

from __future__ import annotations

import http.client
import json
import random
import socket
import threading
import time
import urllib.parse
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar

from .errors import ForgejoApiError, ForgejoResponseError

T = TypeVar("T")
#: Reuse a kept-alive connection only if it was used this recently (servers close idle ones: Go's default is longer).
IDLE_REUSE_S = 4.0


def forgejo_time(ms: float) -> str:
    """Forgejo's `since`/`before` format (whole seconds, UTC)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(ms // 1000)))


def _error_message(status: int, said: str, method: str, what: str) -> str:
    if status == 401:
        return "Forgejo rejected the token (401). Check FORGEJO_TOKEN: it may be mistyped, expired, revoked or from another instance.%s" % said
    if status == 403:
        return "Forgejo refused %s on %s (403): the token lacks the write:issue (or read:issue) scope, or the repository is archived or the issue locked.%s" % (method, what, said)
    if status == 404:
        return "Not found (404): %s does not exist, or the token's user cannot see it. Check the repository (owner/name) and the issue number you configured.%s" % (what, said)
    if status in (409, 422):
        return "Forgejo rejected the request to %s (%d).%s" % (what, status, said or " Check the values sent.")
    if status == 429:
        return "Forgejo is rate limiting (429) and retries ran out. Wait and try again, or lower the request rate.%s" % said
    if status >= 500:
        return "Forgejo failed (%d) on %s %s and retries ran out. Check the server's health and try again.%s" % (status, method, what, said)
    return "Forgejo answered %d on %s %s.%s" % (status, method, what, said)


class Forgejo:
    """One instance + token. `request` retries; `request(..., retry=False)` is one attempt."""

    def __init__(
        self,
        url: str,
        token: Optional[str] = None,
        retries: int = 4,
        timeout: float = 30.0,
        min_retry_delay: float = 0.25,
        max_retry_delay: float = 10.0,
        max_retry_after: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("FORGEJO_URL must be the instance's base URL, e.g. http://127.0.0.1:3001, got %r" % url)
        path = parts.path.rstrip("/")
        if path.endswith("/api/v1"):
            path = path[: -len("/api/v1")]
        self.scheme = parts.scheme
        self.host = parts.hostname
        self.port = parts.port
        self.base_path = path + "/api/v1"
        self.api_url = "%s://%s%s%s" % (parts.scheme, parts.hostname, ":%d" % parts.port if parts.port else "", self.base_path)
        self.token = token
        self.retries = retries
        self.timeout = timeout
        self.min_retry_delay = min_retry_delay
        self.max_retry_delay = max_retry_delay
        self.max_retry_after = max_retry_after
        self.sleep = sleep
        self.request_count = 0
        self.server_clock_offset_ms = 0.0
        self._local = threading.local()
        self._lock = threading.Lock()
        self._conns: List[http.client.HTTPConnection] = []

    # -- connections --
    def _conn(self) -> http.client.HTTPConnection:
        c = getattr(self._local, "conn", None)
        # A kept-alive connection idle for a while may be closed by the server as we write to it; a
        # POST lost that way has an unknown outcome (a lookup before it is retried): start afresh instead.
        if c is not None and time.monotonic() - getattr(self._local, "used", 0.0) > IDLE_REUSE_S:
            self._drop_conn()
            c = None
        if c is None:
            if self.scheme == "https":
                c = http.client.HTTPSConnection(self.host, self.port, timeout=self.timeout)
            else:
                c = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self._local.conn = c
            with self._lock:
                self._conns.append(c)
        return c

    def _drop_conn(self) -> None:
        c = getattr(self._local, "conn", None)
        if c is not None:
            with self._lock:
                if c in self._conns:
                    self._conns.remove(c)
            try:
                c.close()
            except OSError:
                pass
        self._local.conn = None

    def close(self) -> None:
        """Close every kept-alive connection (this thread's and those of helper threads)."""
        with self._lock:
            conns, self._conns = self._conns, []
        for c in conns:
            try:
                c.close()
            except OSError:
                pass
        self._local.conn = None

    # -- one attempt --
    def _once(self, method: str, path: str, params: Optional[Dict[str, Any]], body: Any, what: str) -> Tuple[int, Any]:
        with self._lock:
            self.request_count += 1
        q = {k: v for k, v in (params or {}).items() if v is not None}
        target = self.base_path + path + ("?" + urllib.parse.urlencode(q) if q else "")
        headers = {"Accept": "application/json", "User-Agent": "checkpost-python"}
        if self.token:
            headers["Authorization"] = "token " + self.token
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        # A kept-alive connection the server closed meanwhile fails before anything is sent: one fresh try.
        for fresh in (False, True):
            conn = self._conn()
            sent = False
            try:
                conn.request(method, target, body=data, headers=headers)
                sent = True
                res = conn.getresponse()
                raw = res.read()
                self._local.used = time.monotonic()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as e:
                self._drop_conn()
                if not fresh and (not sent or isinstance(e, http.client.RemoteDisconnected)) and method == "GET":
                    continue
                raise ForgejoApiError(
                    "Could not reach Forgejo for %s %s: %s. Check FORGEJO_URL and that the server is up." % (method, what, e or type(e).__name__), 0, method, target
                ) from None
            except (OSError, http.client.HTTPException) as e:
                self._drop_conn()
                reason = "timed out" if isinstance(e, socket.timeout) else str(e) or type(e).__name__
                raise ForgejoApiError("Could not reach Forgejo for %s %s: %s. Check FORGEJO_URL and that the server is up." % (method, what, reason), 0, method, target) from None
        date = res.getheader("Date")
        if date:
            try:
                self.server_clock_offset_ms = parsedate_to_datetime(date).timestamp() * 1000 - time.time() * 1000
            except (TypeError, ValueError):
                pass
        if res.getheader("Connection", "").lower() == "close":
            self._drop_conn()
        ctype = (res.getheader("Content-Type") or "").lower()
        parsed: Any = None
        if raw:
            if "json" in ctype:
                try:
                    parsed = json.loads(raw.decode("utf-8"))
                except ValueError:
                    parsed = raw.decode("utf-8", "replace")
            else:
                parsed = raw.decode("utf-8", "replace")
        if res.status >= 400:
            said = ""
            if isinstance(parsed, dict) and isinstance(parsed.get("message"), str) and parsed["message"]:
                said = ' Forgejo said: "%s".' % parsed["message"]
            raise ForgejoApiError(_error_message(res.status, said, method, what), res.status, method, target, res.getheader("Retry-After"))
        return res.status, parsed

    # -- retry policy --
    def with_retry(self, fn: Callable[[int], T], label: str = "request") -> T:
        attempt = 0
        while True:
            attempt += 1
            try:
                return fn(attempt)
            except ForgejoApiError as e:
                if not e.retryable or attempt > self.retries:
                    raise
                self.sleep(self._delay(e, attempt))

    def _delay(self, e: ForgejoApiError, attempt: int) -> float:
        if e.status == 429 and e.retry_after:
            v = e.retry_after.strip()
            wait: Optional[float] = None
            try:
                wait = float(v)
            except ValueError:
                try:
                    wait = max(0.0, parsedate_to_datetime(v).timestamp() - time.time())
                except (TypeError, ValueError):
                    wait = None
            if wait is not None:
                if wait > self.max_retry_after:
                    raise e
                return wait
        base = min(self.max_retry_delay, self.min_retry_delay * 2 ** (attempt - 1))
        return base * (0.5 + random.random() / 2)

    def request(self, method: str, path: str, params: Optional[Dict[str, Any]] = None, body: Any = None, what: Optional[str] = None, retry: bool = True) -> Any:
        w = what or path
        if not retry:
            return self._once(method, path, params, body, w)[1]
        return self.with_retry(lambda _n: self._once(method, path, params, body, w)[1], method + " " + path)

    # -- endpoints --
    def current_user(self) -> Dict[str, Any]:
        u = self.request("GET", "/user", what="the token's user")
        return _shape(u, dict, "GET /user")

    def get_issue(self, owner: str, repo: str, number: int) -> Dict[str, Any]:
        return _shape(self.request("GET", "/repos/%s/%s/issues/%d" % (_q(owner), _q(repo), number), what="issue #%d of %s/%s" % (number, owner, repo)), dict, "GET issue")

    def list_issues(self, owner: str, repo: str, **params: Any) -> List[Dict[str, Any]]:
        return _shape(self.request("GET", "/repos/%s/%s/issues" % (_q(owner), _q(repo)), params=params, what="repository %s/%s" % (owner, repo)), list, "GET issues")

    def create_issue(self, owner: str, repo: str, body: Dict[str, Any]) -> Dict[str, Any]:
        return _shape(self.request("POST", "/repos/%s/%s/issues" % (_q(owner), _q(repo)), body=body, what="repository %s/%s" % (owner, repo)), dict, "POST issue")

    def list_labels(self, owner: str, repo: str, page: int = 1) -> List[Dict[str, Any]]:
        return _shape(self.request("GET", "/repos/%s/%s/labels" % (_q(owner), _q(repo)), params={"limit": 50, "page": page}, what="repository %s/%s" % (owner, repo)), list, "GET labels")

    def create_label(self, owner: str, repo: str, body: Dict[str, Any]) -> Dict[str, Any]:
        return _shape(self.request("POST", "/repos/%s/%s/labels" % (_q(owner), _q(repo)), body=body, what="repository %s/%s" % (owner, repo)), dict, "POST label")

    def list_comments(self, owner: str, repo: str, number: int, since: Optional[str] = None, before: Optional[str] = None) -> List[Dict[str, Any]]:
        return _shape(
            self.request("GET", "/repos/%s/%s/issues/%d/comments" % (_q(owner), _q(repo), number), params={"since": since, "before": before}, what="issue #%d of %s/%s" % (number, owner, repo)),
            list,
            "GET comments",
        )

    def get_comment(self, owner: str, repo: str, cid: int) -> Dict[str, Any]:
        return _shape(self.request("GET", "/repos/%s/%s/issues/comments/%d" % (_q(owner), _q(repo), cid), what="comment %d of %s/%s" % (cid, owner, repo)), dict, "GET comment")

    def create_comment(self, owner: str, repo: str, number: int, body: str, retry: bool = True) -> Dict[str, Any]:
        return _shape(
            self.request("POST", "/repos/%s/%s/issues/%d/comments" % (_q(owner), _q(repo), number), body={"body": body}, what="issue #%d of %s/%s" % (number, owner, repo), retry=retry),
            dict,
            "POST comment",
        )


def _q(s: str) -> str:
    return urllib.parse.quote(s, safe="")


def _shape(v: Any, t: type, route: str) -> Any:
    if not isinstance(v, t):
        raise ForgejoResponseError("Forgejo's answer to %s does not have the expected shape (a JSON %s). Is FORGEJO_URL a Forgejo/Gitea instance?" % (route, "object" if t is dict else "array"))
    return v
