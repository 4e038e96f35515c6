"""Unit tests of the Python client's parts that need no forge: writing rules, configuration, the chain
rules, the retry policy and the exactly-once save against a scripted API."""

from __future__ import annotations

import unittest
from datetime import datetime, timezone
from typing import Any, Dict, List

from checkpost import Client, ProtocolInputError
from checkpost import chain as C
from checkpost import protocol as P
from checkpost.config import config_from_env
from checkpost.errors import ConfigError, ForgejoApiError, SessionChainError
from checkpost.forgejo import Forgejo


class Writing(unittest.TestCase):
    def test_header_values_must_be_single_trimmed_lines(self) -> None:
        for bad in ("", "two\nlines", " padded", "x" * 257):
            with self.subTest(bad=bad[:10]), self.assertRaises(ProtocolInputError):
                P.format_checkpoint("a", bad, "p", "2026-11-29T10:00:00Z", {})

    def test_state_must_be_a_json_object(self) -> None:
        for bad in ([1], {"x": float("nan")}, {"x": object()}, {"s": {1, 2}}):
            with self.subTest(bad=repr(bad)[:20]), self.assertRaises(ProtocolInputError):
                P.format_checkpoint("a", "s", "p", "2026-11-29T10:00:00Z", bad)  # type: ignore[arg-type]

    def test_a_control_never_carries_the_checkpoint_marker(self) -> None:
        with self.assertRaises(ProtocolInputError):
            P.format_control("a", "s", "pause", "2026-11-29T10:00:00Z", reason="see [CHECKPOINT]")

    def test_time_is_the_seeds_isoformat(self) -> None:
        self.assertEqual(P.python_utc_isoformat(datetime(2026, 11, 29, 10, 0, 0, tzinfo=timezone.utc)), "2026-11-29T10:00:00Z")
        self.assertEqual(P.python_utc_isoformat(datetime(2026, 11, 29, 10, 0, 0, 500000, tzinfo=timezone.utc)), "2026-11-29T10:00:00.500000Z")

    def test_a_python_float_signs_as_the_typescript_reader_reads_it_back(self) -> None:
        cp = {"agent": "a", "session": "s", "phase": "p", "timestamp": "t", "data": {"n": 1.0, "m": [2.0, 0.5], "b": True}}
        body = P.format_checkpoint("a", "s", "p", "t", cp["data"])
        self.assertIn('"n": 1.0', body)  # written as Python writes it (the seed's bytes)...
        self.assertIn('"m": [2, 0.5], "n": 1}', P.canonical_checkpoint(cp))  # ...signed as JSON's one number type reads
        self.assertIn('"b": true', P.canonical_checkpoint(cp))

    def test_signature_round_trip_and_tamper(self) -> None:
        key = "k" * 16
        cp = {"agent": "a", "session": "s", "phase": "p", "timestamp": "t", "data": {"x": 1}, "id": "cp-" + "0" * 24, "seq": 1, "epoch": 0}
        cp["signature"] = P.sign_checkpoint(cp, key)
        body = P.format_checkpoint("a", "s", "p", "t", {"x": 1}, cp["id"], 1, 0, cp["signature"])
        self.assertTrue(P.verify_checkpoint_signature(P.parse_comment(body), key))
        self.assertFalse(P.verify_checkpoint_signature(P.parse_comment(body.replace('"x": 1', '"x": 2')), key))
        self.assertFalse(P.verify_checkpoint_signature(P.parse_comment(body), "other-key-0123456"))


class Packaging(unittest.TestCase):
    def test_typed_and_standard_library_only(self) -> None:
        import os
        import sys

        import checkpost

        here = os.path.dirname(checkpost.__file__)
        self.assertTrue(os.path.exists(os.path.join(here, "py.typed")), "py.typed ships with the package")
        for name in ("client", "seed", "protocol", "projection", "resume_index", "chain", "forgejo", "config", "errors"):
            getattr(checkpost, name)
        ours = [m for m in sys.modules if m == "checkpost" or m.startswith("checkpost.")]
        stdlib = set(sys.stdlib_module_names) | {"checkpost", "tests"}
        foreign = sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0] not in stdlib and not m.startswith("_")} - {"sitecustomize", "usercustomize", "_distutils_hack", "apport_python_hook", "certifi", "distutils", "setuptools", "pkg_resources"})
        self.assertTrue(ours)
        self.assertEqual(foreign, [], "only the standard library is imported")


