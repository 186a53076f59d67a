"""The command line as other tools call it: a real process, a real instance, a real store."""

import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time

import dagster as dg
import duckdb
import pypdf
import pytest
from dagster._core.instance.ref import InstanceRef

from tests.conftest import PROJECT_ROOT, SAMPLE_DOCUMENTS, SAMPLE_MARKDOWN, SAMPLE_PDF
from tests.documents import write_pdf
from tests.llm.conftest import valid_answer
from tests.support.command_process import COMMAND, cli_env, cli_process, kpi_and_truncated_pdf, model_env
from tests.support.openai_server import Fault, OpenAIServer


def test_run_materialises_every_document_and_names_each_failure(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCUMENTS, docs)
    writer = pypdf.PdfWriter(clone_from=write_pdf(tmp_path / "plain.pdf", [["1. Scope", "Text."]]))
    writer.encrypt(user_password="pw", algorithm="RC4-128")
    with (docs / "locked.pdf").open("wb") as fh:
        writer.write(fh)
    (docs / "notes.odt").write_bytes(b"PK")

    result = cli_process(["run", str(docs)], PROJECT_ROOT, tmp_path)

    assert result.returncode == 1
    out = result.stdout
    assert ('ok      SKT-STD-PRM-001  std_parameter_produksi.pdf  "STANDARD PARAMETER Production Parameter and '
            'Equipment Capacity Analysis (ECA)"  new document  pages=9') in out
    assert 'ok      SKT-MNT-KPI-002  maintenance_kpi.md  "Maintenance KPI Procedure"  new document  pages=1' in out
    assert "locked.pdf: encrypted PDF: a password is required" in out
    assert "notes.odt: unsupported file type '.odt'" in out
    assert "Traceback" not in out + result.stderr
    # One line per failed document and the tally: no Dagster event stream, no stack traces.
    assert [line for line in out.splitlines() if line.startswith("FAILED")] == [
        line for line in out.splitlines() if "locked.pdf" in line or "notes.odt" in line]
    # stderr is a pipe: the tally alone, no progress lines (those are for a terminal).
    assert result.stderr.strip().splitlines() == ["2 of 4 documents failed"]
    con = duckdb.connect(str(tmp_path / "home" / "knowledge.duckdb"), read_only=True)
    counts = dict(con.execute("SELECT doc_id, count(*) FROM parsed_chunks GROUP BY doc_id").fetchall())
    assert set(counts) == {"SKT-STD-PRM-001", "SKT-MNT-KPI-002"}


def test_a_folder_runs_as_one_batch_and_a_bad_document_fails_alone(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for n, name in enumerate(["a.md", "c.md"]):
        shutil.copyfile(SAMPLE_MARKDOWN, docs / name)
        (docs / f"{name}.meta.json").write_text(f'{{"doc_id": "kpi-{n}"}}', encoding="utf-8")
    (docs / "b.pdf").write_bytes(b"garbage, not a PDF " * 64)

    result = cli_process(["run", str(docs)], PROJECT_ROOT, tmp_path)

    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[1] for line in lines if line.startswith("ok ")] == ["kpi-0", "kpi-1"]
    [failed] = [line for line in lines if line.startswith("FAILED")]
    assert "b.pdf  new document: parsed_chunks: " in failed and "not a PDF file (no %PDF- header)" in failed
    assert "kpi-" not in failed and "Traceback" not in result.stdout + result.stderr
    assert result.stderr.strip().splitlines() == ["1 of 3 documents failed"]
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(tmp_path / "home"))) as instance:
        runs = instance.get_runs(ascending=True)
        bad = failed.split()[1]
        # The batch of three; then the survivors (not neighbours once the bad one is out: one
        # run each); then the bad document alone, its failure recorded under its own partition.
        assert [(r.tags.get("dagster/asset_partition_range_start"), r.tags.get("dagster/asset_partition_range_end"))
                for r in runs[:1]] == [("kpi-0", "kpi-1")]
        alone = [r for r in runs if r.tags.get("dagster/partition") == bad]
        # Its run failed; a run of its checks alone followed, on what the store holds of it (D90).
        assert [(r.job_name, r.status) for r in alone] == [
            ("extract_document", dg.DagsterRunStatus.FAILURE), ("check_document", dg.DagsterRunStatus.SUCCESS)]
        for doc_id in ("kpi-0", "kpi-1"):
            assert instance.fetch_materializations(dg.AssetRecordsFilter(
                asset_key=dg.AssetKey("review_queue"), asset_partitions=[doc_id]), limit=1).records


STAGES = ["parsed_chunks", "term_clusters", "formulas", "glossary", "rules", "domain_context", "eval_scores",
          "review_queue"]


