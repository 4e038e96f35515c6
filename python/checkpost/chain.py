"""The session chain: after a rollover the issue continues in a successor (src/chain/chain-links.ts,
issue-chain.ts). The only module that knows the link markers and the rules for following them.

- Backward: a successor's body opens with `<!-- checkpost:continues #N -->`.
- Forward: the closed predecessor carries a comment `<!-- checkpost:continued-in #M -->`.
The rules are src/chain/chain-rules.ts's (docs/chain.md): only a `continued-in` comment by a trusted
author counts, and the issue it names is followed only when that same author opened it, it links back
and shares the title; a closed issue with no such link is an error, never read or written as the session.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional, Set

from .errors import SessionChainError

#: At most this many issues are followed back (a loop of forged markers cannot run forever).
MAX_CHAIN = 1000
#: At most this many links are followed forward (src/chain/open-head.ts MAX_HOPS).
MAX_HOPS = 64
#: The bot leaves its `continued-in` comment just before it closes the issue: the comments updated from
#: this long before `closed_at` are read first, every comment only when none is found there.
CLOSE_LOOKBACK_MS = 10 * 60_000
_CONTINUES = re.compile(r"<!-- checkpost:continues #(\d+) -->")
_CONTINUED_IN = re.compile(r"<!-- checkpost:continued-in #(\d+) -->")


def continued_from(body: Optional[str]) -> Optional[int]:
    """The issue this body says it continues, or None."""
    m = _CONTINUES.search(body or "")
    return int(m.group(1)) if m else None


def continued_in(body: Optional[str]) -> Optional[int]:
    """The successor a "continued in" comment names, or None."""
    m = _CONTINUED_IN.search(body or "")
    return int(m.group(1)) if m else None


def _login(x: Dict[str, Any]) -> str:
    return str((x.get("user") or {}).get("login") or "").lower()


def successor_named(comments: List[Dict[str, Any]], trusted: Set[str]) -> Optional[Dict[str, Any]]:
    """{"successor", "author"}: the newest `continued-in` comment by a trusted author (anyone may comment,
    so others are ignored), or None (src/chain/chain-rules.ts successorNamed)."""
    best: Optional[Dict[str, Any]] = None
    for c in comments:
        n = continued_in(c.get("body"))
        if n is None or _login(c) not in trusted:
            continue
        if best is None or c["id"] > best["id"]:
            best = {"id": c["id"], "successor": n, "author": (c.get("user") or {}).get("login", "")}
    return None if best is None else {"successor": best["successor"], "author": best["author"]}


def followable_successor(candidate: Dict[str, Any], previous: int, title: Optional[str], trusted: Set[str], link_author: Optional[str] = None) -> bool:
    """A link is followed only to an issue a trusted login opened, that links back to `previous` and has
    the same title; from a `continued-in` comment, its opener must be that comment's author."""
    opener = _login(candidate)
    return (
        candidate.get("title") == title
        and continued_from(candidate.get("body")) == previous
        and opener in trusted
        and (link_author is None or link_author.lower() == opener)
    )


def follow_forward(
    get_issue: Callable[[int], Dict[str, Any]],
    list_comments: Callable[..., List[Dict[str, Any]]],
    start: Dict[str, Any],
    trusted: Set[str],
) -> Dict[str, Any]:
    """From a session issue (as read) to the open head of its chain (src/chain/open-head.ts): an issue
    found closed is never trusted as the place to read or write. Per closed issue: its comments updated
    from 10 minutes before `closed_at` (`list_comments(n, since=...)`), every comment only when those
    name no successor, then the successor. Raises SessionChainError when a closed issue names no
    successor by a trusted author, or names one that fails `followable_successor`."""
    from .forgejo import forgejo_time
    from .projection import parse_time_ms

    issue = start
    passed: List[int] = []
    while issue.get("state") != "open":
        if len(passed) >= MAX_HOPS:
            raise SessionChainError("followed %d rollovers from #%d without reaching an open issue; set CHECKPOST_ISSUE to the open session issue" % (MAX_HOPS, passed[0]))
        passed.append(issue["number"])
        named = None
        closed_at = issue.get("closed_at")
        closed_ms: Optional[int] = None
        if isinstance(closed_at, str):
            try:
                closed_ms = parse_time_ms(closed_at)
            except ValueError:
                closed_ms = None
        if closed_ms is not None:
            named = successor_named(list_comments(issue["number"], since=forgejo_time(closed_ms - CLOSE_LOOKBACK_MS)), trusted)
        if named is None:
            named = successor_named(list_comments(issue["number"]), trusted)
        if named is None:
            raise SessionChainError(
                'session issue #%d is closed and no trusted "continued in" comment names its successor; reopen it, or set CHECKPOST_ISSUE to the open session issue' % issue["number"]
            )
        nxt = get_issue(named["successor"])
        if not followable_successor(nxt, issue["number"], issue.get("title"), trusted, named["author"]):
            raise SessionChainError(
                "session issue #%d names #%d as its successor, but #%d was not opened by %s or does not link back to #%d: not followed (docs/security.md, rollover)"
                % (issue["number"], nxt.get("number", named["successor"]), nxt.get("number", named["successor"]), named["author"], issue["number"])
            )
        issue = nxt
    return issue


def chain_back(get_issue: Callable[[int], Dict[str, Any]], newest: int, trusted: Optional[Set[str]] = None) -> List[Dict[str, Any]]:
    """A session issue and every issue it continues, oldest first (only issues sharing the newest's title;
    with `trusted`, a `continues` marker is followed only in an issue a trusted login opened)."""
    chain: List[Dict[str, Any]] = []
    seen = set()
    nxt: Optional[int] = newest
    while nxt is not None and nxt not in seen and len(chain) < MAX_CHAIN:
        seen.add(nxt)
        issue = get_issue(nxt)
        if chain and issue.get("title") != chain[-1].get("title"):
            break
        chain.append(issue)
        nxt = continued_from(issue.get("body"))
        if trusted is not None and nxt is not None and not followable_successor(issue, nxt, issue.get("title"), trusted):
            nxt = None
    chain.reverse()
    return chain
