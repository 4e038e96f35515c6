"""The seed's own agent code doing one save, as a whole process: the baseline for `checkpost save`.

Usage: python3 bench/seed-agent.py AGENT SESSION PHASE DATA_JSON
Env:   FORGEJO_URL (instance root), FORGEJO_TOKEN, FORGEJO_REPOSITORY=owner/name

The functions find_session_state_issue, create_checkpoint, save_checkpoint and save_state are cut
VERBATIM at run time out of fixtures/seed/session_state.md.txt (the seed document; see
fixtures/seed/PROVENANCE.md) and executed, so what is measured is the seed's code, not a port.
Two pieces are not in the seed and are supplied here:
- format_checkpoint_comment: the seed's f-string lost its closing ``` fence and its `return` indent
  to Markdown rendering; below is the function as the seed's agents write it (byte-compatible with
  fixtures/comments/seed-fenced.md and with checkpost's formatCheckpoint).
- forgejo_list_repo_issues / forgejo_create_issue_comment: in the seed these are the agent's Forgejo
  tools; here they are the thinnest urllib calls to the same REST endpoints (one request each).
So a save is exactly the seed's two requests: list open issues with the label, then post the comment.
"""

import json
import os
import sys
import urllib.parse
import urllib.request
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = os.path.join(HERE, "..", "fixtures", "seed", "session_state.md.txt")

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


def forgejo_create_issue_comment(owner, repo, index, body):
    return _call("POST", "/repos/%s/%s/issues/%d/comments" % (owner, repo, index), body={"body": body})


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
for _name in ("find_session_state_issue", "create_checkpoint", "save_checkpoint", "save_state"):
    exec(seed_source(_name), globals())

if __name__ == "__main__":
    agent, session, phase, data = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
    owner, repo = os.environ["FORGEJO_REPOSITORY"].split("/", 1)
    save_state(owner, repo, agent, session, phase, **data)  # noqa: F821 (defined by exec above)
