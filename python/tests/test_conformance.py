"""The conformance corpus (fixtures/conformance/, written once by fixtures/conformance/generate.ts from the
TypeScript implementation) run against the Python one. vitest runs the same files against TypeScript
(test/unit/protocol/conformance.test.ts)."""

from __future__ import annotations

import json
import os
import unittest
from typing import Any

from checkpost import protocol as P
from checkpost import resume_index as RI
from checkpost.projection import Comments, Policy, project, resume_answer

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "conformance")


def load(name: str) -> Any:
    with open(os.path.join(CORPUS, name + ".json"), encoding="utf-8") as f:
        return json.load(f)


def norm(v: Any) -> str:
    """Compare as JavaScript holds values: integral floats are ints, keys in any order."""
    return json.dumps(P.js_number_normal(v), sort_keys=True)


class ParseConformance(unittest.TestCase):
    def test_every_body_reads_as_typescript_reads_it(self) -> None:
        cases = load("parse")
        self.assertGreater(len(cases), 40)
        for c in cases:
            with self.subTest(c["name"]):
                got = P.parse_comment(c["body"])
                want = c["expected"]
                if want["kind"] == "invalid" and want["error"].startswith("broken JSON: "):
                    # The JSON parser's own words differ between engines; the verdict and the reason may not.
                    self.assertEqual(got["kind"], "invalid")
                    self.assertTrue(got["error"].startswith("broken JSON: "), got["error"])
                    self.assertEqual((got["marker"], got["agent"]), (want["marker"], want["agent"]))
                else:
                    self.assertEqual(norm(got), norm(want))


class FormatConformance(unittest.TestCase):
    def setUp(self) -> None:
        self.f = load("format")

    def test_checkpoint_bodies_and_signatures_are_byte_identical(self) -> None:
        for c in self.f["checkpoint"]:
            with self.subTest(c["name"]):
                i = c["input"]
                args = dict(agent=i["agent"], session=i["session"], phase=i["phase"], timestamp=i["timestamp"], data=i["data"], id=i.get("id"), seq=i.get("seq"), epoch=i.get("epoch"))
                self.assertEqual(P.format_checkpoint(**args), c["body"])
                sig = P.sign_checkpoint({**i, "version": "1.0"}, self.f["key"])
                self.assertEqual(sig, c["signature"])
                self.assertEqual(P.format_checkpoint(**args, signature=sig), c["signedBody"])
                # and what a reader gets back from the signed body verifies
                self.assertTrue(P.verify_checkpoint_signature(P.parse_comment(c["signedBody"]), self.f["key"]))

    def test_health_bodies(self) -> None:
        for c in self.f["health"]:
            i = c["input"]
            self.assertEqual(P.format_health(i["agent"], i["session"], i["timestamp"], i["metrics"]), c["body"])

    def test_control_bodies_and_signatures(self) -> None:
        for c in self.f["control"]:
            with self.subTest(c["name"]):
                i = c["input"]
                body = P.format_control(i["agent"], i["session"], i["action"], i["timestamp"], i.get("target"), i.get("targetId"), i.get("epoch"), i.get("by"), i.get("reason"))
                self.assertEqual(body, c["body"])
                self.assertEqual(P.sign_control({**i, "version": "1.0"}, self.f["key"]), c["signature"])


class FoldConformance(unittest.TestCase):
    def test_every_resume_answer_and_fence_match(self) -> None:
        cases = load("fold")
        self.assertGreater(len(cases), 20)
        for c in cases:
            with self.subTest(c["name"]):
                comments = Comments()
                for e in c["events"]:
                    comments.apply(e)
                pol = c["policy"]
                entries = project(comments.ordered(), Policy(pol["trustedAuthors"], pol.get("signingKey"), pol.get("legacyWriters", "fence")))
                for q, want in zip(c["queries"], c["expected"]):
                    entry = entries.get((q["agent"], q["session"]))
                    got = resume_answer(entry, q["map"])
                    got["maxEpoch"] = entry["maxEpoch"] if entry else 0
                    self.assertEqual(norm(got), norm(want), "%s/%s" % (q["agent"], q["session"]))


class IndexConformance(unittest.TestCase):
    def test_the_same_index_is_believed(self) -> None:
        for c in load("index"):
            with self.subTest(c["name"]):
                s = c["scope"]
                signing = {"key": c["key"], "scope": RI.resume_index_scope(s["owner"], s["repo"], s["issue"])} if c["signing"] else None
                self.assertEqual(norm(RI.extract_resume_index(c["body"], signing)), norm(c["expected"]))


class IndexRefConformance(unittest.TestCase):
    """The pointer a dashboard holds instead of a large index, and the index comment it names."""

    def setUp(self) -> None:
        self.f = load("index-ref")
        s = self.f["scope"]
        self.signing = {"key": self.f["key"], "scope": RI.resume_index_scope(s["owner"], s["repo"], s["issue"])}

    def test_the_same_pointer_is_read(self) -> None:
        self.assertGreater(len([r for r in self.f["refs"] if r["expected"] is not None]), 2)
        for c in self.f["refs"]:
            with self.subTest(c["name"]):
                self.assertEqual(norm(RI.extract_resume_index_ref(c["body"])), norm(c["expected"]))

    def test_the_same_index_comment_is_believed(self) -> None:
        self.assertGreater(len([r for r in self.f["comments"] if r["expected"] is not None]), 2)
        for c in self.f["comments"]:
            with self.subTest(c["name"]):
                got = RI.extract_resume_index_from_comment(c["body"], self.signing if c["signing"] else None)
                self.assertEqual(norm(got), norm(c["expected"]))


if __name__ == "__main__":
    unittest.main()
