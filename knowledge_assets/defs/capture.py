"""The pipeline runner `knowledge-assets semantic-review capture` injects into the plain-Python
capture step: each case materialised in-process, exactly as `knowledge-assets run` does, into
the capture's private store and against a Dagster instance inside the capture's directory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg

from knowledge_assets.defs.launch import materialize_document
from knowledge_assets.semantic_review.capture import CaseRun, CaseRunner


@contextmanager
def _database(path: Path) -> Iterator[None]:
    # The store resource reads KNOWLEDGE_DB when a run starts; pointing it at the private store
    # for the run alone leaves the user's own store untouched.
    previous = os.environ.get("KNOWLEDGE_DB")
    os.environ["KNOWLEDGE_DB"] = str(path)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("KNOWLEDGE_DB", None)
        else:
            os.environ["KNOWLEDGE_DB"] = previous


@contextmanager
def pipeline_runner(instance_dir: Path) -> Iterator[CaseRunner]:
    # Telemetry off: its first-run banner would break the one-JSON-object standard output.
    overrides = {"telemetry": {"enabled": False}}
    with dg.DagsterInstance.local_temp(tempdir=str(instance_dir), overrides=overrides) as instance:

        def run(doc_id: str, database: Path) -> CaseRun:
            with _database(database):
                outcome = materialize_document(instance, doc_id)
            return CaseRun(outcome.success, outcome.run_id, outcome.error)

        yield run
