"""Client.from_env() reads ./.env or env_file= as the CLI reads ./.env or --env-file (src/cli/env-file.ts),
so an agent's folder means the same settings to `checkpost`, SessionStore.fromEnv() and the Python client.
The dotenv rules come from fixtures/conformance/env-file.json, which vitest runs through the CLI's path."""

from __future__ import annotations

import json
import os
import tempfile
import unittest

from checkpost import Client, ConfigError
from checkpost.config import env_with_file, parse_env

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "conformance")

SETTINGS = "FORGEJO_URL=http://127.0.0.1:9\nFORGEJO_TOKEN=file-token\nFORGEJO_REPOSITORY=acme/widgets\nCHECKPOST_ISSUE=7\n"


def folder(files: dict) -> str:
    d = tempfile.mkdtemp(prefix="checkpost-env-")
    for name, text in files.items():
        with open(os.path.join(d, name), "w", encoding="utf-8", newline="") as f:
            f.write(text)
    return d


class EnvFileConformance(unittest.TestCase):
    def test_every_dotenv_file_reads_as_the_cli_reads_it(self) -> None:
        with open(os.path.join(CORPUS, "env-file.json"), encoding="utf-8") as f:
            cases = json.load(f)
        self.assertGreaterEqual(len(cases), 10)
        for c in cases:
            with self.subTest(c["name"]):
                self.assertEqual(parse_env(c["text"]), c["expected"])
                # and through the same path as from_env: ./.env in a folder, an empty environment
                self.assertEqual(env_with_file({}, folder({".env": c["text"]})), c["expected"])


class FromEnvReadsTheFile(unittest.TestCase):
    def test_settings_come_from_dot_env_when_the_environment_has_none(self) -> None:
        with Client.from_env({}, cwd=folder({".env": SETTINGS}), use_cache=False) as c:
            self.assertEqual((c.api.api_url, c.api.token, c.owner, c.repo, c.issue_number()), ("http://127.0.0.1:9/api/v1", "file-token", "acme", "widgets", 7))
            self.assertEqual(c.repo_source, "FORGEJO_REPOSITORY=acme/widgets")

    def test_a_set_variable_wins_over_the_file_and_an_empty_one_does_not(self) -> None:
        d = folder({".env": SETTINGS + "CHECKPOST_SIGNING_KEY=from-the-file-0123456\n"})
        e = env_with_file({"FORGEJO_REPOSITORY": "other/repo", "FORGEJO_TOKEN": "", "CHECKPOST_ISSUE": "9"}, d)
        self.assertEqual(e["FORGEJO_REPOSITORY"], "other/repo")
        self.assertEqual(e["FORGEJO_TOKEN"], "file-token")  # empty means unset, as everywhere in checkpost
        self.assertEqual(e["CHECKPOST_ISSUE"], "9")
        with Client.from_env({"FORGEJO_REPOSITORY": "other/repo", "CHECKPOST_ISSUE": "9"}, cwd=d, use_cache=False) as c:
            self.assertEqual((c.owner, c.repo, c.issue_number()), ("other", "repo", 9))
            self.assertEqual(c.signing_key, "from-the-file-0123456")

    def test_env_file_replaces_dot_env_and_is_relative_to_cwd(self) -> None:
        d = folder({".env": SETTINGS, "agent.env": "FORGEJO_URL=http://127.0.0.1:9\nexport FORGEJO_REPO=agent/work\n"})
        with Client.from_env({}, cwd=d, env_file="agent.env", use_cache=False) as c:
            self.assertEqual((c.owner, c.repo), ("agent", "work"))
            self.assertIsNone(c.api.token)  # ./.env's token is not read: env_file takes its place
        e = env_with_file({}, tempfile.gettempdir(), os.path.join(d, "agent.env"))
        self.assertEqual(e.get("FORGEJO_REPO"), "agent/work")
        self.assertNotIn("FORGEJO_TOKEN", e)

    def test_a_missing_env_file_is_a_config_error_naming_it_but_a_missing_dot_env_is_not(self) -> None:
        d = folder({})
        with self.assertRaisesRegex(ConfigError, r"cannot read env_file missing\.env \(.*missing\.env\)"):
            Client.from_env({}, cwd=d, env_file="missing.env")
        self.assertEqual(env_with_file({"A": "1"}, d), {"A": "1"})

    def test_the_module_cli_takes_env_file_and_exits_5_as_the_cli_when_it_is_missing(self) -> None:
        import contextlib
        import io

        from checkpost.__main__ import main

        missing = os.path.join(folder({}), "missing.env")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(main(["resume", "--agent", "a", "--session", "s", "--env-file", missing]), 5)
        self.assertIn("cannot read env_file %s" % missing, err.getvalue())

    def test_the_default_is_the_process_environment_and_the_working_directory(self) -> None:
        d = folder({".env": "CHECKPOST_TEST_ONLY_FROM_DOT_ENV=yes\n"})
        old = os.getcwd()
        os.chdir(d)
        try:
            self.assertEqual(env_with_file(os.environ)["CHECKPOST_TEST_ONLY_FROM_DOT_ENV"], "yes")
        finally:
            os.chdir(old)


if __name__ == "__main__":
    unittest.main()
