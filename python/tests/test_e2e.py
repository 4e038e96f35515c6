"""End to end: the Python client against the embedded Forgejo started from the built CLI, side by side
with the CLI and the TypeScript library on one issue."""

from __future__ import annotations

import json
import os
import tempfile
import unittest
from typing import Any, Dict

from checkpost import Client, ForgejoApiError, SessionChainError, SessionIssueNotFoundError
from checkpost import protocol as P
from checkpost.errors import ConfigError

from .forge import COUNTED_RESUME, LIBRARY_AGENT, WRITE_INDEX, WRITE_INDEX_COMMENT, Forge

W = "implementation-worker"
KEY = "python-e2e-signing-key-0123456789"


_forge: "Forge | None" = None


def setUpModule() -> None:
    global _forge
    # One forge for the module (each test makes its own session issue): starting it costs a second or two.
    _forge = Forge(main="agent", others=["mallory", "checkpost-bot"])


def tearDownModule() -> None:
    if _forge is not None:
        _forge.close()


class ForgeCase(unittest.TestCase):
    @property
    def forge(self) -> Forge:
        assert _forge is not None
        return _forge

    def new_issue(self, title: str = "[Automated] CleverAgents Build Session") -> int:
        """A fresh session issue for one test (each test its own, so none sees another's comments)."""
        f = self.forge
        labels = f.api("GET", "/repos/agent/work/labels")
        lab = next((x for x in labels if x["name"] == "Type/Automation"), None)  # type: ignore[union-attr]
        if lab is None:
            lab = f.api("POST", "/repos/agent/work/labels", {"name": "Type/Automation", "color": "#0075ca"})
        return f.api("POST", "/repos/agent/work/issues", {"title": title, "body": "session", "labels": [lab["id"]]})["number"]  # type: ignore[index]

    def client(self, issue: int, user: str = "agent", **env: str) -> Client:
        return Client.from_env(self.forge.env(user, CHECKPOST_ISSUE=str(issue), **env))

    def env(self, issue: int, user: str = "agent", **extra: str) -> Dict[str, str]:
        return self.forge.env(user, CHECKPOST_ISSUE=str(issue), **extra)


