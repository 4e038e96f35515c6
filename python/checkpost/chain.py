"""The session chain: after a rollover the issue continues in a successor (src/rollover/chain-links.ts,
issue-chain.ts). The only module that knows the link markers and the rules for following them.

- Backward: a successor's body opens with `<!-- checkpost:continues #N -->`.
- Forward: the closed predecessor carries a comment `<!-- checkpost:continued-in #M -->`.
A forward hop is followed only when the successor links back (its body continues this issue) and
shares the title, so a comment alone cannot send a reader to an arbitrary issue.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional

MAX_CHAIN = 1000
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


def follow_forward(
    get_issue: Callable[[int], Dict[str, Any]],
    list_comments: Callable[[int], List[Dict[str, Any]]],
    start: Dict[str, Any],
    trusted: Optional[set] = None,
) -> Dict[str, Any]:
    """From a (possibly closed) session issue to the open head of its chain. `start` is the issue as read;
    returns the head's issue JSON (`start` itself when it is open or names no successor that links back)."""
    issue = start
    seen = {issue["number"]}
    while issue.get("state") == "closed" and len(seen) < MAX_CHAIN:
        nxt = None
        for c in reversed(list_comments(issue["number"])):
            if trusted is not None and ((c.get("user") or {}).get("login", "").lower() not in trusted):
                continue
            n = continued_in(c.get("body"))
            if n is not None:
                nxt = n
                break
        if nxt is None or nxt in seen:
            return issue
        succ = get_issue(nxt)
        if continued_from(succ.get("body")) != issue["number"] or succ.get("title") != issue.get("title"):
            return issue
        seen.add(nxt)
        issue = succ
    return issue


def chain_back(get_issue: Callable[[int], Dict[str, Any]], newest: int) -> List[Dict[str, Any]]:
    """A session issue and every issue it continues, oldest first (only issues sharing the newest's title)."""
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
    chain.reverse()
    return chain