def cli_on_a_terminal(args, cwd, root, **extra_env) -> tuple[int, str, list[list[str]]]:
    """The command with its stderr on a pseudo-terminal, as a person watching a run has it, and
    its stdout piped: its exit status, its stdout, and each line the terminal shows as the
    states it was written in (each `\r` rewrites it), the last one what is left on screen."""
    master, terminal = pty.openpty()
    with subprocess.Popen([*COMMAND, *args], cwd=cwd, env=cli_env(root, COLUMNS="400", **extra_env),
                          stdout=subprocess.PIPE, stderr=terminal) as process:
        os.close(terminal)
        shown = bytearray()
        while select.select([master], [], [], 300)[0]:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the process has closed the terminal
                break
            if not data:
                break
            shown += data
        stdout = process.stdout.read().decode()
        status = process.wait(timeout=60)
    os.close(master)
    lines = shown.decode().replace("\r\n", "\n").split("\n")
    return status, stdout, [[state.removesuffix("\x1b[K") for state in line.split("\r") if state] for line in lines]


def test_on_a_terminal_a_run_shows_each_document_at_each_stage_and_each_summary_line_its_own_time(tmp_path):
    status, stdout, shown = cli_on_a_terminal(["run", str(SAMPLE_DOCUMENTS)], PROJECT_ROOT, tmp_path)

    assert status == 0, stdout
    left = [states[-1] for states in shown if states]
    finished = [re.fullmatch(r"\[(\d)/2\] (\S+)  (\w+)  (?:\d+ calls?  )?\d+\.\ds  (\S+)", line) for line in left]
    assert all(finished), left
    stages = {(m[2], m[3], m[4]) for m in finished}
    assert stages == {(doc_id, stage, name) for doc_id, name in (("SKT-MNT-KPI-002", SAMPLE_MARKDOWN.name),
                                                                ("SKT-STD-PRM-001", SAMPLE_PDF.name))
                      for stage in STAGES}
    assert len(left) == len(stages) and "\r" not in stdout
    seconds = [float(line.rsplit(maxsplit=1)[1].removesuffix("s")) for line in stdout.splitlines()
               if line.startswith("ok ")]
    # The 9-page PDF takes longer than the one-page Markdown: each line gives its own time.
    assert len(seconds) == 2 and seconds[1] > seconds[0]


def test_on_a_terminal_a_stage_that_asks_a_model_shows_its_calls_done_of_total(tmp_path):
    with OpenAIServer(valid_answer, latency_s=0.3) as server:
        status, stdout, shown = cli_on_a_terminal(["run", str(SAMPLE_MARKDOWN)], tmp_path, tmp_path,
                                                  **model_env(server))
    assert status == 0, stdout
    states = [state for line in shown for state in line]
    running = [m for state in states if (m := re.fullmatch(
        r"\[1/1\] SKT-MNT-KPI-002  (\w+)  (?:(\d+)/(\d+) calls  )?(?:\+?(\d+)/(\d+) asked ahead  )?\d+\.\ds"
        r"(  ETA \d+s)?  maintenance_kpi\.md", state)) and (m[2] or m[4])]
    assert {m[1] for m in running} == {"formulas", "glossary", "rules", "domain_context", "later_stages"}
    # The formulas' one call is shown out before it is answered, and beside it the later stages'
    # calls asked meanwhile (D107); the step's wait at its end on those still out is a line of
    # its own, with an ETA. Each later stage shows its own calls when its step runs, all
    # answered by then (below).
    assert any(m[1] == "formulas" and int(m[2]) < int(m[3]) for m in running), states
    assert any(m[1] == "formulas" and m[5] for m in running), states
    assert any(m[1] == "later_stages" and m[6] for m in running), states
    for stage in ("formulas", "glossary", "rules", "domain_context"):
        total = max(int(m[3]) for m in running if m[1] == stage and m[3])
        calls = f"{total} call{'' if total == 1 else 's'}"
        ahead = r"(?:  \+\d+ asked ahead)?" if stage == "formulas" else ""
        assert any(re.fullmatch(rf"\[1/1\] SKT-MNT-KPI-002  {stage}  {calls}{ahead}  \d+\.\ds  maintenance_kpi\.md",
                                line[-1]) for line in shown if line), stage
    assert any(re.fullmatch(r"\[1/1\] SKT-MNT-KPI-002  later_stages  \d+ asked ahead  \d+\.\ds  maintenance_kpi\.md",
                            line[-1]) for line in shown if line)


