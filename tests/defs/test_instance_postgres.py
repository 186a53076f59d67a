"""Dagster's instance on PostgreSQL (docs/dagster.multi-node.yaml, its storage block): a
`knowledge-assets run FOLDER` records its run, the documents' partitions, each document's
materialisations and its check results in the PostgreSQL server, where every machine's UI and
daemon read them (docs/decisions.md D72)."""

import dataclasses
import os
import shutil
import subprocess
import sys

import dagster as dg
import yaml

from knowledge_assets.defs.assets import document_assets
from tests.conftest import PROJECT_ROOT, SAMPLE_MARKDOWN
from tests.support import postgres

postgres_server = postgres.postgres_server

_DOCUMENTS = ("pg-instance-a", "pg-instance-b")


def _folder(root):
    folder = root / "documents"
    folder.mkdir()
    for doc_id in _DOCUMENTS:
        copy = folder / f"{doc_id}.md"
        shutil.copyfile(SAMPLE_MARKDOWN, copy)
        copy.with_name(copy.name + ".meta.json").write_text(f'{{"doc_id": "{doc_id}"}}', encoding="utf-8")
    return folder


def _postgres_home(root, server) -> tuple[os.PathLike, dict[str, str]]:
    """A DAGSTER_HOME whose dagster.yaml is the multi-node file's storage block, and the
    settings that block reads, pointed at the test's server."""
    multi_node = yaml.safe_load((PROJECT_ROOT / "docs" / "dagster.multi-node.yaml").read_text(encoding="utf-8"))
    storage = multi_node["storage"]
    storage["postgres"]["postgres_db"]["port"] = server.port
    home = root / "dagster-home"
    home.mkdir()
    (home / "dagster.yaml").write_text(yaml.safe_dump({"storage": storage, "telemetry": {"enabled": False}}))
    server.psql("CREATE DATABASE dagster_instance")
    settings = {"DAGSTER_PG_HOST": "127.0.0.1", "DAGSTER_PG_USERNAME": postgres.SERVER_USER,
                "DAGSTER_PG_PASSWORD": "", "DAGSTER_PG_DB": "dagster_instance"}
    return home, settings


def test_a_folder_run_records_its_run_partitions_materialisations_and_checks_in_postgres(
        tmp_path, postgres_server, monkeypatch):
    home, settings = _postgres_home(tmp_path, postgres_server)
    env = {**os.environ, **settings, "DAGSTER_HOME": str(home), "KNOWLEDGE_DB": str(tmp_path / "knowledge.duckdb"),
           "KNOWLEDGE_LLM_BACKEND": "offline"}
    done = subprocess.run([sys.executable, "-m", "knowledge_assets.cli", "run", str(_folder(tmp_path))],
                          cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]

    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    with dg.DagsterInstance.from_config(str(home)) as instance:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        assert type(instance.event_log_storage).__name__ == "PostgresEventLogStorage"
        runs = instance.get_runs()
        assert [run.job_name for run in runs] == ["extract_document"]  # the folder is one run
        assert runs[0].is_success
        assert set(instance.get_dynamic_partitions("documents")) == set(_DOCUMENTS)
        for key in (dg.AssetKey("parsed_chunks"), dg.AssetKey("glossary"), dg.AssetKey("review_queue")):
            records = instance.fetch_materializations(key, limit=10).records
            assert sorted(r.partition_key for r in records) == sorted(_DOCUMENTS), key
        check = dg.AssetCheckKey(dg.AssetKey("glossary"), "spans_verbatim")
        executions = instance.event_log_storage.get_asset_check_execution_history(check, limit=10)
        evaluations = [e.event.dagster_event.asset_check_evaluation_data for e in executions]
        assert sorted(e.partition for e in evaluations) == sorted(_DOCUMENTS)
        assert all(e.passed for e in evaluations)
    # Written to the server itself, not to files in the home.
    in_server = dataclasses.replace(postgres_server, url=postgres_server.url.rsplit("/", 1)[0] + "/dagster_instance")
    materialisations = in_server.psql(
        "SELECT count(*) FROM event_logs WHERE dagster_event_type = 'ASSET_MATERIALIZATION'")
    assert int(materialisations) == len(document_assets) * len(_DOCUMENTS)
    assert not (home / "history").exists()