class SaveAndResume(ForgeCase):
    def test_a_save_is_one_request_once_the_issue_is_known(self) -> None:
        issue = self.new_issue()
        c = self.client(issue)
        c.self_login()  # learnt once per machine, then cached
        before = c.api.request_count
        saved = c.save(W, "s1", "clone_complete", {"branch_name": "feat/x"})
        self.assertEqual(c.api.request_count - before, 1)
        self.assertEqual(saved["issue"], issue)
        self.assertRegex(saved["checkpoint"]["id"], r"^cp-[0-9a-f]{24}$")

    def test_a_retry_after_a_lost_answer_posts_once(self) -> None:
        issue = self.new_issue()
        c = self.client(issue)
        real = c.api.create_comment
        calls = {"n": 0}

        def lossy(owner: str, repo: str, number: int, body: str, retry: bool = True) -> Dict[str, Any]:
            calls["n"] += 1
            out = real(owner, repo, number, body, retry=retry)
            if calls["n"] == 1:  # the comment was created, then the answer was lost
                raise ForgejoApiError("Forgejo failed (502)", 502, "POST", "/comments")
            return out

        c.api.create_comment = lossy  # type: ignore[method-assign]
        c.api.min_retry_delay = 0.01
        saved = c.save(W, "s1", "clone_complete", {"k": 1})
        comments = self.forge.api("GET", "/repos/agent/work/issues/%d/comments" % issue)
        ours = [x for x in comments if saved["checkpoint"]["id"] in x["body"]]  # type: ignore[union-attr]
        self.assertEqual(calls["n"], 1, "the retry found the first attempt's comment instead of posting again")
        self.assertEqual(len(ours), 1)
        self.assertEqual(ours[0]["id"], saved["comment_id"])

    def test_resume_takes_over_and_fences_a_superseded_worker(self) -> None:
        issue = self.new_issue()
        a = self.client(issue)
        a.save(W, "s1", "clone_complete", {"step": 1})
        b = self.client(issue)
        r = b.resume(W, "s1", take_over=True)
        self.assertEqual((r["resume_point"], r["phase"], r["epoch"]), ("phase_2_subtasks", "clone_complete", 1))
        self.assertIn("takeover_comment_id", r)
        a.save(W, "s1", "pr_created", {"step": 99})  # the old worker, still running: epoch 0 now
        b.save(W, "s1", "subtask_1_complete", {"step": 2})
        c = self.client(issue).resume(W, "s1")
        self.assertEqual(c["phase"], "subtask_1_complete")
        self.assertEqual(c["checkpoint"]["epoch"], 1)
        self.assertEqual(c["checkpoint"]["seq"], 2)
        # the CLI reads the same issue to the same answer
        cli = self.forge.cli(["resume", "--agent", W, "--session", "s1"], self.env(issue))
        self.assertEqual((cli["phase"], cli["checkpoint"]), (c["phase"], c["checkpoint"]))  # type: ignore[index]

    def test_zombie_is_reported_in_not_used(self) -> None:
        issue = self.new_issue()
        a = self.client(issue)
        a.resume(W, "s9")
        a.save(W, "s9", "clone_complete", {"n": 1})  # epoch 1
        b = self.client(issue)
        b.resume(W, "s9", take_over=True)  # epoch 2, fence written
        a.save(W, "s9", "commit_complete", {"n": 2})  # zombie
        r = self.client(issue).resume(W, "s9")
        self.assertEqual(r["phase"], "clone_complete")
        self.assertEqual([n["kind"] for n in r["not_used"]], ["zombie"])
        self.assertIn("below fence 2", r["not_used"][0]["reason"])

    def test_untrusted_authors_are_ignored_and_trusted_ones_counted(self) -> None:
        issue = self.new_issue()
        self.client(issue).save(W, "s1", "clone_complete", {"mine": True})
        self.client(issue, "mallory").save(W, "s1", "pr_created", {"evil": True})
        r = self.client(issue).resume(W, "s1")
        self.assertEqual(r["state"], {"mine": True})
        r2 = self.client(issue, CHECKPOST_TRUSTED_AUTHORS="mallory").resume(W, "s1")
        self.assertEqual(r2["state"], {"evil": True})

    def test_health_and_latest(self) -> None:
        issue = self.new_issue()
        c = self.client(issue)
        h = c.health("orchestrator", "s1", {"cycle_count": 3})
        self.assertEqual(h["issue"], issue)
        c.save("orchestrator", "s1", "health_check", {"q": 1})
        c.save("orchestrator", "s2", "worker_dispatched", {"q": 2})
        self.assertEqual(c.latest("orchestrator")["phase"], "worker_dispatched")  # type: ignore[index]
        self.assertEqual(c.latest("orchestrator", "s1")["phase"], "health_check")  # type: ignore[index]
        entry = c.entries()[("orchestrator", "s1")]
        self.assertEqual(entry["health"]["metrics"], {"cycle_count": 3})

    def test_phase_maps(self) -> None:
        issue = self.new_issue()
        c = self.client(issue)
        c.save("reviewer", "s1", "review_posted", {})
        self.assertEqual(c.resume("reviewer", "s1")["resume_point"], "review_posted")  # no map: its own phase
        r = c.resume("reviewer", "s1", phase_map={"review_posted": "merge"})
        self.assertEqual((r["resume_point"], r["mapped"]), ("merge", True))


