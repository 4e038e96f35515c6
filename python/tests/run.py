"""Run the Python tests and report their counts as one JSON line (for .ci/run's closing line).

    python3 python/tests/run.py [--json FILE]

Imports `checkpost` before anything else, so when it is installed (CI installs it into a venv with
`pip install --no-index --no-build-isolation ./python`) the tests run against the installed package;
otherwise against the source next to this folder. Exit status 1 when any test failed or errored.
"""

from __future__ import annotations

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

try:
    import checkpost
except ImportError:
    sys.path.insert(0, TOP)
    import checkpost


def main(argv: list) -> int:
    out = None
    if "--json" in argv:
        out = argv[argv.index("--json") + 1]
    sys.stderr.write("python tests: checkpost from %s (Python %s)\n" % (os.path.dirname(checkpost.__file__), sys.version.split()[0]))
    suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py", top_level_dir=TOP)
    result = unittest.TextTestRunner(stream=sys.stderr, verbosity=1).run(suite)
    # A test counts once, however many of its subtests failed; an error in a class or module fixture
    # (setUpClass...) is one failure of its own, as vitest counts a file that failed to load.
    def tid(t: object) -> str:
        return getattr(t, "test_case", t).id()  # type: ignore[attr-defined]

    bad = {tid(t) for t, _ in result.failures + result.errors} | {tid(t) for t in result.unexpectedSuccesses}
    ran_bad = {b for b in bad if not isinstance(b, str) or not b.startswith(("setUpClass", "tearDownClass", "setUpModule", "tearDownModule"))}
    skipped = len({tid(t) for t, _ in result.skipped})
    counts = {"kind": "unittest", "run": result.testsRun, "passed": max(0, result.testsRun - len(ran_bad) - skipped), "failed": len(bad), "skipped": skipped}
    line = json.dumps(counts)
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(line + "\n")
    print(line)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
