"""The session-state comment protocol 1.0: read and write [CHECKPOINT], [HEALTH] and [CONTROL] bodies.

A port of src/protocol/ (parse-comment.ts, format-comment.ts, kinds/, sign-*.ts). The conformance
corpus (fixtures/conformance/) runs the same bodies through both, so the two cannot drift.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional, Tuple

from .errors import CheckpointParseError, ProtocolInputError

from ._generated_protocol import CONTROL_ACTIONS as _ACTION_TABLE
from ._generated_protocol import KINDS as _KIND_TABLE

PROTOCOL_VERSION = "1.0"
# Markers, header names and control actions come from ONE generated file (_generated_protocol.py, written by
# `npm run generate` from the TypeScript registries), so this client cannot keep a table of its own.
_MARKERS = {k["kind"]: k["marker"] for k in _KIND_TABLE}
CHECKPOINT_MARKER = _MARKERS["checkpoint"]
HEALTH_MARKER = _MARKERS["health"]
CONTROL_MARKER = _MARKERS["control"]
DEFAULT_NEXT_CHECK = "in 10 iterations"
FOOTER = "Automated by CleverAgents Bot Agent: "
CONTROL_FOOTER = "Recorded by checkpost: a control command (1.0 readers ignore this comment)"
MAX_BODY_BYTES = 1024 * 1024
MAX_JSON_DEPTH = 64
CONTROL_ACTIONS = tuple(a["action"] for a in _ACTION_TABLE)
# action -> its registry entry (verbs, target, effect, box, directive)
CONTROL_ACTION_SPECS: Dict[str, Dict[str, Any]] = {a["action"]: a for a in _ACTION_TABLE}
# The actions resume reports as directive kinds (pause, rewind, release).
DIRECTIVE_KINDS = tuple(a["action"] for a in _ACTION_TABLE if a.get("directive") is not None)


def missing_control_fields(action: str, target: Optional[int], epoch: Optional[int]) -> Optional[str]:
    """What a control of this action lacks, by the registry: "target" (Target: and Epoch:), "epoch", or None."""
    spec = CONTROL_ACTION_SPECS.get(action)
    if spec is None:
        return None
    if spec["target"] and (target is None or epoch is None):
        return "target"
    if spec["effect"] == "fence" and epoch is None:
        return "epoch"
    return None


# JavaScript's String.prototype.trim() set (WhiteSpace + LineTerminator), so both readers cut the same.
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_SPACE_CLASS = "[" + re.escape(JS_SPACE) + "]"

ID_RE = re.compile(r"[A-Za-z0-9._:-]{8,128}")
SIGNATURE_RE = re.compile(r"hmac-sha256=[0-9a-f]{64}")
_VERSION_RE = re.compile(r"1(\.[0-9]+)*")
_INT_RE = re.compile(r"[0-9]{1,16}")
_HEADER_RE = re.compile(r"^" + _JS_SPACE_CLASS + r"*([A-Za-z][A-Za-z ]{0,15}):(.*)$", re.S)
_FENCE_OPEN_RE = re.compile(r"^```" + _JS_SPACE_CLASS + r"*json$", re.I)
_NEXT_CHECK_RE = re.compile(r"^next check:", re.I)
MAX_SAFE_INTEGER = 2**53 - 1

# The kinds this client reads (it has a reader for each below), with marker, header name (lower case) ->
# field and JSON block rule ("required" | "none") from the generated table. Other kinds read as "none".
_READ_KINDS = ("checkpoint", "health", "control")
_KINDS: List[Tuple[str, str, Dict[str, str], str]] = [(k["kind"], k["marker"], dict(k["headers"]), k["json"]) for k in _KIND_TABLE if k["kind"] in _READ_KINDS]


class _Invalid(Exception):
    pass


def js_trim(s: str) -> str:
    return s.strip(JS_SPACE)


def _first_non_blank(s: str) -> int:
    i = 0
    n = len(s)
    while i < n and s[i] in " \t\n\r\ufeff":
        i += 1
    return i


def _utf8_len(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


def parse_comment(body: Any, max_body_bytes: int = MAX_BODY_BYTES, max_json_depth: int = MAX_JSON_DEPTH) -> Dict[str, Any]:
    """Read one comment body; never raises.

    Returns the flat shape `checkpost parse` prints: {"kind": "checkpoint", agent, session, phase, version,
    timestamp, data, id?, seq?, epoch?, signature?} | {"kind": "health", ...} | {"kind": "control", ...}
    | {"kind": "invalid", "marker", "agent", "error"} | {"kind": "none"}. The marker must open the comment
    (first non-blank line); CRLF, a missing closing fence and headers in any order are accepted.
    """
    if not isinstance(body, str):
        return {"kind": "none"}
    start = _first_non_blank(body)
    head = body[start : start + 16]
    kind = None
    for k in _KINDS:
        if head.startswith(k[1]):
            kind = k
            break
    if kind is None:
        return {"kind": "none"}
    name, marker, known, json_rule = kind
    text = body if "\r" not in body else re.sub(r"\r\n?", "\n", body)
    frm = _first_non_blank(text)
    nl = text.find("\n", frm)
    first_end = len(text) if nl < 0 else nl
    first = js_trim(text[frm:first_end])
    agent = js_trim(first[len(marker) :])

    def invalid(error: str) -> Dict[str, Any]:
        return {"kind": "invalid", "marker": name, "agent": agent or None, "error": error}

    if len(body) > max_body_bytes or (len(body) * 3 > max_body_bytes and _utf8_len(body) > max_body_bytes):
        return invalid("comment body exceeds the reader's %d-byte limit" % max_body_bytes)
    if not agent:
        return invalid("missing agent name after %s" % marker)
    try:
        headers, json_text = _split_body(text, first_end + 1, known)
        if json_rule == "required" and json_text is None:
            raise _Invalid("no ```json block")
        if json_rule == "none" and json_text is not None:
            raise _Invalid("a %s comment has no ```json block" % marker)
        value = None if json_text is None else _parse_json(json_text, max_json_depth)
        if name == "checkpoint":
            return _read_checkpoint(agent, headers, value)
        if name == "health":
            return _read_health(agent, headers, value)
        return _read_control(agent, headers)
    except _Invalid as e:
        return invalid(str(e))


def _block_line_kind(line: str) -> int:
    u = js_trim(line)
    if u == "```":
        return 1
    if u == "---" or _NEXT_CHECK_RE.match(u):
        return 2
    return 0


def _split_body(text: str, pos: int, known: Dict[str, str]) -> Tuple[Dict[str, str], Optional[str]]:
    headers: Dict[str, str] = {}
    json_text: Optional[str] = None
    n = len(text)

    def take_header(line: str) -> None:
        m = _HEADER_RE.match(line)
        if not m:
            return
        key = known.get(js_trim(m.group(1)).lower())
        if not key:
            return
        value = js_trim(m.group(2))
        prev = headers.get(key)
        if prev is not None and prev != value:
            raise _Invalid('conflicting "%s:" lines ("%s" and "%s")' % (m.group(1), prev, value))
        headers[key] = value

    while pos <= n:
        nl = text.find("\n", pos)
        end = n if nl < 0 else nl
        line = text[pos:end]
        t = js_trim(line)
        if t == "---":
            return headers, json_text
        if _FENCE_OPEN_RE.match(t):
            # Two blocks would let text inserted above the real state decide what is resumed: refuse to guess.
            if json_text is not None:
                raise _Invalid("more than one ```json block before the --- footer")
            block_start = end + 1
            p = block_start
            block_end = n + 1
            resume = n + 1
            while p <= n:
                nl2 = text.find("\n", p)
                e2 = n if nl2 < 0 else nl2
                k = _block_line_kind(text[p:e2])
                if k != 0:
                    block_end = p
                    resume = e2 + 1 if k == 1 else p
                    break
                p = e2 + 1
            json_text = "" if block_start >= block_end else text[block_start : block_end - 1]
            pos = resume
            continue
        take_header(line)
        pos = end + 1
    return headers, json_text


def _reject_constant(name: str) -> Any:
    # JSON has no NaN or Infinity (JSON.parse refuses them; Python's json would accept them).
    raise ValueError("JSON has no %s" % name)


def _parse_json(text: str, max_depth: int) -> Any:
    depth = 0
    in_string = False
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "{" or c == "[":
            depth += 1
            if depth > max_depth:
                raise _Invalid("JSON nested deeper than %d levels" % max_depth)
        elif c == "}" or c == "]":
            depth -= 1
        i += 1
    trimmed = js_trim(text)
    if not trimmed:
        raise _Invalid("the ```json block is empty")
    try:
        return json.loads(trimmed, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as e:
        raise _Invalid("broken JSON: %s" % e) from None


def _require(headers: Dict[str, str], key: str, label: str) -> str:
    v = headers.get(key)
    if not v:
        raise _Invalid('missing "%s:" line' % label)
    return v


def _optional_int(headers: Dict[str, str], key: str, label: str, minimum: int) -> Optional[int]:
    v = headers.get(key)
    if v is None:
        return None
    if not _INT_RE.fullmatch(v) or int(v) > MAX_SAFE_INTEGER or int(v) < minimum:
        raise _Invalid('"%s:" must be an integer \u2265 %d, got "%s"' % (label, minimum, v))
    return int(v)


def _version(headers: Dict[str, str]) -> str:
    version = headers.get("version") or "1.0"
    if not _VERSION_RE.fullmatch(version):
        raise _Invalid('unsupported protocol version "%s" (this reader understands 1.x)' % version)
    return version


def _read_checkpoint(agent: str, headers: Dict[str, str], data: Any) -> Dict[str, Any]:
    version = _version(headers)
    cp: Dict[str, Any] = {
        "kind": "checkpoint",
        "agent": agent,
        "session": _require(headers, "session", "Session"),
        "phase": _require(headers, "phase", "Phase"),
        "version": version,
        "timestamp": headers.get("time") or None,
        "data": data,
    }
    cid = headers.get("id")
    if cid is not None:
        if not ID_RE.fullmatch(cid):
            raise _Invalid('"Id:" is malformed: "%s"' % _js_slice(cid, 40))
        cp["id"] = cid
    seq = _optional_int(headers, "seq", "Seq", 1)
    if seq is not None:
        cp["seq"] = seq
    epoch = _optional_int(headers, "epoch", "Epoch", 0)
    if epoch is not None:
        cp["epoch"] = epoch
    sig = headers.get("signature")
    if sig is not None:
        if not SIGNATURE_RE.fullmatch(sig):
            raise _Invalid('"Signature:" is malformed')
        cp["signature"] = sig
    return cp


def _read_health(agent: str, headers: Dict[str, str], metrics: Any) -> Dict[str, Any]:
    return {
        "kind": "health",
        "agent": agent,
        "session": _require(headers, "session", "Session"),
        "status": headers.get("status") or "Unknown",
        "timestamp": headers.get("time") or None,
        "metrics": metrics,
    }


def _read_control(agent: str, headers: Dict[str, str]) -> Dict[str, Any]:
    version = _version(headers)
    action_text = _require(headers, "action", "Action")
    action = action_text.lower()
    if action not in CONTROL_ACTIONS:
        raise _Invalid('unknown "Action:" "%s" (one of %s)' % (_js_slice(action_text, 40), ", ".join(CONTROL_ACTIONS)))
    c: Dict[str, Any] = {
        "kind": "control",
        "agent": agent,
        "session": _require(headers, "session", "Session"),
        "action": action,
        "timestamp": headers.get("time") or None,
        "version": version,
    }
    target = _optional_int(headers, "target", "Target", 1)
    epoch = _optional_int(headers, "epoch", "Epoch", 0)
    target_id = headers.get("targetId")
    if target is not None:
        c["target"] = target
    if target_id is not None:
        if not ID_RE.fullmatch(target_id):
            raise _Invalid('"Target Id:" is malformed')
        c["targetId"] = target_id
    if epoch is not None:
        c["epoch"] = epoch
    if headers.get("by"):
        c["by"] = headers["by"]
    if headers.get("reason"):
        c["reason"] = headers["reason"]
    sig = headers.get("signature")
    if sig is not None:
        if not SIGNATURE_RE.fullmatch(sig):
            raise _Invalid('"Signature:" is malformed')
        c["signature"] = sig
    missing = missing_control_fields(action, target, epoch)
    if missing:
        raise _Invalid('%s needs %s' % (action, '"Target:" and "Epoch:" lines' if missing == "target" else 'an "Epoch:" line'))
    return c


def _js_slice(s: str, n: int) -> str:
    """s.slice(0, n) in UTF-16 units, as the TypeScript reader cuts error excerpts."""
    b = s.encode("utf-16-le", "surrogatepass")
    return b[: 2 * n].decode("utf-16-le", "surrogatepass")


def parse_checkpoint(body: str) -> Dict[str, Any]:
    """Read a body that must be a checkpoint; raises CheckpointParseError with the reason."""
    p = parse_comment(body)
    if p["kind"] == "checkpoint":
        return p
    if p["kind"] == "invalid":
        reason = "invalid %s: %s" % (p["marker"], p["error"])
    elif p["kind"] in ("health", "control"):
        reason = "this is a [%s] comment, not a checkpoint" % p["kind"].upper()
    else:
        reason = "the comment does not open with [CHECKPOINT]"
    raise CheckpointParseError(reason)


# ---- writing ----


def python_utc_isoformat(now: Optional[datetime] = None) -> str:
    """The seed's `datetime.utcnow().isoformat() + "Z"`: microseconds when non-zero."""
    t = now if now is not None else datetime.now(timezone.utc)
    if t.tzinfo is not None:
        t = t.astimezone(timezone.utc).replace(tzinfo=None)
    return t.isoformat() + "Z"


