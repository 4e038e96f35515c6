"""The resume index in the bot's index comment (the body holds `<!-- checkpost:resume-index-ref … -->`):
the Python cold reader against an in-memory issue, request by request (src/session-client/cold-resume.ts's rules;
docs/dashboard.md, docs/security.md). The parsing itself is in the conformance corpus (index-ref.json)."""

from __future__ import annotations

import json
import unittest
from typing import Any, Dict, List, Optional

from checkpost import Client
from checkpost import protocol as P
from checkpost import resume_index as RI
from checkpost.errors import ForgejoApiError
from checkpost.projection import iso_ms, parse_time_ms

W = "implementation-worker"
KEY = "unit-signing-key-0123456789"
T0 = parse_time_ms("2026-12-01T10:00:00Z")


class FakeForge:
    """One repository o/r in memory, answering the calls the Client makes, counting them."""

    server_clock_offset_ms = 0.0

    def __init__(self) -> None:
        self.request_count = 0
        self.calls: List[str] = []
        self.issues: Dict[int, Dict[str, Any]] = {}
        self.comments: List[Dict[str, Any]] = []
        self.next_id = 100
        self.clock = T0

    def tick(self, s: int = 1) -> str:
        self.clock += s * 1000
        return iso_ms(self.clock).replace(".000Z", "Z")

    def issue(self, n: int, body: str = "session", state: str = "open", login: str = "bot") -> Dict[str, Any]:
        self.issues[n] = {"number": n, "title": "S", "body": body, "state": state, "user": {"login": login}, "updated_at": self.tick()}
        return self.issues[n]

    def edit_body(self, n: int, body: str) -> None:
        self.issues[n]["body"] = body
        self.issues[n]["updated_at"] = self.tick()

    def comment(self, n: int, body: str, login: str = "agent") -> Dict[str, Any]:
        self.next_id += 1
        t = self.tick()
        c = {"id": self.next_id, "body": body, "user": {"login": login}, "created_at": t, "updated_at": t, "issue_url": "http://f/o/r/issues/%d" % n, "html_url": "http://f/o/r/issues/%d#issuecomment-%d" % (n, self.next_id), "_issue": n}
        self.comments.append(c)
        return c

    def edit_comment(self, cid: int, body: str) -> None:
        c = next(c for c in self.comments if c["id"] == cid)
        c["body"] = body
        c["updated_at"] = self.tick()

    # ---- the Forgejo calls ----
    def _count(self, what: str) -> None:
        self.request_count += 1
        self.calls.append(what)

    def get_issue(self, owner: str, repo: str, n: int) -> Dict[str, Any]:
        self._count("GET issue")
        return dict(self.issues[n])

    def list_comments(self, owner: str, repo: str, n: int, since: Optional[str] = None, before: Optional[str] = None) -> List[Dict[str, Any]]:
        self._count("GET comments" + (" since" if since else ""))
        ms = parse_time_ms(since) if since else None
        return [dict(c) for c in self.comments if c["_issue"] == n and (ms is None or parse_time_ms(c["updated_at"]) >= ms)]

    def get_comment(self, owner: str, repo: str, cid: int) -> Dict[str, Any]:
        self._count("GET comment")
        for c in self.comments:
            if c["id"] == cid:
                return dict(c)
        raise ForgejoApiError("not found", 404, "GET", "comment")

    def create_comment(self, owner: str, repo: str, n: int, body: str, retry: bool = True) -> Dict[str, Any]:
        self._count("POST comment")
        return self.comment(n, body)

    def with_retry(self, fn: Any, label: str = "request") -> Any:
        return fn(1)

    def current_user(self) -> Dict[str, Any]:
        self._count("GET user")
        return {"login": "agent"}

    def close(self) -> None:
        pass