class Errors(ForgeCase):
    def test_a_bad_token_says_which_variable(self) -> None:
        issue = self.new_issue()
        c = Client.from_env({**self.env(issue), "FORGEJO_TOKEN": "0" * 40, "CHECKPOST_RETRIES": "0"})
        with self.assertRaises(ForgejoApiError) as cm:
            c.save(W, "s1", "p", {})
        self.assertEqual(cm.exception.status, 401)
        self.assertIn("FORGEJO_TOKEN", str(cm.exception))

    def test_no_session_issue_says_what_to_do(self) -> None:
        env = self.forge.env("agent", CHECKPOST_SESSION_TITLE="No such session", CHECKPOST_SESSION_LABEL="Type/Automation")
        with self.assertRaises(SessionIssueNotFoundError) as cm:
            Client.from_env(env).issue_number()
        self.assertIn("checkpost init", str(cm.exception))
        self.assertIsInstance(cm.exception, ValueError)  # as the seed's find_session_state_issue raises

    def test_bad_configuration_names_the_variable(self) -> None:
        with self.assertRaises(ConfigError) as cm:
            Client.from_env({"FORGEJO_URL": "http://x", "FORGEJO_REPO": "nowner"})
        self.assertIn("FORGEJO_REPO", str(cm.exception))
        with self.assertRaises(ConfigError) as cm2:
            Client.from_env({"FORGEJO_URL": "http://x", "FORGEJO_REPO": "a/b", "CHECKPOST_SIGNING_KEY": "short"})
        self.assertIn("CHECKPOST_SIGNING_KEY", str(cm2.exception))

    def test_an_unreachable_forge_is_a_network_error(self) -> None:
        c = Client.from_env({"FORGEJO_URL": "http://127.0.0.1:9", "FORGEJO_TOKEN": "t", "FORGEJO_REPO": "a/b", "CHECKPOST_ISSUE": "1", "CHECKPOST_RETRIES": "1"})
        c.api.min_retry_delay = 0.01
        with self.assertRaises(ForgejoApiError) as cm:
            c.save(W, "s1", "p", {})
        self.assertEqual(cm.exception.status, 0)
        self.assertIn("FORGEJO_URL", str(cm.exception))


