"""The project's Dagster instance, in the project's one home (knowledge_assets.settings).

`DAGSTER_HOME`, when set, is used as it is. Otherwise the home (`KNOWLEDGE_HOME`, default
`.knowledge/` at the project root) becomes the DAGSTER_HOME: it gets a `dagster.yaml` copied
from the project's own without its three storage blocks, so Dagster's default layout puts the
storage in the home itself — the same folders the project's dagster.yaml names for `dg dev` —
written through the project's storage class (`instance/storage.py`), its base_dir the
home's absolute path, so any reader of the file finds the storage, DAGSTER_HOME set or not
(`DagsterInstance.from_ref(InstanceRef.from_dir(home))` included); a home whose file differs
from that (moved elsewhere, or written when the class was `knowledge_assets.defs.instance_storage`,
D100) gets it rewritten by the next command.
"""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg
import yaml

from knowledge_assets.instance import storage
from knowledge_assets.settings import dagster_home, project_root

# Blocks that pin storage to paths relative to the project root: left out of the home's copy,
# so the home's own defaults (the same folders) apply wherever the command is started.
_STORAGE_BLOCKS = ("storage", "local_artifact_storage", "compute_logs", "run_storage", "event_log_storage",
                   "schedule_storage")
GENERATED_NOTE = "# Written by knowledge-assets from the project's dagster.yaml; edit that file, not this one.\n"


def home_storage(home: Path) -> dict:
    """The storage block of the home's dagster.yaml: the project's storage class in the home."""
    return {"custom": {"module": storage.__name__, "class": storage.HeldSqliteStorage.__name__,
                       "config": {"base_dir": str(home.resolve())}}}


def home_instance_config(project_config: Path, home: Path) -> str:
    config = yaml.safe_load(project_config.read_text(encoding="utf-8")) or {}
    kept = {"storage": home_storage(home)} | {key: value for key, value in config.items()
                                              if key not in _STORAGE_BLOCKS}
    return GENERATED_NOTE + yaml.safe_dump(kept, sort_keys=False)


def _write_home_config(home: Path) -> None:
    project_config = project_root() / "dagster.yaml"
    if not project_config.is_file():
        return
    wanted = home_instance_config(project_config, home)
    target = home / "dagster.yaml"
    if not target.is_file() or target.read_text(encoding="utf-8") != wanted:
        target.write_text(wanted, encoding="utf-8")


def project_instance() -> dg.DagsterInstance:
    """The instance of this project's home (or of DAGSTER_HOME); exported as DAGSTER_HOME so
    every process a run starts finds the same one."""
    home = dagster_home()
    home.mkdir(parents=True, exist_ok=True)
    if not os.environ.get("DAGSTER_HOME"):
        _write_home_config(home)
    os.environ["DAGSTER_HOME"] = str(home)
    return dg.DagsterInstance.get()