def cp(phase: str, seq: int, epoch: int = 1, session: str = "s1", key: Optional[str] = None) -> str:
    c = {"version": P.PROTOCOL_VERSION, "agent": W, "session": session, "phase": phase, "timestamp": "2026-12-01T10:00:00Z", "data": {"seq": seq}, "id": "cp-%024x" % seq, "seq": seq, "epoch": epoch}
    sig = P.sign_checkpoint(c, key) if key else None
    return P.format_checkpoint(W, session, phase, c["timestamp"], c["data"], c["id"], seq, epoch, sig)


def index_of(f: FakeForge, issue: int, entries: List[Dict[str, Any]], key: Optional[str], complete_before: Optional[str] = None) -> str:
    """The index the bot writes (watermark: the newest comment, at its update time; `complete_before`: its "complete up to" time)."""
    newest = max(f.comments, key=lambda c: c["id"])
    ix: Dict[str, Any] = {"v": 1, "watermark": newest["id"], "watermarkUpdatedAt": iso_ms(parse_time_ms(newest["updated_at"]))}
    if complete_before is not None:
        ix["completeBefore"] = complete_before
    ix.update({"entries": entries, "complete": True})
    if key:
        ix["sig"] = RI.sign_resume_index(ix, key, RI.resume_index_scope("o", "r", issue))
    return RI.RESUME_INDEX_OPEN + json.dumps(ix, separators=(",", ":")) + RI.RESUME_INDEX_CLOSE


def entry(c: Dict[str, Any], seq: int, epoch: int = 1) -> Dict[str, Any]:
    return {"agent": W, "session": "s1", "commentId": c["id"], "id": "cp-%024x" % seq, "seq": seq, "epoch": epoch, "at": iso_ms(parse_time_ms(c["created_at"])), "maxEpoch": epoch}


def with_ref(f: FakeForge, issue: int, holder: Dict[str, Any], since: str) -> None:
    ref = RI.RESUME_INDEX_REF_OPEN + json.dumps({"comment": holder["id"], "since": since}, separators=(",", ":")) + RI.RESUME_INDEX_CLOSE
    f.edit_body(issue, "People's text.\n\n%s\n%s\n%s\n" % (RI.DASHBOARD_START, ref, RI.DASHBOARD_END))


def backdate(f: FakeForge, cid: int) -> None:
    next(c for c in f.comments if c["id"] == cid)["updated_at"] = "2026-12-01T09:00:00Z"


