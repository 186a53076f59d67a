"""`run` against a failing provider, as a user meets it: a real process, the loopback server.

What happened decides the outcome: an endpoint that never answered is a configuration error
(the document fails, exit 1); a call that failed after the endpoint answered is a failed call
(exit 3), asked again by a re-run; a truncated answer's halves are cached like any answer."""

import duckdb

from tests.conftest import SAMPLE_MARKDOWN
from tests.llm.conftest import flaky_attempts, valid_answer
from tests.support.command_process import cli_process, model_env
from tests.support.openai_server import OpenAIServer


def _line(result) -> str:
    return next(line for line in result.stdout.splitlines() if "maintenance_kpi.md" in line)


def test_a_call_whose_last_attempts_were_dropped_is_a_failed_call_not_a_configuration_error(tmp_path):
    with OpenAIServer(valid_answer) as server:
        # The run's first request (its one formula call) meets all five; every other call is
        # answered. One call at a time, so the later stages' calls, asked ahead (D107), wait for it.
        server.inject(*flaky_attempts())
        result = cli_process(["run", str(SAMPLE_MARKDOWN)], tmp_path, tmp_path, **model_env(server),
                             KNOWLEDGE_LLM_CONCURRENCY="1")
    assert result.returncode == 3, result.stdout + result.stderr
    line = _line(result)
    assert line.startswith("PARTIAL") and "failed_calls=1" in line
    assert "first failure: transport: gave up after 4 retries: connection failed" in line


def test_an_endpoint_that_refuses_every_connection_fails_the_document(tmp_path):
    with OpenAIServer(valid_answer) as gone:
        env = model_env(gone)
    result = cli_process(["run", str(SAMPLE_MARKDOWN)], tmp_path, tmp_path, **env)
    assert result.returncode == 1, result.stdout + result.stderr
    [failed] = [line for line in result.stdout.splitlines() if line.startswith("FAILED")]
    assert "cannot be reached (connection failed, 4 retries)" in failed and "Traceback" not in result.stderr


def test_an_unchanged_re_run_after_a_truncation_sends_no_request(tmp_path):
    # The sample's longest glossary and rule batches are cut off; their halves are not.
    with OpenAIServer(valid_answer, truncates_over_chars=8000) as server:
        sent = []
        for _ in range(2):
            before = len(server.requests)
            result = cli_process(["run", str(SAMPLE_MARKDOWN)], tmp_path, tmp_path,
                          **model_env(server, KNOWLEDGE_LLM_CACHE="on"))
            assert result.returncode == 0, result.stdout + result.stderr
            assert "failed_calls=0 unanswered=0" in _line(result)
            sent.append(len(server.requests) - before)
        truncated = sum(len(r.body["messages"][-1]["content"]) > 8000 for r in server.requests)
    # Five requests, each truncated one asked again as two halves; then nothing at all.
    assert truncated >= 2 and sent == [5 + 2 * truncated, 0]
    con = duckdb.connect(str(tmp_path / "home" / "knowledge.duckdb"), read_only=True)
    rows, keys = con.execute("SELECT count(*), count(DISTINCT cache_key) FROM llm_cache").fetchone()
    assert rows == keys == sent[0]