class Configuration(unittest.TestCase):
    def test_repo_from_any_of_the_clis_forms(self) -> None:
        base = {"FORGEJO_URL": "http://h:3001"}
        self.assertEqual(config_from_env({**base, "FORGEJO_REPOSITORY": "o/r"}).repo, "r")
        self.assertEqual(config_from_env({**base, "FORGEJO_REPO": "o/r"}).owner, "o")
        c = config_from_env({**base, "FORGEJO_OWNER": "o", "FORGEJO_REPO": "r", "CHECKPOST_TRUSTED_AUTHORS": " bot , ci ", "CHECKPOST_ISSUE": "7", "CHECKPOST_REQUEST_TIMEOUT_MS": "1500"})
        self.assertEqual((c.owner, c.repo, c.trusted_authors, c.issue, c.timeout), ("o", "r", ["bot", "ci"], 7, 1.5))

    def test_empty_means_unset_and_errors_name_the_variable(self) -> None:
        self.assertIsNone(config_from_env({"FORGEJO_URL": "", "FORGEJO_REPO": "o/r"}).url)
        for env, name in (
            ({"FORGEJO_URL": "ftp://x", "FORGEJO_REPO": "o/r"}, "FORGEJO_URL"),
            ({"FORGEJO_REPO": "o/r", "CHECKPOST_LEGACY_WRITERS": "maybe"}, "CHECKPOST_LEGACY_WRITERS"),
            ({"FORGEJO_REPO": "o/r", "CHECKPOST_ISSUE": "x"}, "CHECKPOST_ISSUE"),
            ({"FORGEJO_REPO": "o/r", "FORGEJO_OWNER": "p"}, "FORGEJO_OWNER"),
            ({}, "FORGEJO_REPO"),
        ):
            with self.subTest(name), self.assertRaises(ConfigError) as cm:
                config_from_env(env)
            self.assertIn(name, str(cm.exception))


class ChainRules(unittest.TestCase):
    def test_markers(self) -> None:
        self.assertEqual(C.continued_from("<!-- checkpost:continues #12 -->\ntext"), 12)
        self.assertEqual(C.continued_in("<!-- checkpost:continued-in #13 -->"), 13)
        self.assertIsNone(C.continued_from("continues #12"))

    def test_forward_needs_a_trusted_link_a_trusted_opener_a_back_link_and_the_title(self) -> None:
        bot = {"login": "bot"}
        issues = {
            1: {"number": 1, "state": "closed", "title": "S", "body": "", "user": bot},
            2: {"number": 2, "state": "closed", "title": "S", "body": "<!-- checkpost:continues #1 -->", "user": bot},
            3: {"number": 3, "state": "open", "title": "S", "body": "<!-- checkpost:continues #2 -->", "user": bot},
            4: {"number": 4, "state": "open", "title": "Other", "body": "<!-- checkpost:continues #1 -->", "user": bot},
            5: {"number": 5, "state": "open", "title": "S", "body": "<!-- checkpost:continues #1 -->", "user": {"login": "mallory"}},
        }
        links: Dict[int, List[Dict[str, Any]]] = {
            1: [{"id": 10, "user": bot, "body": "<!-- checkpost:continued-in #2 -->"}],
            2: [{"id": 20, "user": bot, "body": "<!-- checkpost:continued-in #3 -->"}],
        }
        lists = lambda n, since=None: links.get(n, [])  # noqa: E731
        head = C.follow_forward(issues.__getitem__, lists, issues[1], {"bot"})
        self.assertEqual(head["number"], 3)
        self.assertEqual([i["number"] for i in C.chain_back(issues.__getitem__, 3, {"bot"})], [1, 2, 3])
        # a closed issue is never the session: each broken link is an error, not the closed issue
        for why, link in (
            ("another title", {"id": 11, "user": bot, "body": "<!-- checkpost:continued-in #4 -->"}),
            ("opened by someone else than the link's author", {"id": 11, "user": bot, "body": "<!-- checkpost:continued-in #5 -->"}),
            ("a link by an untrusted author", {"id": 11, "user": {"login": "mallory"}, "body": "<!-- checkpost:continued-in #2 -->"}),
        ):
            links[1] = [link]
            with self.subTest(why), self.assertRaises(SessionChainError):
                C.follow_forward(issues.__getitem__, lists, issues[1], {"bot"})
        # the newest trusted link wins over an older one and over an untrusted newer one
        links[1] = [
            {"id": 11, "user": bot, "body": "<!-- checkpost:continued-in #4 -->"},
            {"id": 12, "user": bot, "body": "<!-- checkpost:continued-in #2 -->"},
            {"id": 13, "user": {"login": "mallory"}, "body": "<!-- checkpost:continued-in #5 -->"},
        ]
        self.assertEqual(C.follow_forward(issues.__getitem__, lists, issues[1], {"bot"})["number"], 3)
        # backwards, a `continues` marker is followed only in an issue a trusted login opened
        self.assertEqual([i["number"] for i in C.chain_back(issues.__getitem__, 5, {"bot"})], [5])
        self.assertEqual([i["number"] for i in C.chain_back(issues.__getitem__, 5)], [1, 5])

    def test_forward_reads_the_comments_near_closed_at_first(self) -> None:
        bot = {"login": "bot"}
        closed = {"number": 1, "state": "closed", "title": "S", "body": "", "user": bot, "closed_at": "2026-12-01T10:20:00Z"}
        succ = {"number": 2, "state": "open", "title": "S", "body": "<!-- checkpost:continues #1 -->", "user": bot}
        calls: List[Any] = []

        def lists(n: int, since: Any = None) -> List[Dict[str, Any]]:
            calls.append(since)
            return [{"id": 9, "user": bot, "body": "<!-- checkpost:continued-in #2 -->"}]

        self.assertEqual(C.follow_forward({2: succ}.__getitem__, lists, closed, {"bot"})["number"], 2)
        self.assertEqual(calls, ["2026-12-01T10:10:00Z"])  # one `since` read, 10 minutes before closed_at


