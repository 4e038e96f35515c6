"""Drop-in replacements for the seed's functions (fixtures/seed/session_state.md.txt): same names, same
signatures, same return shapes, but right: no 24 h window, server order (comment id) instead of `Time:`
strings, trusted authors only, exactly-once saves with Id/Seq/Epoch, the chain followed across rollovers.

An agent written against the seed switches by changing one import:

    from checkpost.seed import save_state, resume_agent_work, load_latest_checkpoint, post_health_signal

The instance and token come from FORGEJO_URL and FORGEJO_TOKEN (the agent's Forgejo tools in the seed),
the rest of the configuration from the CLI's environment variables (docs/python.md). One deliberate
difference: a fresh start returns `({}, "fresh_start")`, not `(None, "fresh_start")`, so the seed's own
example flow (`data.get("completed_subtasks", [])` after a fresh start) runs instead of raising.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Dict, Mapping, Optional, Tuple

from . import protocol as P
from .client import Client
from .errors import CheckpostError, ForgejoApiError

SESSION_STATE_TITLE_PATTERN = "[Automated] CleverAgents Build Session"
CHECKPOINT_VERSION = P.PROTOCOL_VERSION

_clients: Dict[Tuple[str, str], Client] = {}
_lock = threading.Lock()


def client_for(owner: str, repo: str) -> Client:
    """The process-wide Client of owner/repo (configured from the environment), so Seq/Epoch memory and the
    located issue carry from one call to the next, as a long-running agent needs."""
    with _lock:
        c = _clients.get((owner, repo))
        if c is None:
            c = Client.from_env(owner=owner, repo=repo, repo_source="%s/%s (the function's arguments)" % (owner, repo))
            _clients[(owner, repo)] = c
        return c


def reset_clients() -> None:
    """Forget the process-wide clients (tests; after changing the environment)."""
    with _lock:
        for c in _clients.values():
            c.close()
        _clients.clear()


def find_session_state_issue(owner: str, repo: str) -> int:
    """Find the active session state issue: open, titled with the pattern, really labelled; newest wins.
    Raises a ValueError (SessionIssueNotFoundError) saying what to do when there is none."""
    return client_for(owner, repo).issue_number()


def create_checkpoint(agent_name: str, session_id: str, phase: str, data: Dict[str, Any]) -> Dict[str, Any]:
    """The seed's checkpoint dict."""
    return {"version": CHECKPOINT_VERSION, "timestamp": P.python_utc_isoformat(), "agent": agent_name, "session": session_id, "phase": phase, "data": data}


def format_checkpoint_comment(checkpoint: Mapping[str, Any]) -> str:
    """The seed's comment body, with the closing fence its own reader needs."""
    return P.format_checkpoint(checkpoint["agent"], checkpoint["session"], checkpoint["phase"], checkpoint["timestamp"], checkpoint["data"])


def parse_checkpoint_comment(comment_body: str) -> Optional[Dict[str, Any]]:
    """The seed's dict ({data, version, phase, session, timestamp, agent}) or None; strict where the seed
    guessed (the marker must open the comment; one JSON block), and it reads bodies without the fence."""
    p = P.parse_comment(comment_body)
    if p["kind"] != "checkpoint":
        return None
    out = {"data": p["data"], "version": p["version"], "phase": p["phase"], "session": p["session"], "agent": p["agent"]}
    if p.get("timestamp") is not None:
        out["timestamp"] = p["timestamp"]
    return out


def save_checkpoint(owner: str, repo: str, session_issue: int, checkpoint: Dict[str, Any]) -> None:
    """Save a checkpoint (from create_checkpoint) to the session issue, exactly once. As in the seed, a
    failure is printed, not raised: checkpoint failure shouldn't crash the agent."""
    c = client_for(owner, repo)
    if session_issue != c._issue:
        c._issue = session_issue
    try:
        c.save(checkpoint["agent"], checkpoint["session"], checkpoint["phase"], checkpoint.get("data") or {})
        print("[CHECKPOINT] Saved: %s" % checkpoint["phase"])
    except (CheckpostError, OSError) as e:
        print("[WARNING] Failed to save checkpoint: %s" % e)