class Interop(ForgeCase):
    def test_python_cli_and_library_agents_on_one_issue(self) -> None:
        issue = self.new_issue()
        env = self.env(issue)
        py = self.client(issue)
        py.save(W, "py", "clone_complete", {"by": "python"})
        # the CLI reads what Python wrote
        cli = self.forge.cli(["resume", "--agent", W, "--session", "py"], env)
        self.assertEqual((cli["phase"], cli["state"]), ("clone_complete", {"by": "python"}))  # type: ignore[index]
        # Python reads what the CLI wrote
        self.forge.cli(["save", "--agent", W, "--session", "cli", "--phase", "commit_complete", "--data", '{"by":"cli"}'], env)
        r = py.resume(W, "cli")
        self.assertEqual((r["resume_point"], r["state"]), ("phase_4_pr", {"by": "cli"}))
        # ...and what the TypeScript library wrote
        self.forge.node(LIBRARY_AGENT, env, "save", W, "lib", "pr_created", '{"by":"library"}')
        self.assertEqual(py.resume(W, "lib")["state"], {"by": "library"})
        # the library reads what Python wrote after taking over
        py.save(W, "lib", "all_subtasks_complete", {"by": "python again"})
        lib = self.forge.node(LIBRARY_AGENT, env, "resume", W, "lib")
        self.assertEqual((lib["phase"], lib["state"]), ("all_subtasks_complete", {"by": "python again"}))  # type: ignore[index]
        self.assertEqual(lib["checkpoint"]["epoch"], 1)  # type: ignore[index]

    def test_a_machine_shares_the_fence_between_cli_and_python_processes(self) -> None:
        issue = self.new_issue()
        env = self.env(issue)  # one CHECKPOST_CACHE_DIR: one machine
        Client.from_env(env).save(W, "m", "clone_complete", {"n": 1})
        cli = self.forge.cli(["resume", "--agent", W, "--session", "m"], env)  # takes over: epoch 1
        self.assertEqual(cli["epoch"], 1)  # type: ignore[index]
        saved = Client.from_env(env).save(W, "m", "subtask_1_complete", {"n": 2})  # a new Python process
        self.assertEqual((saved["checkpoint"].get("epoch"), saved["checkpoint"].get("seq")), (1, 1))
        py = Client.from_env(env).resume(W, "m")  # takes over: epoch 2
        out = self.forge.cli(["save", "--agent", W, "--session", "m", "--phase", "subtask_2_complete", "--data", "{}"], env)
        self.assertEqual((out["epoch"], out["seq"]), (py["epoch"], py["next_seq"]))  # type: ignore[index]
        self.assertEqual(self.client(issue).resume(W, "m")["phase"], "subtask_2_complete")

    def test_signatures_verify_across_languages(self) -> None:
        issue = self.new_issue()
        signed_env = self.env(issue, CHECKPOST_SIGNING_KEY=KEY)
        py = Client.from_env(signed_env)
        py.save(W, "sig", "clone_complete", {"n": 1.0, "s": "caf\u00e9 \U0001f600", "f": 0.1})
        cli = self.forge.cli(["resume", "--agent", W, "--session", "sig"], signed_env)
        self.assertEqual(cli["phase"], "clone_complete")  # type: ignore[index]
        # an unsigned save is refused by both, with the reason
        self.client(issue).save(W, "sig", "pr_created", {})
        r = py.resume(W, "sig")
        self.assertEqual(r["phase"], "clone_complete")
        self.assertEqual(r["not_used"][0]["kind"], "unsigned")
        cli2 = self.forge.cli(["resume", "--agent", W, "--session", "sig"], signed_env)
        self.assertEqual(cli2["not_used"][0]["kind"], "unsigned")  # type: ignore[index]
        # the CLI's signed save verifies in Python
        self.forge.cli(["save", "--agent", W, "--session", "sig", "--phase", "commit_complete", "--data", '{"x":[1,2.5]}'], signed_env)
        self.assertEqual(py.resume(W, "sig")["phase"], "commit_complete")


class ColdResumeIndex(ForgeCase):
    def test_two_requests_with_a_signed_index_and_a_forged_one_is_not_believed(self) -> None:
        issue = self.new_issue()
        env = self.env(issue, CHECKPOST_SIGNING_KEY=KEY)
        w = Client.from_env(env)
        for i in range(5):
            w.save(W, "s1", "subtask_%d_complete" % i, {"i": i})
        self.forge.node(WRITE_INDEX, env, str(issue))
        c = Client.from_env(env)
        c.self_login()
        before = c.api.request_count
        r = c.resume(W, "s1")
        self.assertEqual((r["via"], r["phase"]), ("index", "subtask_4_complete"))
        self.assertLessEqual(c.api.request_count - before, 2)
        # a person with edit rights rewrites the index to point at an older checkpoint, without the key
        forged = self.forge.node(WRITE_INDEX, self.env(issue), str(issue))
        self.assertTrue(forged)
        r2 = Client.from_env(env).resume(W, "s1")
        self.assertEqual((r2["via"], r2["phase"]), ("full", "subtask_4_complete"))

    def test_index_then_newer_saves_are_read_from_the_tail(self) -> None:
        issue = self.new_issue()
        env = self.env(issue)
        w = Client.from_env(env)
        w.save(W, "s1", "clone_complete", {"i": 0})
        self.forge.node(WRITE_INDEX, env, str(issue))
        w.save(W, "s1", "subtask_1_complete", {"i": 1})
        r = Client.from_env(env).resume(W, "s1")
        self.assertEqual((r["via"], r["phase"]), ("index", "subtask_1_complete"))