def test_ingest_registers_with_an_explicit_key_and_rerun_is_unchanged(tmp_path):
    doc = tmp_path / "kpi.md"
    shutil.copy(SAMPLE_DOCUMENTS / "maintenance_kpi.md", doc)
    first = cli_process(["ingest", str(doc), "--doc-id", "KPI-KEY"], tmp_path, tmp_path)
    again = cli_process(["ingest", str(doc), "--doc-id", "KPI-KEY"], tmp_path, tmp_path)
    assert first.returncode == 0, first.stderr
    assert "KPI-KEY  kpi.md  new document  key from explicit" in first.stdout
    assert "revision 1 (unchanged)" in again.stdout
    bad = cli_process(["ingest", str(doc), "--doc-id", "has space"], tmp_path, tmp_path)
    assert bad.returncode == 1 and "is not a valid document key" in bad.stderr


def test_a_refused_key_fails_the_document_with_the_cause_on_one_line(tmp_path):
    with OpenAIServer(valid_answer) as server:
        server.inject(*[Fault(status=401, message="Incorrect API key provided: sk-test-SECRET123")] * 20)
        result = cli_process(["run", str(SAMPLE_MARKDOWN)], tmp_path, tmp_path, **model_env(server))
    assert result.returncode == 1
    failed = [line for line in result.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1 and "formulas: the server refused the API key (HTTP 401" in failed[0]
    assert "DagsterExecutionStepExecutionError" not in failed[0]
    assert "sk-test-SECRET123" not in result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr and len(result.stderr.splitlines()) <= 2


def test_failed_model_calls_are_counted_on_the_line_and_exit_3(tmp_path):
    with OpenAIServer(valid_answer) as server:
        server.inject(Fault.server_error(), Fault.server_error())
        result = cli_process(["run", str(SAMPLE_MARKDOWN)], tmp_path, tmp_path,
                      **model_env(server, KNOWLEDGE_LLM_RETRY_BUDGET="0"))
    assert result.returncode == 3, result.stdout + result.stderr
    line = next(line for line in result.stdout.splitlines() if "maintenance_kpi.md" in line)
    assert line.startswith("PARTIAL") and "failed_calls=2" in line and "first failure: transport" in line
    assert "retry budget (0) is spent" in line
    # The failed calls are counted on the line; the terminal gets no warning per call.
    assert result.stderr.strip().splitlines() == ["1 of 1 documents completed with failed model calls; "
                                                  "a re-run asks those calls again"]


def test_a_hanging_provider_costs_the_llm_timeout_not_minutes(tmp_path):
    with OpenAIServer(valid_answer, latency_s=30.0) as server:
        started = time.monotonic()
        result = cli_process(["run", str(SAMPLE_MARKDOWN), "--llm-timeout", "2"], tmp_path, tmp_path,
                             **model_env(server))
        elapsed = time.monotonic() - started
    assert result.returncode == 3, result.stdout + result.stderr
    line = next(line for line in result.stdout.splitlines() if "maintenance_kpi.md" in line)
    assert "no answer within the 2s timeout" in line and "unanswered=" in line
    # Four model-calling steps, each call timing out twice at 2 s (calls of a step run at once).
    assert elapsed < 90


def test_a_truncated_answer_is_split_and_the_run_stays_clean(tmp_path):
    with OpenAIServer(valid_answer) as server:
        server.inject(Fault.truncated())
        result = cli_process(["run", str(SAMPLE_MARKDOWN)], tmp_path, tmp_path, **model_env(server))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "failed_calls=0 unanswered=0" in result.stdout


def test_a_run_from_a_subdirectory_uses_the_projects_home(tmp_path):
    home = tmp_path / "knowledge-home"
    env = {k: v for k, v in os.environ.items() if k not in ("KNOWLEDGE_DB", "DAGSTER_HOME")}
    result = subprocess.run(
        [sys.executable, "-m", "knowledge_assets.command", "run", "maintenance_kpi.md"], cwd=SAMPLE_DOCUMENTS,
        env={**env, "KNOWLEDGE_HOME": str(home)}, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"data: {home / 'knowledge.duckdb'}" in result.stdout and f"dagster instance: {home}" in result.stdout
    assert not (SAMPLE_DOCUMENTS / ".knowledge").exists() and "different homes" not in result.stderr
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(home))) as instance:
        runs = instance.get_runs()
        assert [(r.job_name, r.tags["dagster/partition"]) for r in runs] == [("extract_document", "SKT-MNT-KPI-002")]


def test_overrides_that_split_the_store_from_the_instance_are_named_once(tmp_path):
    result = cli_process(["run", str(SAMPLE_MARKDOWN)], tmp_path, tmp_path, KNOWLEDGE_DB=str(tmp_path / "other.duckdb"))
    assert result.returncode == 0
    assert result.stderr.count("are in different homes") == 1


