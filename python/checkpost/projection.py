"""Fold a session issue's comments into what each agent+session resumes from.

A port of src/projection/ (create-projection.ts, stored-comment.ts, derive-entry.ts, directive-of.ts)
for readers that hold every record (the CLI's and this client's case: no bounded history). Data
flows one way: comments -> parse -> fold -> answers; no I/O, no clock.
"""

from __future__ import annotations

import base64
import json
import re
from datetime import datetime, timezone
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from . import protocol as P

MAX_NOT_USED = 5
RECENT_CHECKPOINTS = 5
DEFAULT_LEGACY_WRITERS = "fence"
ACCEPT_HINT = 'set CHECKPOST_LEGACY_WRITERS=accept (library: legacyWriters: "accept") to resume from legacy writers despite the fence'

_TIME_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:?\d{2})?$")


def parse_time_ms(s: str) -> int:
    """An RFC 3339 time (as Forgejo sends it) to epoch milliseconds, as JavaScript's Date.parse reads it."""
    m = _TIME_RE.match(s.strip()) if isinstance(s, str) else None
    if not m:
        raise ValueError("not an RFC 3339 time: %r" % (s,))
    y, mo, d, h, mi, sec = (int(m.group(i)) for i in range(1, 7))
    frac = (m.group(7) or "")[:3].ljust(3, "0")
    tz = m.group(8) or "Z"
    off = 0
    if tz not in ("Z", "z"):
        sign = -1 if tz[0] == "-" else 1
        digits = tz[1:].replace(":", "")
        off = sign * (int(digits[:2]) * 60 + int(digits[2:]))
    dt = datetime(y, mo, d, h, mi, sec, tzinfo=timezone.utc)
    return int(dt.timestamp()) * 1000 + int(frac) - off * 60_000