def point_back(index_text: str, agent: str, session: str, saved: Dict[str, Any]) -> str:
    """An index comment's text with agent+session's entry pointing at an older, real, trusted checkpoint."""
    op = index_text.index("<!-- checkpost:resume-index ") + len("<!-- checkpost:resume-index ")
    close = index_text.index(" -->", op)
    ix = json.loads(index_text[op:close])
    for e in ix["entries"]:
        if (e["agent"], e["session"]) == (agent, session):
            e.clear()
            e.update(agent=agent, session=session, commentId=saved["comment_id"], id=saved["checkpoint"]["id"], maxEpoch=0)
    return index_text[:op] + json.dumps(ix, separators=(",", ":")) + index_text[close:]


class ColdResumeIndexComment(ForgeCase):
    """A resume index over 8 KiB lives in one comment of the bot's; the body points to it."""

    def big_session(self, key: bool) -> Dict[str, Any]:
        issue = self.new_issue()
        extra = {"CHECKPOST_SIGNING_KEY": KEY} if key else {}
        env = self.env(issue, CHECKPOST_TRUSTED_AUTHORS="checkpost-bot", **extra)
        self.forge.api("PUT", "/repos/agent/work/collaborators/checkpost-bot", {"permission": "write"})
        w = Client.from_env(env)
        for i in range(60):  # 60 agent sessions: an index of ~12 KiB
            w.save("worker-%02d" % i, "s%d" % i, "clone_complete", {"i": i})
        old = w.save(W, "s1", "clone_complete", {"n": 0})
        for i in range(40):  # more than ONE_READ_MAX_ID_GAP comments after it
            w.health("chatter", "c", {"i": i})
        new = w.save(W, "s1", "commit_complete", {"n": 1})
        bot_env = self.env(issue, user="checkpost-bot", CHECKPOST_TRUSTED_AUTHORS="agent", **extra)
        out = self.forge.node(WRITE_INDEX_COMMENT, bot_env, str(issue))
        return {"issue": issue, "env": env, "bot_env": bot_env, "old": old, "new": new, "index": out}

    def python_resume(self, env: Dict[str, str], agent: str, session: str) -> Any:
        # A machine of its own (a fresh cache folder): the cold reader, as the counted TS reader is, not
        # the warm path of a cache that already remembers the index comment (test_the_warm_path_…).
        c = Client.from_env({**env, "CHECKPOST_CACHE_DIR": tempfile.mkdtemp(dir=self.forge.cache)})
        c.self_login()  # the login is remembered, as the TS reader is given it: only the resume is counted
        before = c.api.request_count
        r = c.resume(agent, session)
        return r, c.api.request_count - before

    def ts_resume(self, env: Dict[str, str], agent: str, session: str) -> Dict[str, Any]:
        return self.forge.node(COUNTED_RESUME, {**env, "SELF_LOGIN": "agent"}, agent, session)  # type: ignore[return-value]

    def test_python_resumes_through_the_index_comment_in_as_many_requests_as_typescript(self) -> None:
        for key in (True, False):
            with self.subTest(signed=key):
                s = self.big_session(key)
                self.assertGreater(s["index"]["bytes"], 8 * 1024)
                body = self.forge.api("GET", "/repos/agent/work/issues/%d" % s["issue"])["body"]  # type: ignore[index]
                self.assertIn("<!-- checkpost:resume-index-ref ", body)
                self.assertNotIn("<!-- checkpost:resume-index {", body)
                # recent checkpoint: the index comment and the tail in one `since` read
                r, n = self.python_resume(s["env"], W, "s1")
                ts = self.ts_resume(s["env"], W, "s1")
                self.assertEqual((r["via"], r["phase"], r["checkpoint"]["commentId"]), ("index", "commit_complete", s["new"]["comment_id"]))
                self.assertEqual((ts["via"], ts["phase"], ts["commentId"]), ("index", "commit_complete", s["new"]["comment_id"]))
                self.assertEqual(n, ts["requests"])
                self.assertEqual(n, 2)
                # an old checkpoint: fetched by id after the tail when the tail (comments updated since the
                # index's `since`, whole seconds) does not hold it, so 2 or 3 requests, the same on both sides
                r, n = self.python_resume(s["env"], "worker-00", "s0")
                ts = self.ts_resume(s["env"], "worker-00", "s0")
                self.assertEqual((r["via"], r["phase"]), ("index", "clone_complete"))
                self.assertEqual((ts["via"], ts["phase"]), ("index", "clone_complete"))
                self.assertEqual(n, ts["requests"])
                self.assertIn(n, (2, 3))

    def test_the_warm_path_resumes_in_at_most_two_requests_whatever_the_age(self) -> None:
        s = self.big_session(True)
        c = Client.from_env({**s["env"], "CHECKPOST_CACHE_DIR": tempfile.mkdtemp(dir=self.forge.cache)})
        c.self_login()
        c.resume(W, "s1")  # a first, cold resume remembers where the index comment is
        for agent, session, phase in ((W, "s1", "commit_complete"), ("worker-00", "s0", "clone_complete")):
            before = c.api.request_count
            r = c.resume(agent, session)
            self.assertEqual(r["phase"], phase)
            self.assertLessEqual(c.api.request_count - before, 2)

    def test_an_index_comment_by_a_person_is_not_believed(self) -> None:
        s = self.big_session(False)
        issue = s["issue"]
        # mallory, a repo writer, copies the bot's index into her own comment pointing the worker back at
        # its older checkpoint, and moves the body's pointer there
        self.forge.api("PUT", "/repos/agent/work/collaborators/mallory", {"permission": "write"})
        held = self.forge.api("GET", "/repos/agent/work/issues/comments/%d" % s["index"]["comment"])["body"]  # type: ignore[index]
        forged = point_back(held, W, "s1", s["old"])
        hers = self.forge.api("POST", "/repos/agent/work/issues/%d/comments" % issue, {"body": forged}, user="mallory")
        body = self.forge.api("GET", "/repos/agent/work/issues/%d" % issue)["body"]  # type: ignore[index]
        moved = body.replace('{"comment":%d,' % s["index"]["comment"], '{"comment":%d,' % hers["id"])  # type: ignore[index]
        self.assertNotEqual(moved, body)
        self.forge.api("PATCH", "/repos/agent/work/issues/%d" % issue, {"body": moved}, user="mallory")
        r, n = self.python_resume(s["env"], W, "s1")
        self.assertEqual((r["via"], r["phase"], r["checkpoint"]["commentId"]), ("full", "commit_complete", s["new"]["comment_id"]))
        # the bot's own comment, pointed to again, is believed
        self.forge.api("PATCH", "/repos/agent/work/issues/%d" % issue, {"body": body})
        r, n = self.python_resume(s["env"], W, "s1")
        self.assertEqual((r["via"], n), ("index", 2))

    def test_save_answers_its_directive_from_the_index_comment_and_the_tail(self) -> None:
        s = self.big_session(False)
        issue = s["issue"]
        # a person pauses the worker after the bot last wrote the index: the tail holds the control
        self.forge.api("POST", "/repos/agent/work/issues/%d/comments" % issue, {"body": P.format_control(W, "s1", "pause", P.python_utc_isoformat(), by="alice")})
        c = Client.from_env(s["env"])
        c.self_login()
        before = c.api.request_count
        saved = c.save(W, "s1", "subtask_1_complete", {}, check_directive=True)
        self.assertEqual((saved["directive"]["kind"], saved["directive"]["by"], saved["issue"]), ("pause", "alice", issue))
        self.assertEqual(c.api.request_count - before, 3)  # POST, the issue beside it, the index comment with the tail

    def test_a_signed_index_comment_edited_by_hand_is_not_believed(self) -> None:
        s = self.big_session(True)
        held = self.forge.api("GET", "/repos/agent/work/issues/comments/%d" % s["index"]["comment"])["body"]  # type: ignore[index]
        # flip `complete` (false here: the "chatter" agent has health but no checkpoint, so no entry carries its liveness)
        flipped = held.replace('"complete":false', '"complete":true') if '"complete":false' in held else held.replace('"complete":true', '"complete":false')
        self.assertNotEqual(flipped, held)
        self.forge.api("PATCH", "/repos/agent/work/issues/comments/%d" % s["index"]["comment"], {"body": flipped}, user="checkpost-bot")
        r, _ = self.python_resume(s["env"], W, "s1")
        self.assertEqual((r["via"], r["phase"]), ("full", "commit_complete"))


