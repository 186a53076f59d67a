"""The home becomes a DAGSTER_HOME whose dagster.yaml is the project's without its storage
paths, so the storage lands in the home in the layout the project's dagster.yaml names, written
through the project's storage class."""

import dagster as dg
import yaml

from knowledge_assets.instance.home import home_instance_config, project_instance
from knowledge_assets.instance.storage import HeldSqliteEventLogStorage
from tests.conftest import PROJECT_ROOT


def test_the_homes_instance_config_keeps_everything_but_the_storage_paths(tmp_path):
    config = yaml.safe_load(home_instance_config(PROJECT_ROOT / "dagster.yaml", tmp_path / "home"))
    project = yaml.safe_load((PROJECT_ROOT / "dagster.yaml").read_text(encoding="utf-8"))
    per_home = ("storage", "local_artifact_storage", "compute_logs")
    kept = {k: v for k, v in project.items() if k not in per_home}
    assert {k: v for k, v in config.items() if k != "storage"} == kept
    project_storage = project["storage"]["custom"]
    assert config["storage"]["custom"] == {**project_storage, "config": {"base_dir": str(tmp_path / "home")}}


def test_the_project_instance_keeps_its_storage_in_the_knowledge_home(monkeypatch, tmp_path):
    for name in ("DAGSTER_HOME", "KNOWLEDGE_DB"):
        monkeypatch.setenv(name, "")  # recorded, so the DAGSTER_HOME the instance exports is undone
        monkeypatch.delenv(name)
    monkeypatch.setenv("KNOWLEDGE_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    with project_instance() as instance:
        assert instance.root_directory == str(tmp_path / "home")
        assert instance.get_concurrency_config().pool_config.default_pool_limit == 2
        instance.add_dynamic_partitions("documents", ["D1"])
        assert isinstance(instance.event_log_storage, HeldSqliteEventLogStorage)
    assert (tmp_path / "home" / "history" / "runs.db").is_file()
    assert not (tmp_path / ".knowledge").exists()


def test_a_home_written_before_the_storage_class_moved_loads_and_the_next_command_rewrites_it(monkeypatch, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    current = home_instance_config(PROJECT_ROOT / "dagster.yaml", home)
    written_before = current.replace("module: knowledge_assets.instance.storage",
                                     "module: knowledge_assets.defs.instance_storage")
    assert written_before != current
    (home / "dagster.yaml").write_text(written_before, encoding="utf-8")
    # Read as it is, as `DAGSTER_HOME=.knowledge dg dev` reads it (D100).
    with dg.DagsterInstance.from_config(str(home)) as instance:
        instance.add_dynamic_partitions("documents", ["D1"])
        assert isinstance(instance.event_log_storage, HeldSqliteEventLogStorage)
    for name in ("DAGSTER_HOME", "KNOWLEDGE_DB"):
        monkeypatch.setenv(name, "")  # recorded, so the DAGSTER_HOME the instance exports is undone
        monkeypatch.delenv(name)
    monkeypatch.setenv("KNOWLEDGE_HOME", str(home))
    with project_instance() as instance:
        assert instance.get_dynamic_partitions("documents") == ["D1"]
    assert (home / "dagster.yaml").read_text(encoding="utf-8") == current
