"""Both instance configurations validate against Dagster's own dagster.yaml schema: the
project's, and the several-machines one in docs/ (its Postgres, S3 and Kubernetes classes are
only imported where those packages are installed, so here the shape is what is checked)."""

import shutil

from dagster._core.instance.config import dagster_instance_config

from tests.conftest import PROJECT_ROOT


def test_the_project_instance_queues_runs_limits_the_llm_pool_keeps_storage_in_the_home_and_sends_no_telemetry():
    config, _ = dagster_instance_config(str(PROJECT_ROOT))
    # The queue waits for the llm pool's slots (D85), never a step inside its run.
    assert config["concurrency"] == {"runs": {"max_concurrent_runs": 4},
                                     "pools": {"default_limit": 2, "granularity": "run"}}
    assert config["storage"]["custom"]["class"] == "HeldSqliteStorage"
    assert config["storage"]["custom"]["config"]["base_dir"] == ".knowledge"
    assert config["compute_logs"]["config"]["base_dir"] == ".knowledge/storage"
    assert config["run_monitoring"]["enabled"] and config["run_monitoring"]["free_slots_after_run_end_seconds"] > 0
    assert config["telemetry"] == {"enabled": False}


def test_the_multi_node_instance_config_is_a_valid_dagster_yaml(tmp_path, monkeypatch):
    shutil.copy(PROJECT_ROOT / "docs" / "dagster.multi-node.yaml", tmp_path / "dagster.yaml")
    for name in ("DAGSTER_PG_HOST", "DAGSTER_PG_USERNAME", "DAGSTER_PG_PASSWORD", "DAGSTER_PG_DB",
                 "DAGSTER_COMPUTE_LOG_BUCKET", "KNOWLEDGE_CELERY_BROKER", "KNOWLEDGE_CELERY_BACKEND"):
        monkeypatch.setenv(name, "set-by-the-deployment")
    config, _ = dagster_instance_config(str(tmp_path))
    assert "postgres" in config["storage"]
    assert config["run_launcher"]["class"] == "CeleryRunLauncher"
    assert config["concurrency"]["pools"] == {"default_limit": 2, "granularity": "run"}
    assert config["run_monitoring"]["enabled"] and config["run_monitoring"]["free_slots_after_run_end_seconds"] > 0
