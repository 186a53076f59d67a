"""A run holds the store only for its reads and writes, never across a model call (D68): in
real processes, a second `run` and the review pages use the file while the first run's model
calls are held unanswered by a loopback server."""

from __future__ import annotations

import subprocess
import threading
import time

from knowledge_assets.store.database import DuckDBStore
from tests.conftest import SAMPLE_MARKDOWN
from tests.llm.conftest import valid_answer
from tests.review.web.server import review_server
from tests.support.command_process import COMMAND, cli_env, cli_process, model_env
from tests.support.openai_server import OpenAIServer

OTHER_DOCUMENT = """# Pump maintenance

## 1. Terms

**Seal flush** means the clean liquid led to a pump's mechanical seal.

## 2. Rules

The operator shall check the seal flush pressure before each start.
"""


def test_a_second_run_and_the_review_pages_do_not_wait_for_a_runs_model_calls(tmp_path, monkeypatch):
    release = threading.Event()

    def held_answer(body: dict):
        release.wait(timeout=240)
        return valid_answer(body)

    other = tmp_path / "pump_maintenance.md"
    other.write_text(OTHER_DOCUMENT, encoding="utf-8")
    env = cli_env(tmp_path)
    with OpenAIServer(held_answer) as server:
        first = subprocess.Popen(
            [*COMMAND, "run", str(SAMPLE_MARKDOWN)], cwd=tmp_path, text=True,
            env={**env, **model_env(server, KNOWLEDGE_LLM_TIMEOUT_S="300")},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 120
            while not server.requests and first.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            assert server.requests and first.poll() is None, first.communicate()
            # The first run now waits on its model calls; the store is free meanwhile.
            second = cli_process(["run", str(other)], tmp_path, tmp_path, KNOWLEDGE_LLM_BACKEND="offline")
            assert second.returncode == 0, second.stdout + second.stderr
            done = next(line for line in second.stdout.splitlines() if "pump_maintenance.md" in line)
            assert done.startswith("ok ") and "waiting for the store" not in second.stderr
            other_id = done.split()[1]
            monkeypatch.setenv("DAGSTER_HOME", env["DAGSTER_HOME"])
            with review_server(DuckDBStore(env["KNOWLEDGE_DB"]), tmp_path / "review.log",
                               "--lock-timeout", "5") as review:
                pages = [review.client().get(path) for path in ("/", f"/documents/{other_id}", "/")]
            assert [page.status for page in pages] == [200, 200, 200], pages[0].text[:500]
            # All of that happened while the first run's calls were still held.
            assert first.poll() is None and not release.is_set()
        finally:
            release.set()
            out, err = first.communicate(timeout=300)
    assert first.returncode == 0, out + err
    assert "maintenance_kpi.md" in out
