"""The seed's own agent functions, as agents and as a reader, for the mixed-fleet suite.

Usage:
  python3 seed-fleet.py save AGENT SESSION PHASE DATA_JSON     # the seed's save_state
  python3 seed-fleet.py resume PAIRS_JSON                      # the seed's resume_agent_work per [agent, session]
  python3 seed-fleet.py serve                                  # a long-running agent: one JSON request a line on stdin
                                                               # ({"cmd": "save", "agent", "session", "phase", "data"} or
                                                               # {"cmd": "resume", "pairs": [[agent, session], ...]}),
                                                               # one JSON answer a line on stdout
Env: FORGEJO_URL (instance root), FORGEJO_TOKEN, FORGEJO_REPOSITORY=owner/name

Provenance: the functions find_session_state_issue, create_checkpoint, save_checkpoint, save_state,
parse_checkpoint_comment, load_latest_checkpoint and resume_agent_work are cut VERBATIM at run time
out of fixtures/seed/session_state.md.txt (the seed document, see fixtures/seed/PROVENANCE.md) and
executed, so what runs is the seed's code, not a port (the same cut as bench/seed-agent.py).
Supplied here, because the seed does not hold them:
- format_checkpoint_comment: the seed's f-string lost its closing ``` fence and its `return`
  indent to Markdown rendering; this is the function as the seed's agents write it (as in
  bench/seed-agent.py, byte-compatible with checkpost's formatCheckpoint).
- forgejo_list_repo_issues / forgejo_create_issue_comment / forgejo_list_issue_comments: the
  agent's Forgejo tools in the seed; here thin urllib calls to the same REST endpoints. The comment
  listing reads every page, so only the seed's own documented errors show (the 24 h `since` window
  and the sort by the writer's clock string).
- `from datetime import timedelta`: load_latest_checkpoint uses it; the seed imports only datetime.
"""

import contextlib
import json
import os
import sys
import urllib.parse
import urllib.request
from datetime import datetime, timedelta  # noqa: F401 (timedelta: used by the seed's load_latest_checkpoint)

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = os.path.join(HERE, "..", "..", "..", "fixtures", "seed", "session_state.md.txt")

API = os.environ["FORGEJO_URL"].rstrip("/") + "/api/v1"
TOKEN = os.environ["FORGEJO_TOKEN"]
HEADERS = {"Authorization": "token " + TOKEN, "Content-Type": "application/json", "Accept": "application/json"}


def _call(method, path, params=None, body=None):
    url = API + path + ("?" + urllib.parse.urlencode(params) if params else "")
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=data, method=method, headers=HEADERS)
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read().decode("utf-8"))


def forgejo_list_repo_issues(owner, repo, state="open", labels=None):
    params = {"state": state, "type": "issues"}
    if labels:
        params["labels"] = labels
    return _call("GET", "/repos/%s/%s/issues" % (owner, repo), params)


# Where the last comment went: the seed's save_state does not say, and the harness must know when a save
# reached a closed issue (found open by find_session_state_issue just before the bot closed it).
LAST_COMMENT = {}


def forgejo_create_issue_comment(owner, repo, index, body):
    out = _call("POST", "/repos/%s/%s/issues/%d/comments" % (owner, repo, index), body={"body": body})
    LAST_COMMENT.clear()
    LAST_COMMENT.update({"issue": index, "comment_id": out.get("id")})
    return out


def forgejo_list_issue_comments(owner, repo, index, since=None):
    # Forgejo does not page this endpoint: one request returns every comment updated since `since`.
    params = {"since": since} if since else None
    return _call("GET", "/repos/%s/%s/issues/%d/comments" % (owner, repo, index), params)


def format_checkpoint_comment(checkpoint):
    """Format checkpoint for Forgejo comment."""

    comment = f"""[CHECKPOINT] {checkpoint['agent']}
Version: {checkpoint['version']}
Phase: {checkpoint['phase']}
Session: {checkpoint['session']}
Time: {checkpoint['timestamp']}

State Data:
```json
{json.dumps(checkpoint['data'], indent=2, sort_keys=True)}
```

---

Automated by CleverAgents Bot Agent: {checkpoint['agent']}"""

    return comment


def seed_source(name):
    """One top-level def of the seed, verbatim: from `def name(` to the first unindented line."""
    with open(SEED, encoding="utf-8") as f:
        text = f.read()
    start = text.index("def %s(" % name)
    lines = text[start:].split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        if line.strip() and not line[0].isspace():
            break
        out.append(line)
    return "\n".join(out)


SESSION_STATE_TITLE_PATTERN = "[Automated] CleverAgents Build Session"
CHECKPOINT_VERSION = "1.0"
for _name in (
    "find_session_state_issue",
    "create_checkpoint",
    "save_checkpoint",
    "save_state",
    "parse_checkpoint_comment",
    "load_latest_checkpoint",
    "resume_agent_work",
):
    exec(seed_source(_name), globals())

def seed_save(owner, repo, agent, session, phase, data):
    """The seed's save_state; its save_checkpoint swallows errors and prints, so report what it printed."""
    import io

    buf = io.StringIO()
    LAST_COMMENT.clear()
    with contextlib.redirect_stdout(buf):
        save_state(owner, repo, agent, session, phase, **data)  # noqa: F821 (defined by exec above)
    return {"saved": "[CHECKPOINT] Saved:" in buf.getvalue(), "printed": buf.getvalue(), **LAST_COMMENT}


def seed_resume(owner, repo, pairs):
    answers = []
    for agent, session in pairs:
        # The seed prints what it does; keep stdout for the one JSON answer line.
        with contextlib.redirect_stdout(sys.stderr):
            data, phase = resume_agent_work(owner, repo, agent, session)  # noqa: F821
        answers.append([data, phase])
    return answers


if __name__ == "__main__":
    owner, repo = os.environ["FORGEJO_REPOSITORY"].split("/", 1)
    if sys.argv[1] == "save":
        print(json.dumps(seed_save(owner, repo, sys.argv[2], sys.argv[3], sys.argv[4], json.loads(sys.argv[5]))))
    elif sys.argv[1] == "resume":
        print(json.dumps(seed_resume(owner, repo, json.loads(sys.argv[2]))))
    elif sys.argv[1] == "serve":
        for line in sys.stdin:
            req = json.loads(line)
            try:
                if req["cmd"] == "save":
                    out = seed_save(owner, repo, req["agent"], req["session"], req["phase"], req["data"])
                else:
                    out = seed_resume(owner, repo, req["pairs"])
            except Exception as e:  # noqa: BLE001 (reported to the harness, which counts it)
                out = {"error": "%s: %s" % (type(e).__name__, e)}
            sys.stdout.write(json.dumps(out) + "\n")
            sys.stdout.flush()
    else:
        sys.exit("usage: seed-fleet.py save AGENT SESSION PHASE DATA_JSON | resume PAIRS_JSON | serve")