class IndexComment(unittest.TestCase):
    def world(self, key: Optional[str] = KEY, gap: int = 3) -> Dict[str, Any]:
        """Issue 7: an old checkpoint (seq 1), `gap` chatter comments, a newest one (seq 2), then the bot's
        index comment and the pointer to it."""
        f = FakeForge()
        f.issue(7)
        old = f.comment(7, cp("clone_complete", 1, key=key))
        for i in range(gap):
            f.comment(7, "chatter %d" % i)
        new = f.comment(7, cp("commit_complete", 2, key=key))
        body = index_of(f, 7, [entry(new, 2)], key)
        wm = json.loads(body[len(RI.RESUME_INDEX_OPEN) : -len(RI.RESUME_INDEX_CLOSE)])["watermarkUpdatedAt"]
        holder = f.comment(7, "_checkpost resume index_\n\n" + body, login="bot")
        with_ref(f, 7, holder, wm)
        return {"f": f, "old": old, "new": new, "holder": holder, "since": wm}

    def client(self, f: FakeForge, key: Optional[str] = KEY, trusted: Optional[List[str]] = None) -> Client:
        return Client("http://fake.invalid", "t", "o", "r", issue=7, api=f, use_cache=False, self_login="agent", trusted_authors=["bot"] if trusted is None else trusted, signing_key=key)  # type: ignore[arg-type]

    def resume(self, f: FakeForge, **kw: Any) -> Dict[str, Any]:
        f.request_count, f.calls = 0, []
        return self.client(f, **kw).resume(W, "s1")

    def test_the_index_and_the_tail_come_in_one_since_read(self) -> None:
        w = self.world()
        r = self.resume(w["f"])
        self.assertEqual((r["via"], r["phase"], r["checkpoint"]["commentId"]), ("index", "commit_complete", w["new"]["id"]))
        self.assertEqual(w["f"].calls, ["GET issue", "GET comments since"])

    def test_forty_commenter_controls_and_a_bad_target_cost_no_request(self) -> None:
        # Issue 28.2: a commenter's [CONTROL] rewinds (one naming no comment at all) are never fetched for.
        w = self.world(key=None)
        f = w["f"]
        for i in range(40):
            f.comment(7, P.format_control(W, "s1", "rewind", "2026-12-01T10:00:00Z", target=w["old"]["id"] + 1000 + i, epoch=9, by="mallory"), login="mallory")
        f.comment(7, P.format_control(W, "s1", "rewind", "2026-12-01T10:00:00Z", target=999_999, epoch=9, by="mallory"), login="mallory")
        r = self.resume(f, key=None)
        self.assertEqual((r["via"], r["phase"], r["directive"]), ("index", "commit_complete", None))
        self.assertEqual(f.calls, ["GET issue", "GET comments since"])

    def test_a_zombie_below_the_indexs_fence_is_never_the_answer(self) -> None:
        # Issue 28 (found by the fleet): the release that fenced the zombie is older than the tail, and a newer
        # release is the control in effect; the short read must give way to the full read.
        f = FakeForge()
        f.issue(7)
        first = f.comment(7, cp("clone_complete", 1))
        rel1 = f.comment(7, P.format_control(W, "s1", "release", "2026-12-01T10:00:00Z", epoch=3, by="alice"), login="bot")
        zombie = f.comment(7, cp("pr_created", 5))  # the released worker keeps going at epoch 1: a zombie
        f.tick(5)
        rel2 = f.comment(7, P.format_control(W, "s1", "release", "2026-12-01T10:00:00Z", epoch=5, by="alice"), login="bot")
        e = {**entry(first, 1), "maxEpoch": 5, "controls": [rel2["id"]]}
        body = index_of(f, 7, [e], None)
        wm = json.loads(body[len(RI.RESUME_INDEX_OPEN) : -len(RI.RESUME_INDEX_CLOSE)])["watermarkUpdatedAt"]
        self.assertLess(parse_time_ms(rel1["updated_at"]), parse_time_ms(zombie["updated_at"]))
        self.assertLessEqual(parse_time_ms(zombie["updated_at"]), parse_time_ms(wm))
        holder = f.comment(7, "_checkpost resume index_\n\n" + body, login="bot")
        # A tail that starts after the first release: the zombie is in it, the release that fenced it is not.
        with_ref(f, 7, holder, zombie["updated_at"])
        r = self.resume(f, key=None)
        self.assertEqual((r["checkpoint"]["commentId"], r["directive"]["kind"]), (first["id"], "release"))

    def test_without_a_key_an_unsigned_index_comment_is_read_the_same(self) -> None:
        w = self.world(key=None)
        r = self.resume(w["f"], key=None)
        self.assertEqual((r["via"], r["phase"]), ("index", "commit_complete"))
        self.assertEqual(w["f"].request_count, 2)

    def test_a_checkpoint_older_than_the_tail_is_fetched_by_id(self) -> None:
        w = self.world(gap=40)
        f = w["f"]
        body = index_of(f, 7, [entry(w["old"], 1)], KEY)  # a world where the old one is this agent's newest
        wm = json.loads(body[len(RI.RESUME_INDEX_OPEN) : -len(RI.RESUME_INDEX_CLOSE)])["watermarkUpdatedAt"]
        f.comments = [c for c in f.comments if c["id"] != w["new"]["id"]]
        f.edit_comment(w["holder"]["id"], "_checkpost resume index_\n\n" + body)
        with_ref(f, 7, w["holder"], wm)
        r = self.resume(f)
        self.assertEqual((r["via"], r["checkpoint"]["commentId"]), ("index", w["old"]["id"]))
        self.assertEqual(f.calls, ["GET issue", "GET comments since", "GET comment"])

    def test_an_index_comment_a_person_wrote_is_not_believed(self) -> None:
        # Without a key: mallory (a repo writer) points the body at her own comment holding an index that
        # sends readers back to the older trusted checkpoint. Refused by author: a full read.
        w = self.world(key=None)
        f = w["f"]
        forged = index_of(f, 7, [entry(w["old"], 1)], None)
        hers = f.comment(7, forged, login="mallory")
        with_ref(f, 7, hers, iso_ms(parse_time_ms(hers["created_at"]) - 60_000))
        r = self.resume(f, key=None)
        self.assertEqual((r["via"], r["phase"]), ("full", "commit_complete"))
        self.assertEqual(f.calls, ["GET issue", "GET comments since", "GET comments"])
        # the same comment by a trusted login is checked as the bot's would be (and points at a real,
        # older, trusted checkpoint: believed, the tail brings the newer one)
        r2 = self.resume(f, key=None, trusted=["bot", "mallory"])
        self.assertEqual((r2["via"], r2["phase"]), ("index", "commit_complete"))

    def test_every_doubt_means_a_full_read(self) -> None:
        cases = {
            "unsigned with a key": lambda w: w["f"].edit_comment(w["holder"]["id"], index_of(w["f"], 7, [entry(w["new"], 2)], None)),
            "signed for another issue": lambda w: w["f"].edit_comment(w["holder"]["id"], index_of(w["f"], 7, [entry(w["new"], 2)], None).replace('"complete":true', '"complete":true,"sig":"%s"' % ("hmac-sha256=" + "0" * 64))),
            "the pointed comment is not in the list since `since`": lambda w: with_ref(w["f"], 7, {"id": 99999}, w["since"]),
            "`since` later than the watermark (a hole in the tail)": lambda w: with_ref(w["f"], 7, w["holder"], iso_ms(parse_time_ms(w["since"]) + 1000)),
            "the index comment last updated before the watermark": lambda w: backdate(w["f"], w["holder"]["id"]),
            "two pointers": lambda w: w["f"].edit_body(7, w["f"].issues[7]["body"].replace(RI.DASHBOARD_END, RI.RESUME_INDEX_REF_OPEN + '{"comment":1,"since":"2026-12-01T10:00:00Z"} -->\n' + RI.DASHBOARD_END)),
        }
        for why, spoil in cases.items():
            with self.subTest(why):
                w = self.world()
                spoil(w)
                r = self.resume(w["f"])
                self.assertEqual((r["via"], r["phase"]), ("full", "commit_complete"))
                self.assertEqual(w["f"].calls[-1], "GET comments")  # every comment, no `since`

    def test_save_reads_a_directive_the_index_comment_names(self) -> None:
        w = self.world(key=None)
        f = w["f"]
        ctl = f.comment(7, P.format_control(W, "s1", "pause", "2026-12-01T10:05:00Z", by="alice"), login="bot")
        e = {**entry(w["new"], 2), "controls": [ctl["id"]], "directive": {"kind": "pause", "commentId": ctl["id"]}}
        body = index_of(f, 7, [e], None)
        f.edit_comment(w["holder"]["id"], body)
        f.request_count, f.calls = 0, []
        c = self.client(f, key=None)
        saved = c.save(W, "s1", "subtask_1_complete", {}, check_directive=True)
        self.assertEqual((saved["directive"]["kind"], saved["directive"]["by"]), ("pause", "alice"))
        # the issue beside the POST, then the index comment and the tail (the control among it) in one read
        self.assertEqual(sorted(f.calls), ["GET comments since", "GET issue", "POST comment"])
        self.assertTrue(saved["fenced"])  # no resume took over: this save has no Epoch, below the fence 1
        # the same index in a person's comment is not read: no directive (and never every comment)
        hers = f.comment(7, body, login="mallory")
        with_ref(f, 7, hers, w["since"])
        f.calls = []
        self.assertIsNone(c.save(W, "s1", "subtask_2_complete", {}, check_directive=True)["directive"])
        self.assertNotIn("GET comments", f.calls)



