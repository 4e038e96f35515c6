"""`python3 -m checkpost save|health|resume|latest|parse`: the Client as a process, one JSON line out.

Same environment as the CLI. Exit codes: 0 ok, 1 failure (the message says what to fix), 2 usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional

from .client import Client
from .errors import CheckpostError
from .protocol import parse_comment


def _json_obj(text: str, flag: str) -> dict:
    try:
        v = json.loads(text)
    except ValueError as e:
        raise SystemExit("checkpost: %s: not valid JSON: %s" % (flag, e)) from None
    if not isinstance(v, dict):
        raise SystemExit("checkpost: %s: must be a JSON object" % flag)
    return v


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m checkpost")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("save")
    s.add_argument("--agent", required=True)
    s.add_argument("--session", required=True)
    s.add_argument("--phase", required=True)
    s.add_argument("--data", default="{}")
    s.add_argument("--seq", type=int)
    s.add_argument("--epoch", type=int)
    s.add_argument("--directive", action="store_true", help="read the issue beside the POST and report a directive")
    h = sub.add_parser("health")
    h.add_argument("--agent", required=True)
    h.add_argument("--session", required=True)
    h.add_argument("--metrics", default="{}")
    h.add_argument("--status", default="Active")
    r = sub.add_parser("resume")
    r.add_argument("--agent", required=True)
    r.add_argument("--session", required=True)
    r.add_argument("--map")
    r.add_argument("--take-over", action="store_true")
    lt = sub.add_parser("latest")
    lt.add_argument("--agent", required=True)
    lt.add_argument("--session")
    lt.add_argument("--all-issues", action="store_true")
    sub.add_parser("parse", help="read a comment body on stdin")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "parse":
            out = parse_comment(sys.stdin.read())
        else:
            c = Client.from_env()
            if a.cmd == "save":
                out = c.save(a.agent, a.session, a.phase, _json_obj(a.data, "--data"), seq=a.seq, epoch=a.epoch, check_directive=a.directive)
            elif a.cmd == "health":
                out = c.health(a.agent, a.session, _json_obj(a.metrics, "--metrics"), status=a.status)
            elif a.cmd == "resume":
                out = c.resume(a.agent, a.session, phase_map=a.map, take_over=a.take_over)
            else:
                out = c.latest(a.agent, a.session, all_issues=a.all_issues)
    except CheckpostError as e:
        print("checkpost: %s" % e, file=sys.stderr)
        return 1
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
