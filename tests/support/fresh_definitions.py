"""Loads `knowledge_assets.definitions` in a fresh process — as `dagster dev` does when a code
location is reloaded, so code versions are recomputed from the prompt files as they are now —
and reports, as JSON on stdout, what the instance in DAGSTER_HOME shows.

    python -m tests.support.fresh_definitions stale
    python -m tests.support.fresh_definitions schedule
    python -m tests.support.fresh_definitions materialize DOC_ID ASSET...
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone

import dagster as dg

from tests.conftest import PROJECT_ROOT


def _stale(instance: dg.DagsterInstance, defs: dg.Definitions) -> dict:
    from knowledge_assets.defs.assets import document_assets
    from knowledge_assets.defs.schedules import stale_partitions

    keys = sorted(key for asset in document_assets for key in asset.keys)
    found = stale_partitions(instance, defs.get_repository_def().asset_graph, keys,
                             instance.get_dynamic_partitions("documents"))
    return {doc: {key.to_user_string(): reasons for key, reasons in assets.items()} for doc, assets in found.items()}


def _schedule(instance: dg.DagsterInstance, defs: dg.Definitions) -> dict:
    from knowledge_assets.defs.resources import KnowledgeStore

    with dg.build_schedule_context(
        instance=instance, repository_def=defs.get_repository_def(),
        scheduled_execution_time=datetime.now(timezone.utc), resources={"knowledge_store": KnowledgeStore()},
    ) as context:
        data = defs.resolve_schedule_def("reextract_stale").evaluate_tick(context)
    return {
        "skip": data.skip_message,
        "runs": {r.partition_key: sorted(k.to_user_string() for k in r.asset_selection)
                 for r in data.run_requests or []},
    }


def _materialize(instance: dg.DagsterInstance, defs: dg.Definitions, doc_id: str, assets: list[str]) -> dict:
    job = defs.resolve_job_def("extract_document")
    result = job.execute_in_process(instance=instance, partition_key=doc_id, raise_on_error=False,
                                    asset_selection=[dg.AssetKey(a) for a in assets])
    return {"success": result.success}


def main(argv: list[str]) -> None:
    from knowledge_assets.definitions import defs

    command, *args = argv
    with dg.DagsterInstance.get() as instance:
        if command == "stale":
            report = _stale(instance, defs)
        elif command == "schedule":
            report = _schedule(instance, defs)
        else:
            report = _materialize(instance, defs, args[0], args[1:])
    print(json.dumps(report, sort_keys=True))


def run_fresh(*argv: str) -> dict:
    """Runs one command in a fresh process with this process's environment (DAGSTER_HOME,
    KNOWLEDGE_DB, KNOWLEDGE_PROMPTS_DIR …) and returns its report."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.fresh_definitions", *argv],
        cwd=PROJECT_ROOT, capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"fresh definitions {argv} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main(sys.argv[1:])
