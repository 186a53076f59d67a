"""What the package takes from Dagster's private modules, listed in one place with the reason,
and proven still there: a Dagster upgrade that moves or drops one fails here by name, instead
of at a user's first run. A private import this list does not name fails too: take the public
name where `dagster` exports one (`dg.DagsterEventType`, `dg.EventLogEntry`, `dg.StringSource`),
or add it here with its reason (issue 32)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import dagster as dg

PACKAGE = Path(__file__).resolve().parents[1] / "knowledge_assets"

# module -> names imported from it -> why no public name serves
PRIVATE: dict[str, dict[str, str]] = {
    "dagster._core.definitions.asset_checks.asset_check_evaluation": {
        "AssetCheckEvaluationTargetMaterializationData":
            "a range run's check evaluation names the materialisation it checked, as Dagster's "
            "AssetCheckResult does for one partition (defs/assets/batch.py)",
    },
    "dagster._core.storage.tags": {
        "ASSET_PARTITION_RANGE_START_TAG":
            "a folder run is one run over a range of partitions (run_control/launch.py, defs/sensors.py)",
        "ASSET_PARTITION_RANGE_END_TAG": "the same",
    },
    "dagster._core.definitions.data_version": {
        "CachingStaleStatusResolver": "the UI's Unsynced status, read for the staleness schedule (defs/schedules.py)",
        "StaleCauseCategory": "the same",
        "StaleStatus": "the same",
    },
    "dagster._core.loader": {"LoadingContext": "the resolver above takes one (defs/schedules.py)"},
    # The held event log (D72, D93): guarded at load, falling back to Dagster's own storage.
    "dagster._core.storage.event_log.sqlite.sqlite_event_log": {
        "SqliteEventLogStorage": "D93",
        "INDEX_SHARD_NAME": "D111: the index's file, whose version the kept partition lists follow",
    },
    "dagster._core.storage.runs.sqlite.sqlite_run_storage": {"SqliteRunStorage": "D93"},
    "dagster._core.storage.schedules.sqlite.sqlite_schedule_storage": {"SqliteScheduleStorage": "D93"},
    "dagster._core.storage.sqlite": {"SQLITE_BUSY_TIMEOUT_SECONDS": "D93"},
    "dagster._core.storage.sqlite_storage": {
        "DagsterSqliteStorage": "D93",
        "_event_logs_directory": "D93: the same folders as Dagster's own storage",
        "_runs_directory": "D93: the same",
        "_schedule_directory": "D93: the same",
    },
    "dagster._serdes": {"ConfigurableClassData": "D93: a storage class named in dagster.yaml is built from one"},
    "dagster._utils": {"mkdir_p": "D93: as Dagster's own storage makes its folders"},
}


def private_imports(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Every `dagster._…` module the package imports from, with the names it takes."""
    found: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dagster._"):
                found.setdefault(node.module, set()).update(alias.name for alias in node.names)
            elif isinstance(node, ast.Import):
                found.update({a.name: set() for a in node.names if a.name.startswith("dagster._")})
    return found


def test_every_private_dagster_import_is_listed_with_its_reason():
    listed = {module: set(names) for module, names in PRIVATE.items()}
    unlisted = {module: sorted(names - listed.get(module, set()))
                for module, names in private_imports().items() if names - listed.get(module, set())}
    assert not unlisted, f"private Dagster imports without a reason in this file: {unlisted}"
    assert all(reason for names in PRIVATE.values() for reason in names.values())


def test_every_listed_private_name_is_still_where_it_was():
    missing = [f"{module}.{name}" for module, names in PRIVATE.items() for name in names
               if not hasattr(importlib.import_module(module), name)]
    assert not missing, f"Dagster {dg.__version__} no longer has: {missing}"


def test_no_name_is_listed_that_dagster_exports_publicly():
    public = sorted(name for names in PRIVATE.values() for name in names if hasattr(dg, name))
    assert not public, f"take these from `dagster` instead: {public}"
