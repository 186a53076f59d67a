"""Capture: the only step that may call a model. It runs the pipeline over the plan's cases,
each repeat into its own private store inside the output directory (so no repeat is served
from another's response cache or diffed against another's glossary), and exports the contract
payloads of each case into `captures.json` with startedAt, completedAt, backend, model and the
prompt hashes.

The pipeline runner is injected: this package never imports Dagster, and the CLI passes the
one in `knowledge_assets.run_control.pipeline_runner`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from knowledge_assets.export import ExportError, export_document
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import identify
from knowledge_assets.llm.model_settings import OFFLINE_DEPLOYMENT, SettingsError, resolve_settings
from knowledge_assets.semantic_review.bundle import CAPTURES_FILE, Bundle
from knowledge_assets.semantic_review.measurement import measurement
from knowledge_assets.semantic_review.outputs import EvidenceWriter, seal
from knowledge_assets.semantic_review.plan import Plan
from knowledge_assets.semantic_review.refusal import Refusal
from knowledge_assets.semantic_review.timestamps import format_time
from knowledge_assets.semantic_review.vocabulary import CAPTURES_FORMAT
from knowledge_assets.store.audit import model_call_count
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.registry import register


@dataclass(frozen=True)
class CaseRun:
    success: bool
    run_id: str | None
    error: str | None


# (doc_id, DuckDB file) → how materialising that document's partition into that file went.
CaseRunner = Callable[[str, Path], CaseRun]
# Opens a runner whose own state (a Dagster instance) lives in the given directory.
OpenRunner = Callable[[Path], AbstractContextManager[CaseRunner]]


def _capture_case(bundle: Bundle, case: dict, repeat: int, store: DuckDBStore, run: CaseRunner) -> dict:
    """One case's record; its payloads are the files `knowledge-assets export` writes, kept
    beside the private store and read back, so a capture is exactly an export of the run."""
    record = {"caseId": case["caseId"], "repeat": repeat, "sourceSha256": case["source"]["sha256"],
              "status": "failed", "runId": None, "error": None, "payloads": None}
    try:
        register(store, identify(bundle.path(case["source"]), case["caseId"]))
    except DocumentError as exc:
        record["error"] = str(exc)
        return record
    outcome = run(case["caseId"], store.path)
    record["runId"] = outcome.run_id
    if not outcome.success:
        record["error"] = outcome.error or "the run failed"
        return record
    try:
        written = export_document(store, case["caseId"], store.path.parent / "export" / case["caseId"])
    except ExportError as exc:
        record["error"] = str(exc)
        return record
    record.update(status="ok", payloads={path.name: json.loads(path.read_text(encoding="utf-8")) for path in written})
    return record


def run_capture(
    bundle: Bundle, plan: Plan, output: Path, open_runner: OpenRunner, clock: Callable[[], datetime]
) -> dict:
    try:
        settings = resolve_settings()
    except SettingsError as exc:
        raise Refusal(str(exc)) from None
    writer = EvidenceWriter(output)
    writer.create()
    started = clock()
    recorded = measurement(bundle.digest)
    records, calls = [], 0
    with open_runner(writer.directory("work/dagster")) as run:
        for repeat in range(1, plan.repeats + 1):
            store = DuckDBStore(writer.directory(f"work/repeat-{repeat}") / "knowledge.duckdb")
            records.extend(_capture_case(bundle, case, repeat, store, run) for case in plan.cases)
            # Requests that reached a model: the offline extractor and cache replays are not calls.
            calls += model_call_count(store, except_deployment=OFFLINE_DEPLOYMENT)
    document = {
        "format": CAPTURES_FORMAT,
        "planId": plan.plan_id,
        "bundleDigest": bundle.digest,
        "startedAt": format_time(started),
        "completedAt": format_time(clock()),
        "backend": settings.backend,
        "model": settings.deployment,
        "tier": settings.tier,
        "endpoint": settings.describe().get("llm_endpoint"),
        "promptSha256": recorded["promptSha256"],
        "measurement": recorded,
        "modelCalls": calls,
        "records": records,
    }
    writer.write_json(CAPTURES_FILE, document)
    seal(output)
    return document