class Directives(ForgeCase):
    def test_pause_and_rewind_from_control_comments(self) -> None:
        issue = self.new_issue()
        c = self.client(issue)
        first = c.save(W, "s1", "clone_complete", {"i": 1})["comment_id"]
        c.save(W, "s1", "commit_complete", {"i": 2})
        t = P.python_utc_isoformat()
        self.forge.api("POST", "/repos/agent/work/issues/%d/comments" % issue, {"body": P.format_control(W, "s1", "rewind", t, target=first, epoch=3, by="alice")})
        r = self.client(issue).resume(W, "s1")
        self.assertEqual((r["phase"], r["directive"]["kind"], r["epoch"]), ("clone_complete", "rewind", 4))
        self.forge.api("POST", "/repos/agent/work/issues/%d/comments" % issue, {"body": P.format_control(W, "s1", "pause", t, by="alice")})
        r2 = self.client(issue).resume(W, "s1")
        self.assertEqual(r2["directive"]["kind"], "pause")
        self.assertEqual(r2["directive"]["by"], "alice")
        # a control from someone untrusted changes nothing
        self.forge.api("POST", "/repos/agent/work/issues/%d/comments" % issue, {"body": P.format_control(W, "s1", "unpause", t)}, user="mallory")
        self.assertEqual(self.client(issue).resume(W, "s1")["directive"]["kind"], "pause")

    def test_save_reports_a_directive_the_index_names(self) -> None:
        issue = self.new_issue()
        env = self.env(issue)
        c = Client.from_env(env)
        c.save(W, "s1", "clone_complete", {})
        self.forge.api("POST", "/repos/agent/work/issues/%d/comments" % issue, {"body": P.format_control(W, "s1", "release", P.python_utc_isoformat(), epoch=2, by="alice")})
        self.forge.node(WRITE_INDEX, env, str(issue))
        saved = c.save(W, "s1", "subtask_1_complete", {}, check_directive=True)
        self.assertEqual(saved["directive"]["kind"], "release")
        self.assertTrue(saved["fenced"])

    def test_a_zombies_save_on_a_just_opened_issue_is_fenced(self) -> None:
        # Issue 28.5: no resume index yet (no bot has written one): the small issue is read whole.
        issue = self.new_issue()
        zombie = self.client(issue)
        zombie.save(W, "s1", "clone_complete", {}, seq=1, epoch=1)
        self.forge.api("POST", "/repos/agent/work/issues/%d/comments" % issue, {"body": P.format_checkpoint(W, "s1", "clone_complete", P.python_utc_isoformat(), {}, "cp-took-over-0001", 2, 3)})
        saved = zombie.save(W, "s1", "commit_complete", {}, check_directive=True)
        self.assertEqual(saved["checkpoint"]["epoch"], 1)
        self.assertIs(saved["fenced"], True)


