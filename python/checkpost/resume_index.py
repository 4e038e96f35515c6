"""Where the bot's signed resume index lives and how it is read (src/dashboard/extract-resume-index.ts,
resume-index.ts). The only module that knows the index's location: inline in the issue body's dashboard
section (`extract_resume_index`), or, over 8 KiB, in one comment of the bot's that the section points to
with `<!-- checkpost:resume-index-ref {"comment":N,"since":T} -->` (`extract_resume_index_ref`, then
`extract_resume_index_from_comment` on that comment's body; docs/dashboard.md).
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional

from . import protocol as P
from .projection import parse_time_ms

DASHBOARD_START = "<!-- checkpost:dashboard:start -->"
DASHBOARD_END = "<!-- checkpost:dashboard:end -->"
RESUME_INDEX_OPEN = "<!-- checkpost:resume-index "
RESUME_INDEX_CLOSE = " -->"
#: Opens the pointer a dashboard holds instead of a large index (src/dashboard/markers.ts).
RESUME_INDEX_REF_OPEN = "<!-- checkpost:resume-index-ref "
MAX_RESUME_INDEX_ENTRIES = 10_000
_MAX_SAFE = P.MAX_SAFE_INTEGER


def resume_index_scope(owner: str, repo: str, issue: int) -> str:
    """The scope an index is signed for: copying it to another issue breaks the signature."""
    return ("%s/%s#%d" % (owner, repo, issue)).lower()


def index_source(issue_meta: Dict[str, Any]) -> Optional[str]:
    """The issue body: its dashboard section holds the index, or the pointer to the bot's index comment."""
    body = issue_meta.get("body")
    return body if isinstance(body, str) else None


def _first_dashboard_section(body: str) -> Optional[str]:
    start = body.find(DASHBOARD_START)
    if start < 0:
        return None
    end_at = body.find(DASHBOARD_END, start + len(DASHBOARD_START))
    if end_at < 0:
        return None
    s = body.find(DASHBOARD_START, start + 1)
    while 0 <= s < end_at:
        start = s
        s = body.find(DASHBOARD_START, s + 1)
    return body[start : end_at + len(DASHBOARD_END)]