class SaveAfterRollover(unittest.TestCase):
    def test_a_plain_save_checks_the_head_once_a_minute_and_lands_there(self) -> None:
        f = FakeForge()
        old = f.issue(7)
        f.comment(7, "<!-- checkpost:continued-in #8 -->\ncontinues in #8", login="bot")
        old.update(state="closed", closed_at=f.tick())
        f.issue(8, body="<!-- checkpost:continues #7 -->\ncontinues #7")
        c = Client("http://fake.invalid", "t", "o", "r", issue=7, api=f, use_cache=False, self_login="agent", trusted_authors=["bot"])  # type: ignore[arg-type]
        first = c.save(W, "s1", "clone_complete", {})
        self.assertEqual((first["issue"], f.calls), (7, ["POST comment"]))  # one request: not due yet
        c._head_checked_at -= 61
        f.calls = []
        saved = c.save(W, "s1", "commit_complete", {})
        self.assertEqual(saved["issue"], 8)
        self.assertEqual(sorted(f.calls), ["GET comments since", "GET issue", "GET issue", "POST comment", "POST comment"])
        marker = "Id: %s\n" % saved["checkpoint"]["id"]
        self.assertEqual(sorted(c["_issue"] for c in f.comments if marker in c["body"]), [7, 8])
        f.calls = []
        self.assertEqual(c.save(W, "s1", "pr_created", {})["issue"], 8)
        self.assertEqual(f.calls, ["POST comment"])


