"""`python3 -m checkpost save|health|resume|latest|parse [--flag value ...]`: the Client as a process,
one JSON line out. Same environment variables as the CLI, filled in from ./.env or `--env-file FILE` as the
CLI fills them. Exit codes: 0 ok, 1 failure (the message says what to fix), 5 an --env-file that cannot be read (as the CLI),
2 usage. (No argparse: a save process should start as fast as the seed's.)

  save    --agent A --session S --phase P [--data JSON] [--seq N] [--epoch N] [--directive]
  health  --agent A --session S [--metrics JSON] [--status Active]
  resume  --agent A --session S [--map NAME|FILE] [--take-over]
  latest  --agent A [--session S] [--all-issues]
  parse   (a comment body on stdin)
"""

from __future__ import annotations

import json
import sys
from typing import Any, Dict, List, Optional

FLAGS = {"--directive", "--take-over", "--all-issues"}
NEEDS = {"save": ("agent", "session", "phase"), "health": ("agent", "session"), "resume": ("agent", "session"), "latest": ("agent",), "parse": ()}


class Usage(Exception):
    pass


def _args(argv: List[str]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in FLAGS:
            out[a[2:].replace("-", "_")] = True
            i += 1
        elif a.startswith("--") and i + 1 < len(argv):
            out[a[2:].replace("-", "_")] = argv[i + 1]
            i += 2
        else:
            raise Usage("unexpected argument %r" % a)
    return out


def _json_obj(text: str, flag: str) -> Dict[str, Any]:
    try:
        v = json.loads(text)
    except ValueError as e:
        raise Usage("%s: not valid JSON: %s" % (flag, e)) from None
    if not isinstance(v, dict):
        raise Usage("%s: must be a JSON object" % flag)
    return v


def _int(v: Optional[str], flag: str) -> Optional[int]:
    if v is None:
        return None
    try:
        return int(v)
    except ValueError:
        raise Usage("%s: must be an integer" % flag) from None


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        if not argv or argv[0] not in NEEDS:
            raise Usage("a command: %s" % ", ".join(NEEDS))
        cmd = argv[0]
        a = _args(argv[1:])
        missing = [n for n in NEEDS[cmd] if n not in a]
        if missing:
            raise Usage("%s needs %s" % (cmd, ", ".join("--" + m for m in missing)))
    except Usage as e:
        print("checkpost: %s\n%s" % (e, __doc__), file=sys.stderr)
        return 2
    from .client import Client  # after the arguments: a usage error costs no import
    from .errors import CheckpostError, EnvFileError

    try:
        if cmd == "parse":
            from .protocol import parse_comment

            out: Any = parse_comment(sys.stdin.read())
        else:
            c = Client.from_env(env_file=a.get("env_file"))
            if cmd == "save":
                out = c.save(a["agent"], a["session"], a["phase"], _json_obj(a.get("data", "{}"), "--data"), seq=_int(a.get("seq"), "--seq"), epoch=_int(a.get("epoch"), "--epoch"), check_directive=bool(a.get("directive")))
            elif cmd == "health":
                out = c.health(a["agent"], a["session"], _json_obj(a.get("metrics", "{}"), "--metrics"), status=a.get("status", "Active"))
            elif cmd == "resume":
                out = c.resume(a["agent"], a["session"], phase_map=a.get("map"), take_over=bool(a.get("take_over")))
            else:
                out = c.latest(a["agent"], a.get("session"), all_issues=bool(a.get("all_issues")))
    except Usage as e:
        print("checkpost: %s" % e, file=sys.stderr)
        return 2
    except EnvFileError as e:
        # The TypeScript CLI's EXIT.envFile (src/cli/exit-codes.ts): a script tells a bad path from a failure.
        print("checkpost: %s" % e, file=sys.stderr)
        return 5
    except CheckpostError as e:
        print("checkpost: %s" % e, file=sys.stderr)
        return 1
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
