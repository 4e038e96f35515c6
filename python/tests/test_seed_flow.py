"""The seed's own example flow (`implementation_with_checkpoints`, cut verbatim out of
fixtures/seed/session_state.md.txt) runs unchanged except for the import, and resumes right on the
benchmark's three probes where the seed's own functions (also cut verbatim) resume wrong:

- tie: the two newest checkpoints in one second, "...:00Z" (older) and "...:00.500000Z" (newer): the
  seed's string sort puts the older first;
- old: the newest checkpoint is older than 24 h (the reader runs 30 h after it): outside the seed's window;
- forged: an untrusted user posted a newer [CHECKPOINT] naming the agent: the seed has no author check.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import unittest
import urllib.parse
import urllib.request
from datetime import datetime, timedelta
from typing import Any, Dict, List

import checkpost
from checkpost import protocol as P

from .forge import Forge

SEED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "seed", "session_state.md.txt")
AGENT = "implementation-worker"


def seed_source(name: str) -> str:
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


FORMAT_CHECKPOINT_COMMENT = '''
def format_checkpoint_comment(checkpoint):
    """The seed's f-string as its agents write it (Markdown rendering lost its closing fence and indent)."""
    return f"""[CHECKPOINT] {checkpoint['agent']}
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
'''


def seed_namespace(url: str, token: str, hours_later: float = 0.0) -> Dict[str, Any]:
    """The seed's functions, verbatim, with the agent's Forgejo tools as the thinnest REST calls. With
    `hours_later`, the seed's clock runs that far ahead (a reader resuming long after the checkpoint)."""
    api = url + "/api/v1"

    def call(method: str, path: str, params: Any = None, body: Any = None) -> Any:
        u = api + path + ("?" + urllib.parse.urlencode(params) if params else "")
        req = urllib.request.Request(u, data=None if body is None else json.dumps(body).encode(), method=method, headers={"Authorization": "token " + token, "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    class Clock(datetime):
        @classmethod
        def utcnow(cls):  # type: ignore[override]
            return datetime.utcnow() + timedelta(hours=hours_later)

    ns: Dict[str, Any] = {
        "json": json,
        "datetime": Clock,
        "timedelta": timedelta,
        "SESSION_STATE_TITLE_PATTERN": "[Automated] CleverAgents Build Session",
        "CHECKPOINT_VERSION": "1.0",
        "forgejo_list_repo_issues": lambda owner, repo, state="open", labels=None: call("GET", "/repos/%s/%s/issues" % (owner, repo), {"state": state, "labels": labels, "type": "issues"}),
        "forgejo_list_issue_comments": lambda owner, repo, index, since=None: call("GET", "/repos/%s/%s/issues/%d/comments" % (owner, repo, index), {"since": since} if since else None),
        "forgejo_create_issue_comment": lambda owner, repo, index, body: call("POST", "/repos/%s/%s/issues/%d/comments" % (owner, repo, index), body={"body": body}),
    }
    exec(FORMAT_CHECKPOINT_COMMENT, ns)
    for name in ("find_session_state_issue", "create_checkpoint", "save_checkpoint", "save_state", "parse_checkpoint_comment", "load_latest_checkpoint", "resume_agent_work"):
        exec(seed_source(name), ns)
    return ns


def run_example_flow(functions: Dict[str, Any], session_id: str) -> Dict[str, Any]:
    """`implementation_with_checkpoints` from the seed, verbatim, with `functions` providing
    resume_agent_work and save_state (the one import). Returns what the flow did."""
    did: Dict[str, Any] = {"clones": 0, "implemented": [], "working_dirs": []}
    ns: Dict[str, Any] = dict(functions)
    real_save = ns["save_state"]

    def save_state(owner: str, repo: str, agent_name: str, session_id: str, phase: str, **kw: Any) -> None:
        did["working_dirs"].append(kw.get("working_dir"))
        real_save(owner, repo, agent_name, session_id, phase, **kw)

    def clone_repository() -> str:
        did["clones"] += 1
        return "/w/cloned"

    ns.update(
        save_state=save_state,
        owner="agent",
        repo="seedflow",
        agent_name=AGENT,
        session_id=session_id,
        issue_number=7,
        subtasks=["a", "b", "c"],
        clone_repository=clone_repository,
        create_branch=lambda: "feat/cloned",
        implement_subtask=lambda s: did["implemented"].append(s),
    )
    exec(seed_source("implementation_with_checkpoints"), ns)
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            ns["implementation_with_checkpoints"]()
        except AttributeError as e:  # the seed's own resume returns data=None on a fresh start
            did["crashed"] = str(e)
    return did


class SeedExampleFlow(unittest.TestCase):
    forge: Forge

    @classmethod
    def setUpClass(cls) -> None:
        cls.forge = Forge(main="agent", others=["mallory"], repo="seedflow")
        f = cls.forge
        lab = f.api("POST", "/repos/agent/seedflow/labels", {"name": "Type/Automation", "color": "#0075ca"})
        cls.issue = f.api("POST", "/repos/agent/seedflow/issues", {"title": "[Automated] CleverAgents Build Session", "body": "", "labels": [lab["id"]]})["number"]  # type: ignore[index]
        cls.old_env = dict(os.environ)
        os.environ.update(f.env("agent"))
        os.environ["FORGEJO_REPOSITORY"] = "agent/seedflow"
        checkpost.seed.reset_clients()

    @classmethod
    def tearDownClass(cls) -> None:
        os.environ.clear()
        os.environ.update(cls.old_env)
        checkpost.seed.reset_clients()
        cls.forge.close()

    def post(self, user: str, session: str, time: str, data: Dict[str, Any]) -> None:
        body = P.format_checkpoint(AGENT, session, "clone_complete", time, data)
        self.forge.api("POST", "/repos/agent/seedflow/issues/%d/comments" % self.issue, {"body": body}, user=user)

    RIGHT = {"working_dir": "/w/right", "branch_name": "b-right", "completed_subtasks": [0], "issue_number": 7}
    WRONG = {"working_dir": "/w/wrong", "branch_name": "b-wrong", "completed_subtasks": [], "issue_number": 7}

    def plant(self, probe: str, session: str) -> None:
        sec = datetime.utcnow().replace(microsecond=0)
        if probe == "tie":
            self.post("agent", session, sec.isoformat() + "Z", self.WRONG)  # "...:00Z", older
            self.post("agent", session, sec.replace(microsecond=500000).isoformat() + "Z", self.RIGHT)  # newer
        elif probe == "old":
            self.post("agent", session, sec.isoformat() + "Z", self.RIGHT)
        else:
            self.post("agent", session, sec.isoformat() + "Z", self.RIGHT)
            self.post("mallory", session, (sec + timedelta(seconds=1)).isoformat() + "Z", {**self.WRONG, "working_dir": "/w/forged"})

    def test_the_example_flow_resumes_right_where_the_seed_resumes_wrong(self) -> None:
        ours = {name: getattr(checkpost, name) for name in ("resume_agent_work", "save_state")}
        expected_right = {"clones": 0, "implemented": ["b", "c"], "working_dirs": ["/w/right", "/w/right"]}
        for probe in ("tie", "old", "forged"):
            with self.subTest(probe):
                self.plant(probe, "%s-seed" % probe)
                self.plant(probe, "%s-py" % probe)
                seed = seed_namespace(self.forge.url, self.forge.tokens["agent"], hours_later=30 if probe == "old" else 0)
                seed_did = run_example_flow({k: seed[k] for k in ("resume_agent_work", "save_state")}, "%s-seed" % probe)
                our_did = run_example_flow(ours, "%s-py" % probe)
                self.assertEqual(our_did, expected_right)
                self.assertNotEqual(seed_did, expected_right, "the seed's own code should resume wrong on the %s probe" % probe)
                if os.environ.get("CHECKPOST_SHOW_PROBES"):
                    print("\n%s: seed %s / checkpost %s" % (probe, seed_did, our_did))

    def test_a_fresh_start_runs_the_flow_from_the_top(self) -> None:
        did = run_example_flow({name: getattr(checkpost, name) for name in ("resume_agent_work", "save_state")}, "fresh")
        self.assertEqual(did["clones"], 1)
        self.assertEqual(did["implemented"], ["a", "b", "c"])
        # ...and what it saved resumes: the last subtask's checkpoint, from the highest comment id
        with contextlib.redirect_stdout(io.StringIO()):
            data, phase = checkpost.resume_agent_work("agent", "seedflow", AGENT, "fresh")
        self.assertEqual((phase, data["completed_subtasks"]), ("subtask_2_complete", [0, 1, 2]))

    def test_load_latest_checkpoint_and_resume_implementation(self) -> None:
        self.plant("tie", "impl")
        cp = checkpost.load_latest_checkpoint("agent", "seedflow", AGENT, "impl")
        self.assertEqual(cp["data"], self.RIGHT)  # type: ignore[index]
        with contextlib.redirect_stdout(io.StringIO()):
            point, state = checkpost.resume_implementation("agent", "seedflow", "impl", None)
        self.assertEqual((point, state["working_dir"], state["completed_subtasks"]), ("phase_2_subtasks", "/w/right", [0]))
        self.assertEqual(checkpost.find_session_state_issue("agent", "seedflow"), self.issue)
        checkpost.post_health_signal("agent", "seedflow", AGENT, "impl", {"cycle_count": 1})
        comments: List[Dict[str, Any]] = self.forge.api("GET", "/repos/agent/seedflow/issues/%d/comments" % self.issue)  # type: ignore[assignment]
        self.assertEqual(P.parse_comment(comments[-1]["body"])["kind"], "health")
        # the seed's own parser reads what the drop-ins write
        with contextlib.redirect_stdout(io.StringIO()):
            checkpost.save_state("agent", "seedflow", AGENT, "impl", "subtask_1_complete", completed_subtasks=[0, 1])
        comments = self.forge.api("GET", "/repos/agent/seedflow/issues/%d/comments" % self.issue)  # type: ignore[assignment]
        seed = seed_namespace(self.forge.url, self.forge.tokens["agent"])
        read = seed["parse_checkpoint_comment"](comments[-1]["body"])
        self.assertEqual((read["agent"], read["phase"], read["data"]), (AGENT, "subtask_1_complete", {"completed_subtasks": [0, 1]}))


if __name__ == "__main__":
    unittest.main()