if __name__ == "__main__":
    unittest.main()


class WarmIndexComment(IndexComment):
    """SessionStore's `indexRefs` (the CLI's index-refs.json): a remembered index comment skips the issue read."""

    def warm(self, f: FakeForge, cache: str, key: Optional[str] = KEY) -> Client:
        return Client("http://fake.invalid", "t", "o", "r", issue=7, api=f, cache_dir=cache, self_login="agent", trusted_authors=["bot"], signing_key=key)  # type: ignore[arg-type]

    def test_at_most_two_requests_whatever_the_age_signed_or_not(self) -> None:
        import tempfile

        for key in (KEY, None):
            with self.subTest(key=key), tempfile.TemporaryDirectory() as cache:
                w = self.world(key=key, gap=40)
                f = w["f"]
                self.warm(f, cache, key).resume(W, "s1")  # a first (cold) resume remembers the index comment
                f.request_count, f.calls = 0, []
                r = self.warm(f, cache, key).resume(W, "s1")
                self.assertEqual((r["via"], r["phase"]), ("index", "commit_complete"))
                self.assertEqual(f.calls, ["GET comments since"])
                # Older than the tail: this agent's newest is the old one, the index rewritten by the bot.
                body = index_of(f, 7, [entry(w["old"], 1)], key)
                f.comments = [c for c in f.comments if c["id"] != w["new"]["id"]]
                f.edit_comment(w["holder"]["id"], "_checkpost resume index_\n\n" + body)
                f.request_count, f.calls = 0, []
                r = self.warm(f, cache, key).resume(W, "s1")
                self.assertEqual((r["via"], r["checkpoint"]["commentId"]), ("index", w["old"]["id"]))
                self.assertEqual(f.calls, ["GET comments since", "GET comment"])

    def test_the_tail_starts_at_the_complete_up_to_time(self) -> None:
        # Issue 32: the bot had read every comment updated before `completeBefore`, so the remembered `since`
        # is that time, and the watermark's own second (comments the index covers) is not listed again.
        import tempfile

        for key in (KEY, None):
            with self.subTest(key=key), tempfile.TemporaryDirectory() as cache:
                f = FakeForge()
                f.issue(7)
                new = f.comment(7, cp("commit_complete", 2, key=key))
                for i in range(3):
                    f.comment(7, "chatter %d" % i)
                claim = f.tick(2)
                body = index_of(f, 7, [entry(new, 2)], key, complete_before=claim)
                wm = json.loads(body[len(RI.RESUME_INDEX_OPEN) : -len(RI.RESUME_INDEX_CLOSE)])["watermarkUpdatedAt"]
                holder = f.comment(7, "_checkpost resume index_\n\n" + body, login="bot")
                with_ref(f, 7, holder, wm)
                first = self.warm(f, cache, key)
                r = first.resume(W, "s1")
                self.assertEqual((r["via"], r["phase"]), ("index", "commit_complete"))
                self.assertEqual((first._index_ref(7) or {}).get("since"), claim)
                f.request_count, f.calls = 0, []
                r = self.warm(f, cache, key).resume(W, "s1")
                self.assertEqual((r["via"], r["phase"]), ("index", "commit_complete"))
                self.assertEqual(f.calls, ["GET comments since", "GET comment"])
                self.assertEqual([c["id"] for c in f.list_comments("o", "r", 7, since=claim)], [holder["id"]])
                # A checkpoint after the claim is in the tail.
                newer = f.comment(7, cp("pr_created", 3, key=key))
                r = self.warm(f, cache, key).resume(W, "s1")
                self.assertEqual((r["via"], r["checkpoint"]["commentId"]), ("index", newer["id"]))

    def test_a_complete_up_to_time_after_the_index_was_written_is_ignored(self) -> None:
        # The bot writes the index after the read it claims: a later claim is not the bot's (a writer's edit).
        f = FakeForge()
        f.issue(7)
        new = f.comment(7, cp("commit_complete", 2, key=None))
        later = iso_ms(f.clock + 3_600_000)
        body = index_of(f, 7, [entry(new, 2)], None, complete_before=later)
        wm = json.loads(body[len(RI.RESUME_INDEX_OPEN) : -len(RI.RESUME_INDEX_CLOSE)])["watermarkUpdatedAt"]
        holder = f.comment(7, "_checkpost resume index_\n\n" + body, login="bot")
        with_ref(f, 7, holder, wm)
        import tempfile

        with tempfile.TemporaryDirectory() as cache:
            c = self.warm(f, cache, None)
            self.assertEqual(c.resume(W, "s1")["via"], "index")
            self.assertEqual((c._index_ref(7) or {}).get("since"), wm)

    def test_a_stale_or_forged_remembered_comment_or_a_rollover_means_the_usual_read(self) -> None:
        import tempfile

        cases = {
            "the comment is gone": lambda w: setattr(w["f"], "comments", [c for c in w["f"].comments if c["id"] != w["holder"]["id"]]),
            "edited by a writer, unsigned with a key": lambda w: w["f"].edit_comment(w["holder"]["id"], index_of(w["f"], 7, [entry(w["old"], 1)], None)),
            "a trusted continued-in comment": lambda w: w["f"].comment(7, "<!-- checkpost:continued-in #8 -->", login="bot"),
        }
        for why, spoil in cases.items():
            with self.subTest(why), tempfile.TemporaryDirectory() as cache:
                w = self.world()
                f = w["f"]
                self.warm(f, cache).resume(W, "s1")
                spoil(w)
                f.request_count, f.calls = 0, []
                try:
                    r = self.warm(f, cache).resume(W, "s1")
                except Exception as e:  # the rollover case: issue 8 does not exist in this fake, the walk says so
                    self.assertIn("continued-in", why, repr(e))
                    self.assertEqual(f.calls[:2], ["GET comments since", "GET issue"])
                    continue
                self.assertEqual(f.calls[:2], ["GET comments since", "GET issue"])
                self.assertEqual(r["phase"], "commit_complete")