class ScriptedApi(Forgejo):
    """A Forgejo whose answers are scripted: each call pops the next outcome for its route."""

    def __init__(self, script: Dict[str, List[Any]]) -> None:
        self.waits: List[float] = []
        super().__init__("http://scripted.invalid", "t", retries=4, sleep=self.waits.append)
        self.script = script
        self.calls: List[str] = []
        self.posted: List[str] = []

    def _once(self, method: str, path: str, params: Any, body: Any, what: str) -> Any:
        self.calls.append(method + " " + path.split("/")[-1])
        self.request_count += 1
        key = method + " " + path.split("/")[-1]
        outcome = self.script[key].pop(0)
        if method == "POST":
            self.posted.append(body["body"])
        if isinstance(outcome, ForgejoApiError):
            raise outcome
        if outcome == "echo":
            return 201, {"id": 500 + len(self.posted), "body": body["body"], "html_url": "u", "user": {"login": "agent"}}
        if outcome == "listed":
            return 200, [{"id": 501, "body": self.posted[0], "user": {"login": "agent"}}]
        return 200, outcome


class ExactlyOnceAndRetries(unittest.TestCase):
    def client(self, api: Forgejo) -> Client:
        return Client("http://scripted.invalid", "t", "o", "r", issue=1, api=api, use_cache=False, self_login="agent")

    def test_a_lost_answer_is_found_by_id_not_posted_again(self) -> None:
        api = ScriptedApi({"POST comments": [ForgejoApiError("reset", 0, "POST", "x")], "GET comments": ["listed"]})
        saved = self.client(api).save("a", "s", "p", {"k": 1})
        self.assertEqual(saved["comment_id"], 501)
        self.assertEqual(api.calls, ["POST comments", "GET comments"])
        self.assertEqual(len(api.posted), 1)

    def test_a_refused_save_is_not_retried_and_transient_ones_back_off(self) -> None:
        api = ScriptedApi({"POST comments": [ForgejoApiError("forbidden", 403, "POST", "x")]})
        with self.assertRaises(ForgejoApiError):
            self.client(api).save("a", "s", "p", {})
        self.assertEqual(api.calls, ["POST comments"])
        api2 = ScriptedApi({"POST comments": [ForgejoApiError("busy", 429, "POST", "x", retry_after="0.5"), ForgejoApiError("x", 400, "POST", "x")], "GET comments": ["listed"]})
        with self.assertRaises(ForgejoApiError):
            self.client(api2).save("a", "s", "p", {})
        self.assertEqual(api2.waits, [0.5])  # Retry-After honoured; a 429 never posted, so no lookup

    def test_seq_and_epoch_continue_after_a_resume(self) -> None:
        api = ScriptedApi({"POST comments": ["echo", "echo"]})
        c = self.client(api)
        c._writers[("a", "s")] = {"epoch": 2, "next_seq": 5}
        c.save("a", "s", "p", {})
        c.save("a", "s", "p", {})
        self.assertIn("Seq: 5\nEpoch: 2\n", api.posted[0])
        self.assertIn("Seq: 6\nEpoch: 2\n", api.posted[1])
        with self.assertRaises(ProtocolInputError) as cm:  # below the fence this handle took over with
            c.save("a", "s", "p", {}, epoch=1)
        self.assertIn("epoch=2, seq=7", str(cm.exception))

    def test_too_large_names_the_largest_keys(self) -> None:
        c = Client("http://x.invalid", "t", "o", "r", issue=1, use_cache=False, max_checkpoint_bytes=1000)
        with self.assertRaises(Exception) as cm:
            c.save("a", "s", "p", {"big": "x" * 2000, "small": 1})
        self.assertIn('"big"', str(cm.exception))
        self.assertIn("CHECKPOST_MAX_CHECKPOINT_BYTES", str(cm.exception))


if __name__ == "__main__":
    unittest.main()