def _check_header(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ProtocolInputError("cannot format %s: must be a string, got %r" % (what, value))
    if not value:
        raise ProtocolInputError("cannot format %s: must not be empty" % what)
    if len(value) > 256:
        raise ProtocolInputError("cannot format %s: must be at most 256 characters" % what)
    if "\r" in value or "\n" in value:
        raise ProtocolInputError("cannot format %s: must be a single line" % what)
    if value != js_trim(value):
        raise ProtocolInputError("cannot format %s: must not start or end with whitespace" % what)
    return value


def _check_time(value: Any) -> str:
    if not isinstance(value, str) or not value or "\r" in value or "\n" in value:
        raise ProtocolInputError("cannot format timestamp: must be a non-empty single line")
    return value


def _check_json_object(data: Any, what: str) -> Dict[str, Any]:
    if not isinstance(data, dict):
        raise ProtocolInputError("cannot format %s: must be a JSON object (a dict), got %s" % (what, type(data).__name__))
    try:
        json.dumps(data, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ProtocolInputError(
            "cannot format %s: must be JSON: null, a boolean, a finite number (JSON has no NaN or Infinity), a string, "
            "or a list or dict of those with string keys (%s)" % (what, e)
        ) from None
    return data


def _check_optional(kind: str, value: Any, what: str) -> None:
    if value is None:
        return
    if kind == "id":
        if not isinstance(value, str) or not ID_RE.fullmatch(value):
            raise ProtocolInputError("cannot format %s: must be 8\u2013128 characters of A\u2013Z a\u2013z 0\u20139 . _ : -" % what)
    elif kind == "sig":
        if not isinstance(value, str) or not SIGNATURE_RE.fullmatch(value):
            raise ProtocolInputError('cannot format %s: must be "hmac-sha256=" and 64 hex digits' % what)
    else:
        lo = 1 if kind == "seq" else 0
        if isinstance(value, bool) or not isinstance(value, int) or value < lo or value > MAX_SAFE_INTEGER:
            raise ProtocolInputError("cannot format %s: must be an integer \u2265 %d" % (what, lo))


def format_checkpoint(
    agent: str,
    session: str,
    phase: str,
    timestamp: str,
    data: Dict[str, Any],
    id: Optional[str] = None,
    seq: Optional[int] = None,
    epoch: Optional[int] = None,
    signature: Optional[str] = None,
) -> str:
    """A [CHECKPOINT] body exactly as the seed's format_checkpoint_comment writes it (with the closing fence
    its reader needs), plus the additive Id/Seq/Epoch/Signature lines after Time:."""
    _check_header(agent, "checkpoint: agent")
    _check_header(session, "checkpoint: session")
    _check_header(phase, "checkpoint: phase")
    _check_time(timestamp)
    _check_json_object(data, "checkpoint: data")
    _check_optional("id", id, "checkpoint: id")
    _check_optional("seq", seq, "checkpoint: seq")
    _check_optional("epoch", epoch, "checkpoint: epoch")
    _check_optional("sig", signature, "checkpoint: signature")
    extra = ""
    if id is not None:
        extra += "Id: %s\n" % id
    if seq is not None:
        extra += "Seq: %d\n" % seq
    if epoch is not None:
        extra += "Epoch: %d\n" % epoch
    if signature is not None:
        extra += "Signature: %s\n" % signature
    return (
        "%s %s\nVersion: %s\nPhase: %s\nSession: %s\nTime: %s\n%s\nState Data:\n```json\n%s\n```\n\n---\n\n%s%s"
        % (CHECKPOINT_MARKER, agent, PROTOCOL_VERSION, phase, session, timestamp, extra, json.dumps(data, indent=2, sort_keys=True), FOOTER, agent)
    )


def format_health(
    agent: str, session: str, timestamp: str, metrics: Dict[str, Any], status: str = "Active", next_check: str = DEFAULT_NEXT_CHECK
) -> str:
    """A [HEALTH] body exactly as the seed's post_health_signal writes it (metrics not key-sorted)."""
    _check_header(agent, "health signal: agent")
    _check_header(session, "health signal: session")
    _check_header(status, "health signal: status")
    _check_header(next_check, "health signal: nextCheck")
    _check_time(timestamp)
    _check_json_object(metrics, "health signal: metrics")
    return "%s %s\nSession: %s\nTime: %s\nStatus: %s\n\nMetrics:\n```json\n%s\n```\n\nNext check: %s\n\n---\n\n%s%s" % (
        HEALTH_MARKER,
        agent,
        session,
        timestamp,
        status,
        json.dumps(metrics, indent=2),
        next_check,
        FOOTER,
        agent,
    )


def format_control(
    agent: str,
    session: str,
    action: str,
    timestamp: str,
    target: Optional[int] = None,
    target_id: Optional[str] = None,
    epoch: Optional[int] = None,
    by: Optional[str] = None,
    reason: Optional[str] = None,
    signature: Optional[str] = None,
) -> str:
    """A [CONTROL] body (checkpost's additive kind): header lines, no JSON block, never "[CHECKPOINT]"."""
    _check_header(agent, "control: agent")
    _check_header(session, "control: session")
    _check_time(timestamp)
    if action not in CONTROL_ACTIONS:
        raise ProtocolInputError("cannot format control: action must be one of %s" % ", ".join(CONTROL_ACTIONS))
    missing = missing_control_fields(action, target, epoch)
    if missing:
        raise ProtocolInputError("cannot format control: %s needs %s" % (action, "target and epoch" if missing == "target" else "epoch"))
    lines = ["%s %s" % (CONTROL_MARKER, agent), "Version: %s" % PROTOCOL_VERSION, "Session: %s" % session, "Time: %s" % timestamp, "Action: %s" % action]
    if target is not None:
        lines.append("Target: %d" % target)
    if target_id is not None:
        lines.append("Target Id: %s" % target_id)
    if epoch is not None:
        lines.append("Epoch: %d" % epoch)
    if by is not None:
        lines.append("By: %s" % _check_header(by, "control: by"))
    if reason is not None:
        lines.append("Reason: %s" % _check_header(reason, "control: reason"))
    if signature is not None:
        lines.append("Signature: %s" % signature)
    body = "\n".join(lines) + "\n\n---\n\n" + CONTROL_FOOTER
    if CHECKPOINT_MARKER in body:
        raise ProtocolInputError('cannot format control: no value may contain "%s"' % CHECKPOINT_MARKER)
    return body


# ---- signatures (src/protocol/sign-checkpoint.ts, sign-control.ts) ----


def js_number_normal(v: Any) -> Any:
    """A value as JavaScript holds it after JSON.parse: integral floats are ints (JSON has one number type),
    so a Python writer's 1.0 signs like the TypeScript reader reads it back."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, float):
        if math.isfinite(v) and v == int(v) and abs(v) < 1e21:
            return int(v)
        return v
    if isinstance(v, int):
        # JSON.parse reads big integers as doubles.
        return v if abs(v) <= MAX_SAFE_INTEGER else js_number_normal(float(v))
    if isinstance(v, dict):
        return {k: js_number_normal(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [js_number_normal(x) for x in v]
    return v


def canonical_checkpoint(cp: Dict[str, Any]) -> str:
    """The text a checkpoint signature covers (pythonJsonDumps with sorted keys, no indent)."""
    arr = [
        "checkpost-signature-v1",
        cp.get("version") or PROTOCOL_VERSION,
        cp["agent"],
        cp["session"],
        cp["phase"],
        cp.get("timestamp"),
        cp.get("id"),
        cp.get("seq"),
        cp.get("epoch"),
        js_number_normal(cp.get("data")),
    ]
    return json.dumps(arr, sort_keys=True)


def _mac(key: str, text: str) -> str:
    import hashlib  # only with a signing key: kept off a plain save's start-up
    import hmac

    return "hmac-sha256=" + hmac.new(key.encode("utf-8"), text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def sign_checkpoint(cp: Dict[str, Any], key: str) -> str:
    """`hmac-sha256=<hex>` over the canonical form: the same bytes as signCheckpoint in TypeScript."""
    return _mac(key, canonical_checkpoint(cp))


def verify_checkpoint_signature(cp: Dict[str, Any], key: str) -> bool:
    import hmac

    sig = cp.get("signature")
    return bool(sig) and hmac.compare_digest(sign_checkpoint(cp, key), sig)


def canonical_control(c: Dict[str, Any]) -> str:
    arr = [
        "checkpost-control-signature-v1",
        c.get("version") or PROTOCOL_VERSION,
        c["agent"],
        c["session"],
        c["action"],
        c.get("timestamp"),
        c.get("target"),
        c.get("targetId"),
        c.get("epoch"),
        c.get("by"),
        c.get("reason"),
    ]
    return json.dumps(arr, sort_keys=True)


def sign_control(c: Dict[str, Any], key: str) -> str:
    return _mac(key, canonical_control(c))


def verify_control_signature(c: Dict[str, Any], key: str) -> bool:
    import hmac

    sig = c.get("signature")
    return bool(sig) and hmac.compare_digest(sign_control(c, key), sig)


def is_legacy_checkpoint(cp: Dict[str, Any]) -> bool:
    """Written by a 1.0 writer (the seed's agents): none of checkpost's additive headers."""
    return cp.get("id") is None and cp.get("seq") is None and cp.get("epoch") is None and cp.get("signature") is None


# ---- phase maps ----

IMPLEMENTATION_WORKER_PHASE_MAP: Dict[str, str] = {
    "clone_complete": "phase_2_subtasks",
    "subtask_1_complete": "phase_2_continue",
    "subtask_2_complete": "phase_2_continue",
    "all_subtasks_complete": "phase_3_commit",
    "commit_complete": "phase_4_pr",
    "pr_created": "phase_4_monitoring",
}
BUILTIN_PHASE_MAPS: Dict[str, Dict[str, str]] = {"implementation-worker": IMPLEMENTATION_WORKER_PHASE_MAP}
START = "start"
FRESH_START = "fresh_start"


def resume_point_for(phase: str, phase_map: Dict[str, str]) -> str:
    """The seed's rule: a phase the map does not know resumes at "start"."""
    return phase_map.get(phase, START)