def test_an_expected_failure_of_any_command_is_one_error_line_and_its_exit_code(tmp_path, monkeypatch, capsys):
    """command.main reports every KnowledgeError in one place; the semantic-review commands still
    print their one JSON object, with the refusal's exit code 2."""
    from knowledge_assets.command import main

    monkeypatch.setenv("KNOWLEDGE_DB", str(tmp_path / "k.duckdb"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    failures = [
        (["export", "--out", str(tmp_path / "out")], 1,
         "error: export needs --doc-id, or --approved for every document"),
        (["eval", "--tolerance", "-1"], 1, "error: --tolerance must be 0 or more, not -1.0"),
        (["review", "show", "t_nothing"], 1, "error: "),
        (["semantic-review", "bundle", "--documents", str(tmp_path / "none"), "--gold", str(tmp_path / "none"),
          "--output", str(tmp_path / "bundle")], 2, "error: "),
    ]
    for argv, code, message in failures:
        assert main(argv) == code, argv
        out, err = capsys.readouterr()
        assert err.startswith(message) and len(err.splitlines()) == 1 and "Traceback" not in err, (argv, err)
        if argv[0] == "semantic-review":
            assert '"status": "refused"' in out and '"exitCode": 2' in out


def test_help_says_what_the_tool_does_and_version_names_the_installed_package(capsys):
    from importlib import metadata

    from knowledge_assets.command import main

    for flag in ("--help", "--version"):
        with pytest.raises(SystemExit) as exited:
            main([flag])
        assert exited.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("Turn technical documents (PDF, Markdown, reStructuredText, text, MinerU) into a glossary, "
            "formulas, rules and a domain context, each entry carrying its verbatim source span,") in out
    assert out.endswith(f"knowledge-assets {metadata.version('knowledge-assets')}")


def test_output_into_a_closed_pipe_ends_quietly_with_141(tmp_path):
    """The reader of the pipe is gone before the command writes (as `… | head` after its lines):
    no traceback, no "Exception ignored", and SIGPIPE's shell status, whether the pipe shows as
    closed on a print (unbuffered output) or on the last flush (the default)."""
    buffered = {k: v for k, v in cli_env(tmp_path).items() if k != "PYTHONUNBUFFERED"}
    for args, env in ((["--help"], buffered), (["documents"], buffered),
                      (["documents"], {**buffered, "PYTHONUNBUFFERED": "1"})):
        process = subprocess.Popen([*COMMAND, *args], cwd=tmp_path, env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        process.stdout.close()
        stderr = process.stderr.read().decode()
        assert process.wait(timeout=300) == 141, (args, stderr)
        assert stderr == "", (args, stderr)


def test_run_and_export_write_each_document_into_out_doc_id_and_every_bad_file_is_one_quiet_line(
        tmp_path, monkeypatch, capsys):
    """A symlink loop in the folder is a line of its own, and named one when given directly;
    a truncated PDF's line is the only word about it (pypdf's own "EOF marker not found" stays
    out of stderr); `run --out` and `export --out` lay out the same DIR/<doc_id>/."""
    from knowledge_assets.command import main

    docs = kpi_and_truncated_pdf(tmp_path)
    (docs / "loop.md").symlink_to("loop.md")
    (docs / "gone.md").symlink_to("nowhere.md")

    result = cli_process(["run", str(docs), "--out", str(tmp_path / "run-out")], tmp_path, tmp_path)

    assert result.returncode == 1, result.stdout + result.stderr
    failed = [line for line in result.stdout.splitlines() if line.startswith("FAILED")]
    assert failed[:2] == [f"FAILED  {docs / 'gone.md'}: broken symlink: its target nowhere.md does not exist",
                          f"FAILED  {docs / 'loop.md'}: symlink loop: the link leads back to itself, never to a file"]
    assert len(failed) == 3 and "truncated.pdf  new document: parsed_chunks: " in failed[2]
    assert "corrupt or truncated PDF" in failed[2]
    assert result.stderr.strip().splitlines() == ["3 of 4 documents failed"]

    monkeypatch.setenv("KNOWLEDGE_DB", str(tmp_path / "home" / "knowledge.duckdb"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    assert main(["ingest", str(docs / "loop.md")]) == 1
    assert capsys.readouterr().err == f"error: {docs / 'loop.md'}: symlink loop: the link leads back to itself, " \
                                      "never to a file\n"
    (tmp_path / "export-out").mkdir()
    (tmp_path / "export-out" / "glossary.json").write_text("[]\n", encoding="utf-8")  # the flat layout of before
    assert main(["export", "--doc-id", "SKT-MNT-KPI-002", "--out", str(tmp_path / "export-out")]) == 0
    assert "an earlier export in the flat layout" in capsys.readouterr().err
    by_run, by_export = (tmp_path / "run-out" / "SKT-MNT-KPI-002", tmp_path / "export-out" / "SKT-MNT-KPI-002")
    assert sorted(p.name for p in by_run.iterdir()) == sorted(p.name for p in by_export.iterdir())
    assert len(list(by_run.iterdir())) == 7
    assert all((by_run / p.name).read_bytes() == p.read_bytes() for p in by_export.iterdir())