def save_state(owner: str, repo: str, agent_name: str, session_id: str, phase: str, **kwargs: Any) -> None:
    """Create and save a checkpoint in one call (kwargs are the state). One request once the issue is known;
    after resume_agent_work in this process, it carries the taken-over epoch and the next Seq."""
    c = client_for(owner, repo)
    c.issue_number()  # as in the seed, a missing session issue raises
    try:
        c.save(agent_name, session_id, phase, kwargs)
        print("[CHECKPOINT] Saved: %s" % phase)
    except (CheckpostError, OSError) as e:
        if isinstance(e, CheckpostError) and not isinstance(e, ForgejoApiError):
            raise  # a state the protocol cannot carry (NaN, too large) is the caller's bug, not a network blip
        print("[WARNING] Failed to save checkpoint: %s" % e)


def load_latest_checkpoint(owner: str, repo: str, agent_name: Optional[str] = None, session_id: Optional[str] = None) -> Optional[Dict[str, Any]]:
    """The newest trusted checkpoint (highest comment id: server order), with no time window, or None.
    Returns the seed's dict plus `comment_id`."""
    c = client_for(owner, repo)
    head = c._head()
    best = None
    for (a, s), e in c.entries(head["number"]).items():
        lt = e.get("latest")
        if lt is None or (agent_name and a != agent_name) or (session_id and s != session_id):
            continue
        if best is None or lt["commentId"] > best[2]["commentId"]:
            best = (a, s, lt)
    if best is None:
        return None
    a, s, lt = best
    out = {"data": lt["data"], "version": CHECKPOINT_VERSION, "phase": lt["phase"], "session": s, "agent": a, "comment_id": lt["commentId"]}
    if lt.get("timestamp") is not None:
        out["timestamp"] = lt["timestamp"]
    return out


def resume_agent_work(owner: str, repo: str, agent_name: str, session_id: str) -> Tuple[Dict[str, Any], str]:
    """Resume work from the last trusted checkpoint: (data, phase), or ({}, "fresh_start"). Takes over the
    agent+session, so this process's later save_state calls fence off a superseded worker. A directive a
    person gave (pause, rewind, release) is printed to stderr; Client.resume returns it as data."""
    r = client_for(owner, repo).resume(agent_name, session_id, phase_map={})
    d = r.get("directive")
    if d:
        by = " by %s" % d["by"] if d.get("by") else ""
        print("[RESUME] directive %s%s (comment %d): see docs/dashboard.md" % (d["kind"], by, d["commentId"]), file=sys.stderr)
    if r["checkpoint"] is None:
        print("[RESUME] No checkpoint found, starting fresh")
        return {}, P.FRESH_START
    print("[RESUME] Found checkpoint at phase: %s" % r["phase"])
    latest = r["checkpoint"]
    print("[RESUME] Checkpoint comment: %d" % latest["commentId"])
    state = r["state"]
    return (state if isinstance(state, dict) else {"state": state}), r["phase"]


def resume_implementation(owner: str, repo: str, session_id: str, working_dir: Optional[str]) -> Tuple[str, Dict[str, Any]]:
    """Resume implementation work: (resume point, state), with the seed's PHASE_RESUME_MAP."""
    data, phase = resume_agent_work(owner, repo, "implementation-worker", session_id)
    if phase == P.FRESH_START:
        return "start", {}
    resume_point = P.IMPLEMENTATION_WORKER_PHASE_MAP.get(phase, "start")
    state = {
        "issue_number": data.get("issue_number"),
        "branch_name": data.get("branch_name"),
        "completed_subtasks": data.get("completed_subtasks", []),
        "pr_number": data.get("pr_number"),
        "working_dir": working_dir or data.get("working_dir"),
    }
    return resume_point, state


def post_health_signal(owner: str, repo: str, agent_name: str, session_id: str, metrics: Dict[str, Any]) -> None:
    """Post a health signal to the session state issue (the seed's body, with the closing fence)."""
    client_for(owner, repo).health(agent_name, session_id, metrics)


__all__ = [
    "SESSION_STATE_TITLE_PATTERN",
    "CHECKPOINT_VERSION",
    "find_session_state_issue",
    "create_checkpoint",
    "format_checkpoint_comment",
    "parse_checkpoint_comment",
    "save_checkpoint",
    "save_state",
    "load_latest_checkpoint",
    "resume_agent_work",
    "resume_implementation",
    "post_health_signal",
    "client_for",
    "reset_clients",
]