def _js_stringify(v: Any) -> str:
    """JSON.stringify of a value JSON.parse made: compact, non-ASCII as is, key order kept."""
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def sign_resume_index(raw: Dict[str, Any], key: str, scope: str) -> str:
    import hashlib
    import hmac

    rest = {k: v for k, v in raw.items() if k != "sig"}
    text = _js_stringify(["checkpost-resume-index-v1", scope, rest])
    return "hmac-sha256=" + hmac.new(key.encode("utf-8"), text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def _is_int(v: Any, lo: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= _MAX_SAFE


def _is_time(v: Any) -> bool:
    if not isinstance(v, str):
        return False
    try:
        parse_time_ms(v)
        return True
    except ValueError:
        return False


def _header_value(v: Any) -> bool:
    return isinstance(v, str) and 0 < len(v) <= 256 and "\r" not in v and "\n" not in v and v == P.js_trim(v)


_ENTRY_KEYS = {"agent", "session", "commentId", "id", "seq", "epoch", "at", "maxEpoch", "controls", "directive", "notUsed", "signalAt", "gapsMs"}

# MAX_INTERVALS of src/projection/projection-snapshot.ts: the gaps an entry carries for liveness.
_MAX_INTERVALS = 20


def _valid_entry(e: Any) -> bool:
    if not isinstance(e, dict):
        return False
    if not (_header_value(e.get("agent")) and _header_value(e.get("session")) and _is_int(e.get("commentId"), 1)):
        return False
    if "id" in e and not (isinstance(e["id"], str) and P.ID_RE.fullmatch(e["id"])):
        return False
    if "seq" in e and not _is_int(e["seq"], 1):
        return False
    if "epoch" in e and not _is_int(e["epoch"], 0):
        return False
    if "at" in e and not (isinstance(e["at"], str) and len(e["at"]) <= 40 and _is_time(e["at"])):
        return False
    if not _is_int(e.get("maxEpoch"), 0):
        return False
    if "controls" in e and not (isinstance(e["controls"], list) and len(e["controls"]) <= 3 and all(_is_int(x, 1) for x in e["controls"])):
        return False
    if "notUsed" in e and not (isinstance(e["notUsed"], list) and len(e["notUsed"]) <= 5 and all(_is_int(x, 1) for x in e["notUsed"])):
        return False
    # Liveness as of the watermark (issue 18): the last signal's time and the gaps (ms) before it.
    if "signalAt" in e and not (isinstance(e["signalAt"], str) and len(e["signalAt"]) <= 40 and _is_time(e["signalAt"])):
        return False
    if "gapsMs" in e and not (isinstance(e["gapsMs"], list) and len(e["gapsMs"]) <= _MAX_INTERVALS and all(_is_int(x, 0) for x in e["gapsMs"])):
        return False
    if "directive" in e:
        d = e["directive"]
        if not (isinstance(d, dict) and d.get("kind") in P.DIRECTIVE_KINDS and _is_int(d.get("commentId"), 1)):
            return False
    return True


_INDEX_KEYS = ("v", "watermark", "watermarkUpdatedAt", "entries", "complete", "legacyWriters", "sig")


def extract_resume_index(body: Optional[str], signing: Optional[Dict[str, str]] = None) -> Optional[Dict[str, Any]]:
    """The index in the body's first dashboard section, or None when absent, ambiguous, malformed or (with
    `signing` = {"key", "scope"}) unsigned or badly signed. Bad entries, and every copy of a duplicated
    agent+session, are dropped alone (`complete` is then False). A hint: callers verify what it points to."""
    if not isinstance(body, str):
        return None
    section = _first_dashboard_section(body)
    if section is None:
        return None
    return _index_in(section, signing)


def extract_resume_index_from_comment(body: Optional[str], signing: Optional[Dict[str, str]] = None) -> Optional[Dict[str, Any]]:
    """The index in the body of the comment a dashboard's pointer names: the same checks as
    `extract_resume_index`, on the one index the comment must hold."""
    return _index_in(body, signing) if isinstance(body, str) else None


def extract_resume_index_ref(body: Optional[str]) -> Optional[Dict[str, Any]]:
    """The pointer {"comment", "since"} in the body's first dashboard section, or None (none, two, or
    malformed). A hint like the index: the comment it names is read from this issue's own comment list
    and checked."""
    if not isinstance(body, str):
        return None
    section = _first_dashboard_section(body)
    if section is None:
        return None
    raw = _one_json_after(section, RESUME_INDEX_REF_OPEN)
    if not isinstance(raw, dict) or not _is_int(raw.get("comment"), 1):
        return None
    since = raw.get("since")
    if not (isinstance(since, str) and len(since) <= 40 and _is_time(since)):
        return None
    return {"comment": raw["comment"], "since": since}


def _one_json_after(section: str, marker: str) -> Any:
    """The JSON between the one `marker` in `section` and the close after it; None when the marker is
    missing or repeated, the close is missing, or the JSON does not parse."""
    op = section.find(marker)
    if op < 0 or section.find(marker, op + 1) >= 0:
        return None
    frm = op + len(marker)
    close = section.find(RESUME_INDEX_CLOSE, frm)
    if close < 0:
        return None
    try:
        # As JSON.parse holds it: an integral 12.0 is 12, so it validates and re-signs as TypeScript does.
        return P.js_number_normal(json.loads(section[frm:close], parse_constant=P._reject_constant))
    except ValueError:
        return None


def _index_in(section: str, signing: Optional[Dict[str, str]]) -> Optional[Dict[str, Any]]:
    """The one index in `section` (a dashboard section or an index comment), checked."""
    raw = _one_json_after(section, RESUME_INDEX_OPEN)
    if not isinstance(raw, dict) or raw.get("v") != 1 or not _is_int(raw.get("watermark"), 0):
        return None
    if "watermarkUpdatedAt" in raw and not _is_time(raw["watermarkUpdatedAt"]):
        return None
    entries = raw.get("entries")
    if not isinstance(entries, list) or len(entries) > MAX_RESUME_INDEX_ENTRIES:
        return None
    if "complete" in raw and not isinstance(raw["complete"], bool):
        return None
    if "legacyWriters" in raw and raw["legacyWriters"] not in ("fence", "accept"):
        return None
    if "sig" in raw and not (isinstance(raw["sig"], str) and P.SIGNATURE_RE.fullmatch(raw["sig"])):
        return None
    if signing is not None:
        import hmac

        sig = raw.get("sig")
        if not isinstance(sig, str) or not hmac.compare_digest(sign_resume_index(raw, signing["key"], signing["scope"]), sig):
            return None
    ok: List[Dict[str, Any]] = []
    count: Dict[tuple, int] = {}
    for item in entries:
        if not _valid_entry(item) or item["commentId"] > raw["watermark"] or item.get("epoch", 0) > item["maxEpoch"]:
            continue
        e = {k: v for k, v in item.items() if k in _ENTRY_KEYS}
        k = (e["agent"], e["session"])
        count[k] = count.get(k, 0) + 1
        ok.append(e)
    kept = [e for e in ok if count[(e["agent"], e["session"])] == 1]
    # Known keys only, as the TypeScript schema keeps them.
    ix = {k: raw[k] for k in _INDEX_KEYS if k in raw and k != "entries"}
    ix["entries"] = kept
    if len(kept) != len(entries):
        ix["complete"] = False
    return ix


_ISSUE_TAIL = re.compile(r"#issuecomment-(\d+)$")


def comment_on_issue(c: Dict[str, Any], owner: str, repo: str, issue: int) -> bool:
    """The comment is on this issue (GET of a comment by id answers for any issue of the repository)."""
    tail = ("/%s/%s/issues/%d" % (owner, repo, issue)).lower()
    if c.get("issue_url"):
        return str(c["issue_url"]).lower().endswith(tail)
    return str(c.get("html_url") or "").lower().endswith("%s#issuecomment-%d" % (tail, c["id"]))
