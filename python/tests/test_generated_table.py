"""The Python client reads its kinds and control actions from ONE generated file (_generated_protocol.py,
written by `npm run generate` from the TypeScript registries; test/unit/generated-files.test.ts keeps it
current). A toy action added to that table alone is read, written and projected with no other change."""

from __future__ import annotations

import importlib
import unittest

from checkpost import _generated_protocol as G
from checkpost import projection as J
from checkpost import protocol as P
from checkpost import resume_index as R


class GeneratedTable(unittest.TestCase):
    def test_the_protocol_module_takes_its_lists_from_the_generated_table(self) -> None:
        self.assertEqual(P.CONTROL_ACTIONS, tuple(a["action"] for a in G.CONTROL_ACTIONS))
        self.assertEqual(P.CONTROL_MARKER, next(k["marker"] for k in G.KINDS if k["kind"] == "control"))
        self.assertEqual(P.DIRECTIVE_KINDS, ("pause", "rewind", "release"))

    def test_a_toy_action_in_the_table_alone_flows_through_the_reader_and_the_writer(self) -> None:
        saved = list(G.CONTROL_ACTIONS)
        toy = {"action": "retry", "verbs": ["retry"], "target": False, "effect": "fence", "box": None, "directive": "start the step again"}
        try:
            G.CONTROL_ACTIONS.append(toy)
            for m in (P, J, R):
                importlib.reload(m)
            body = P.format_control("w", "s1", "retry", "2026-12-06T05:00:00Z", epoch=4, by="alice")
            parsed = P.parse_comment(body)
            self.assertEqual(parsed["kind"], "control")
            self.assertEqual(parsed["action"], "retry")
            self.assertEqual(parsed["epoch"], 4)
            # The registry's rule for a fence: an Epoch: line is needed, by the reader and the writer alike.
            no_epoch = body.replace("Epoch: 4\n", "")
            self.assertEqual(P.parse_comment(no_epoch)["error"], 'retry needs an "Epoch:" line')
            with self.assertRaises(P.ProtocolInputError):
                P.format_control("w", "s1", "retry", "2026-12-06T05:00:00Z")
            self.assertIn("retry", P.DIRECTIVE_KINDS)
            pending = {"paused": None, "hidden": None, "pending": {"commentId": 5, "action": "retry", "by": "alice", "at": "x", "epoch": 4}}
            self.assertEqual((J.directive_of({"control": pending}) or {}).get("kind"), "retry")
        finally:
            G.CONTROL_ACTIONS[:] = saved
            for m in (P, J, R):
                importlib.reload(m)
        self.assertEqual(P.parse_comment(body)["kind"], "invalid")


if __name__ == "__main__":
    unittest.main()
