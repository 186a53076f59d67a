"""The pipeline runner `knowledge-assets semantic-review capture` and `eval --corpus` inject into
their plain-Python steps: each case materialised in-process, exactly as `knowledge-assets run`
does, into the capture's private store and against a Dagster instance inside the capture's
directory.

The private store is the run's `knowledge_store` resource config (`materialize_document`'s
`store`), not an environment variable: `KNOWLEDGE_STORE` outranks `KNOWLEDGE_DB`, so with a
shared store configured (docs/operations.md) a run told its store through `KNOWLEDGE_DB` wrote
the shared store instead (issue 32)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg

from knowledge_assets.run_control.launch import materialize_document
from knowledge_assets.semantic_review.capture import CaseRun, CaseRunner


@contextmanager
def pipeline_runner(instance_dir: Path) -> Iterator[CaseRunner]:
    # Telemetry off: its first-run banner would break the one-JSON-object standard output.
    overrides = {"telemetry": {"enabled": False}}
    with dg.DagsterInstance.local_temp(tempdir=str(instance_dir), overrides=overrides) as instance:

        def run(doc_id: str, database: Path) -> CaseRun:
            outcome = materialize_document(instance, doc_id, store=str(database))
            return CaseRun(outcome.success, outcome.run_id, outcome.error)

        yield run