def iso_ms(ms: int) -> str:
    """JavaScript's new Date(ms).toISOString(): "2026-11-29T10:00:00.000Z"."""
    dt = datetime.fromtimestamp(ms // 1000, tz=timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ms % 1000)


def body_hash(body: str) -> str:
    """sha256, base64url, 16 characters: the projection's version digest (src/projection/body-hash.ts)."""
    import hashlib

    return base64.urlsafe_b64encode(hashlib.sha256(body.encode("utf-8", "surrogatepass")).digest()).decode("ascii").rstrip("=")[:16]


class Comments:
    """The comments of an issue as events made them: newest version per id (updated time, then digest),
    whether two bodies were ever seen for an id (an edit, whatever the times say), deletions for good.
    A full listing needs only `replace_all`; conformance cases replay their events through `apply`."""

    def __init__(self) -> None:
        self.live: Dict[int, Dict[str, Any]] = {}
        self.tombs: Set[int] = set()

    def upsert(self, c: Dict[str, Any]) -> None:
        cid = int(c["id"])
        if cid in self.tombs:
            return
        updated = parse_time_ms(c["updatedAt"])
        parse_time_ms(c["createdAt"])
        h = body_hash(c["body"])
        held = self.live.get(cid)
        if held is None:
            self.live[cid] = {**c, "_updated": updated, "_hash": h, "_multi": False}
            return
        newer = (updated, h) > (held["_updated"], held["_hash"])
        same = (updated, h) == (held["_updated"], held["_hash"])
        if same:
            return
        multi = held["_multi"] or h != held["_hash"]
        if newer:
            self.live[cid] = {**c, "_updated": updated, "_hash": h, "_multi": multi}
        else:
            held["_multi"] = multi

    def delete(self, cid: int) -> None:
        self.live.pop(int(cid), None)
        self.tombs.add(int(cid))

    def apply(self, event: Dict[str, Any]) -> None:
        if event["type"] == "upsert":
            self.upsert(event["comment"])
        else:
            self.delete(event["commentId"])

    def replace_all(self, comments: Iterable[Dict[str, Any]]) -> None:
        listed = list(comments)
        ids = {int(c["id"]) for c in listed}
        for cid in list(self.live):
            if cid not in ids:
                self.delete(cid)
        for c in listed:
            self.upsert(c)

    def ordered(self) -> List[Dict[str, Any]]:
        return [self.live[k] for k in sorted(self.live)]


def comment_record(c: Dict[str, Any]) -> Dict[str, Any]:
    """Forgejo's comment JSON -> what the fold takes (toCommentRecord)."""
    return {
        "id": c["id"],
        "author": (c.get("user") or {}).get("login", ""),
        "body": c.get("body") or "",
        "createdAt": c["created_at"],
        "updatedAt": c["updated_at"],
        "htmlUrl": c.get("html_url"),
    }


_SNIFF_SESSION = re.compile(r"^[ \t]*Session:[ \t]*(\S[^\r\n]{0,255}?)[ \t]*\r?$", re.M)


def _sniff_session(body: str) -> Optional[str]:
    m = _SNIFF_SESSION.search(body[:8192])
    return m.group(1) if m else None


class Policy:
    """Who is believed: logins (case-insensitive), the signing key, the legacy-writer policy."""

    def __init__(self, trusted_authors: Iterable[str], signing_key: Optional[str] = None, legacy_writers: str = DEFAULT_LEGACY_WRITERS) -> None:
        self.trusted = {a.lower() for a in trusted_authors}
        self.signing_key = signing_key or None
        self.legacy_writers = legacy_writers or DEFAULT_LEGACY_WRITERS


def _record(c: Dict[str, Any], policy: Policy) -> Optional[Dict[str, Any]]:
    """One comment version as the fold needs it, or None (not the protocol's; untrusted; oversized)."""
    body = c["body"]
    trusted = c["author"].lower() in policy.trusted
    oversized = len(body) > P.MAX_BODY_BYTES
    if not trusted or oversized:
        # Untrusted authors never drive output: their comments are counted (by the dashboard), not folded.
        return None
    p = P.parse_comment(body)
    if p["kind"] == "none":
        return None
    created = parse_time_ms(c["createdAt"])
    updated = c.get("_updated", parse_time_ms(c["updatedAt"]))
    r = {
        "kind": p["kind"],
        "commentId": int(c["id"]),
        "createdMs": created,
        "htmlUrl": c.get("htmlUrl"),
        "trusted": True,
        "edited": updated != created or bool(c.get("_multi")),
        "p": p,
    }
    if p["kind"] == "invalid":
        agent = p["agent"]
        session = _sniff_session(body) if agent is not None else None
        r["key"] = (agent, session) if agent is not None and session is not None else None
        return r
    r["key"] = (p["agent"], p["session"])
    if p["kind"] in ("checkpoint", "control"):
        if policy.signing_key is None:
            r["sig"] = "n/a"
        elif p.get("signature") is None:
            r["sig"] = "unsigned"
        else:
            ok = P.verify_checkpoint_signature(p, policy.signing_key) if p["kind"] == "checkpoint" else P.verify_control_signature(p, policy.signing_key)
            r["sig"] = "ok" if ok else "bad"
    return r


def _opt(d: Dict[str, Any], src: Dict[str, Any], *keys: str) -> Dict[str, Any]:
    for k in keys:
        if src.get(k) is not None:
            d[k] = src[k]
    return d


def _recent(r: Dict[str, Any]) -> Dict[str, Any]:
    cp = r["p"]
    out: Dict[str, Any] = {"commentId": r["commentId"]}
    _opt(out, cp, "id")
    out["phase"] = cp["phase"]
    _opt(out, cp, "seq", "epoch")
    out["createdAt"] = iso_ms(r["createdMs"])
    if r.get("htmlUrl") is not None:
        out["htmlUrl"] = r["htmlUrl"]
    return out


def derive_entry(agent: str, session: str, records: List[Dict[str, Any]], legacy_writers: str = DEFAULT_LEGACY_WRITERS) -> Dict[str, Any]:
    """One agent+session's records (comment-id order) -> its entry: latest, maxEpoch, control, notUsed.

    Trust checks in order, the first failing names the refusal: author -> edited -> signature ->
    duplicate Id -> zombie epoch. Controls act in comment order (pause/unpause, hide, rewind, release).
    """
    first_by_id: Dict[str, int] = {}
    max_epoch = -1
    latest: Optional[Dict[str, Any]] = None
    health: Optional[Dict[str, Any]] = None
    believed: List[Dict[str, Any]] = []
    refused: List[Dict[str, Any]] = []
    control: Dict[str, Optional[Dict[str, Any]]] = {"paused": None, "hidden": None, "pending": None}
    prev_seq: Optional[Tuple[int, Optional[str]]] = None
    anomalies: List[Dict[str, Any]] = []

    def refuse(r: Dict[str, Any], kind: str, reason: str, **extra: Any) -> None:
        cp = r["p"]
        n: Dict[str, Any] = {"commentId": r["commentId"]}
        _opt(n, cp, "id")
        n["phase"] = cp["phase"]
        _opt(n, cp, "epoch")
        n["createdAt"] = iso_ms(r["createdMs"])
        if r.get("htmlUrl") is not None:
            n["htmlUrl"] = r["htmlUrl"]
        n["kind"] = kind
        n["legacy"] = P.is_legacy_checkpoint(cp)
        n["reason"] = reason
        n.update(extra)
        refused.append(n)
        anomalies.append({"kind": kind, "commentId": r["commentId"]})

    for r in records:
        kind = r["kind"]
        if kind == "invalid":
            anomalies.append({"kind": "invalid", "commentId": r["commentId"]})
            continue
        p = r["p"]
        if kind == "control":
            action = p["action"]
            if not r["trusted"]:
                anomalies.append({"kind": "untrusted-author", "commentId": r["commentId"]})
            elif r["edited"]:
                anomalies.append({"kind": "edited", "commentId": r["commentId"]})
            elif r["sig"] == "unsigned":
                anomalies.append({"kind": "unsigned", "commentId": r["commentId"]})
            elif r["sig"] == "bad":
                anomalies.append({"kind": "bad-signature", "commentId": r["commentId"]})
            else:
                ref: Dict[str, Any] = {"commentId": r["commentId"], "action": action, "by": p.get("by"), "at": iso_ms(r["createdMs"])}
                if r.get("htmlUrl") is not None:
                    ref["htmlUrl"] = r["htmlUrl"]
                # The action's effect is the registry's (_generated_protocol.py); a fence with a target goes back to it.
                spec = P.CONTROL_ACTION_SPECS.get(action) or {}
                effect = spec.get("effect")
                if effect == "pause":
                    control["paused"] = ref
                elif effect == "unpause":
                    control["paused"] = None
                elif effect == "hide":
                    control["hidden"] = ref
                elif effect == "fence" and not spec.get("target"):
                    max_epoch = max(max_epoch, p["epoch"])
                    control["pending"] = {**ref, "epoch": p["epoch"]}
                elif effect == "fence":
                    target = next((b for b in believed if b["commentId"] == p["target"]), None)
                    if target is None:
                        anomalies.append({"kind": "rejected-control", "commentId": r["commentId"]})
                    else:
                        max_epoch = max(max_epoch, p["epoch"])
                        latest = target
                        to = {"commentId": target["commentId"]}
                        _opt(to, target["p"], "id")
                        to["phase"] = target["p"]["phase"]
                        control["pending"] = {**ref, "epoch": p["epoch"], "to": to}
            continue
        if kind == "health":
            if not r["trusted"] or r["edited"]:
                anomalies.append({"kind": "untrusted-author" if not r["trusted"] else "edited", "commentId": r["commentId"]})
            else:
                health = r
                control["hidden"] = None
            continue
        cp = p
        legacy = P.is_legacy_checkpoint(cp)
        if not r["trusted"]:
            refuse(r, "untrusted-author", "author outside the trusted list (CHECKPOST_TRUSTED_AUTHORS)")
            continue
        if r["edited"]:
            refuse(r, "edited", "edited after posting")
            continue
        if r["sig"] == "unsigned":
            refuse(
                r,
                "unsigned",
                "legacy writer without Signature while a signing key is configured (a 1.0 writer cannot sign)" if legacy else "no Signature while a signing key is configured",
            )
            continue
        if r["sig"] == "bad":
            refuse(r, "bad-signature", "Signature does not verify")
            continue
        if cp.get("id") is not None:
            first = first_by_id.get(cp["id"])
            if first is not None:
                refuse(r, "duplicate-id", "a copy of comment %d (same Id)" % first)
                continue
            first_by_id[cp["id"]] = r["commentId"]
        epoch = cp.get("epoch") or 0
        accepted_legacy = epoch < max_epoch and legacy and legacy_writers == "accept"
        if epoch < max_epoch and not accepted_legacy:
            if legacy:
                refuse(
                    r,
                    "zombie",
                    "legacy writer without Epoch below fence %d" % max_epoch,
                    fence=max_epoch,
                    policy={"setting": "CHECKPOST_LEGACY_WRITERS", "value": "fence", "change": ACCEPT_HINT},
                )
            elif cp.get("epoch") is None:
                refuse(r, "zombie", "checkpost writer without Epoch below fence %d (it saved without resuming first)" % max_epoch, fence=max_epoch)
            else:
                refuse(r, "zombie", "epoch %d below fence %d: a superseded worker" % (epoch, max_epoch), fence=max_epoch)
            continue
        if not accepted_legacy:
            max_epoch = epoch
        if cp.get("seq") is not None:
            if prev_seq is not None:
                if cp["seq"] > prev_seq[0] + 1:
                    anomalies.append({"kind": "seq-gap", "commentId": r["commentId"]})
                elif cp["seq"] <= prev_seq[0] and (cp.get("id") is None or cp.get("id") != prev_seq[1]):
                    anomalies.append({"kind": "seq-fork", "commentId": r["commentId"]})
            prev_seq = (cp["seq"], cp.get("id"))
        latest = r
        believed.append(r)
        control["hidden"] = None
        control["pending"] = None

    entry: Dict[str, Any] = {"agent": agent, "session": session, "latest": None, "maxEpoch": max(0, max_epoch)}
    if latest is not None:
        lt = _recent(latest)
        lt["timestamp"] = latest["p"].get("timestamp")
        lt["data"] = latest["p"]["data"]
        entry["latest"] = lt
    entry["health"] = None
    if health is not None:
        hp = health["p"]
        entry["health"] = {"commentId": health["commentId"], "status": hp["status"], "metrics": hp["metrics"], "timestamp": hp.get("timestamp"), "createdAt": iso_ms(health["createdMs"])}
    if believed:
        entry["recent"] = [_recent(b) for b in reversed(believed[-RECENT_CHECKPOINTS:])]
    if control["paused"] or control["hidden"] or control["pending"]:
        entry["control"] = dict(control)
    after = latest["commentId"] if latest is not None else 0
    not_used = [n for n in refused if n["commentId"] > after]
    if not_used:
        entry["notUsed"] = list(reversed(not_used[-MAX_NOT_USED:]))
    entry["anomalies"] = anomalies
    return entry


def directive_of(entry: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The directive an entry's controls give its agent (pause first), or None."""
    c = (entry or {}).get("control")
    if not c:
        return None
    if c.get("paused"):
        d = {**c["paused"], "kind": "pause"}
        if c.get("pending") and c["pending"].get("epoch") is not None:
            d["epoch"] = c["pending"]["epoch"]
        return d
    if c.get("pending"):
        # A pending fence is told as its own action (rewind, release: the registry's fence actions).
        return {**c["pending"], "kind": c["pending"]["action"]}
    return None


def project(comments: Iterable[Dict[str, Any]], policy: Policy) -> Dict[Tuple[str, str], Dict[str, Any]]:
    """Every agent+session's entry from comment records (any order; each id once, its newest version)."""
    groups: Dict[Tuple[str, str], List[Dict[str, Any]]] = {}
    for c in sorted(comments, key=lambda x: int(x["id"])):
        r = _record(c, policy)
        if r is None or r.get("key") is None:
            continue
        groups.setdefault(r["key"], []).append(r)
    return {k: derive_entry(k[0], k[1], rs, policy.legacy_writers) for k, rs in groups.items()}


def resume_answer(entry: Optional[Dict[str, Any]], phase_map: Dict[str, str]) -> Dict[str, Any]:
    """Where an agent+session resumes: the newest believed checkpoint, mapped; fresh_start when none."""
    cp = entry["latest"] if entry else None
    if cp is None:
        out: Dict[str, Any] = {"resume_point": P.START, "phase": P.FRESH_START, "state": {}, "checkpoint": None}
    else:
        ref: Dict[str, Any] = {"commentId": cp["commentId"]}
        _opt(ref, cp, "id", "seq", "epoch")
        out = {"resume_point": P.resume_point_for(cp["phase"], phase_map), "phase": cp["phase"], "state": cp["data"], "checkpoint": ref}
    out["directive"] = directive_of(entry)
    out["not_used"] = (entry or {}).get("notUsed", [])
    return out


def canonical_json(v: Any) -> str:
    """Compact, key-sorted JSON for comparing answers in tests."""
    return json.dumps(v, sort_keys=True, separators=(",", ":"))