class Chain(ForgeCase):
    def test_a_closed_issue_is_followed_to_the_open_head(self) -> None:
        old = self.new_issue()
        c_old = self.client(old)
        c_old.save(W, "s1", "clone_complete", {"where": "old"})
        # a rollover, as the bot does it: successor with the back link, forward link, close
        new = self.forge.api(
            "POST",
            "/repos/agent/work/issues",
            {"title": "[Automated] CleverAgents Build Session", "body": "<!-- checkpost:continues #%d -->\ncontinues #%d" % (old, old)},
        )["number"]  # type: ignore[index]
        self.forge.api("POST", "/repos/agent/work/issues/%d/comments" % old, {"body": "<!-- checkpost:continued-in #%d -->\ncontinues in #%d" % (new, new)})
        self.forge.api("PATCH", "/repos/agent/work/issues/%d" % old, {"state": "closed"})
        self.client(new).save(W, "s1", "commit_complete", {"where": "new"})
        # an agent configured with the old number resumes from the head
        r = self.client(old).resume(W, "s1")
        self.assertEqual((r["issue"], r["state"]), (new, {"where": "new"}))
        # a save to the closed issue (a remembered number) is posted again on the open head, same Id
        stale = self.client(old)
        late = stale.save(W, "s1", "commit_complete", {"where": "late"}, check_directive=True)
        self.assertEqual(late["issue"], new)
        on_head = [c for c in self.forge.api("GET", "/repos/agent/work/issues/%d/comments" % new) if "Id: %s\n" % late["checkpoint"]["id"] in c["body"]]  # type: ignore[union-attr]
        on_old = [c for c in self.forge.api("GET", "/repos/agent/work/issues/%d/comments" % old) if "Id: %s\n" % late["checkpoint"]["id"] in c["body"]]  # type: ignore[union-attr]
        self.assertEqual((len(on_head), len(on_old)), (1, 1))
        self.assertEqual(stale.save(W, "s1", "pr_created", {"where": "head"})["issue"], new)
        self.assertEqual(self.client(old).resume(W, "s1")["state"], {"where": "head"})
        # latest across the chain, and a forward link forged by someone untrusted is not followed: a
        # closed issue is never read as the session
        self.assertEqual(self.client(new).latest(W, "s1", all_issues=True)["issue"], new)  # type: ignore[index]
        lone = self.new_issue()
        self.forge.api("POST", "/repos/agent/work/issues/%d/comments" % lone, {"body": "<!-- checkpost:continued-in #%d -->" % new}, user="mallory")
        self.forge.api("PATCH", "/repos/agent/work/issues/%d" % lone, {"state": "closed"})
        with self.assertRaises(SessionChainError) as cm:
            self.client(lone).resume(W, "s1")
        self.assertIn("closed", str(cm.exception))

    def test_a_successor_someone_else_opened_is_not_followed(self) -> None:
        old = self.new_issue()
        self.client(old).save(W, "s1", "clone_complete", {"where": "old"})
        title = "[Automated] CleverAgents Build Session"
        # mallory opens an issue that links back, and a trusted-looking link names it: her issue was not
        # opened by the link's author
        fake = self.forge.api("POST", "/repos/agent/work/issues", {"title": title, "body": "<!-- checkpost:continues #%d -->" % old}, user="mallory")["number"]  # type: ignore[index]
        self.forge.api("POST", "/repos/agent/work/issues/%d/comments" % old, {"body": "<!-- checkpost:continued-in #%d -->" % fake})
        self.forge.api("PATCH", "/repos/agent/work/issues/%d" % old, {"state": "closed"})
        with self.assertRaises(SessionChainError) as cm:
            self.client(old).resume(W, "s1")
        self.assertIn("not opened by", str(cm.exception))
        # a remembered (not configured) number that leads nowhere is forgotten and the open issue located
        c = Client.from_env(self.forge.env("agent", CHECKPOST_SESSION_TITLE="Only-%d" % old))
        c._set_issue(old)
        with self.assertRaises(SessionIssueNotFoundError):
            c.resume(W, "s1")  # no open issue of that title either: located again, then not found
        self.assertIsNone(c._issue)

if __name__ == "__main__":
    unittest.main()
