"""A captures file as a review reads it: its exact bytes bound by digest, its plan and bundle
identities checked, and its start time checked against the plan: declaredAt <= startedAt <= now.

The check binds the declaration time and the capture bytes; it cannot prove that the original
execution enforced the plan. That limit stays in every report."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from knowledge_assets.semantic_review.canonical import read_document, sha256_hex
from knowledge_assets.semantic_review.plan import Plan
from knowledge_assets.semantic_review.refusal import Refusal
from knowledge_assets.semantic_review.timestamps import parse_time
from knowledge_assets.semantic_review.vocabulary import CAPTURES_FORMAT


@dataclass(frozen=True)
class Captures:
    raw: bytes
    digest: str
    document: dict
    started_at: datetime
    completed_at: datetime
    records: dict[tuple[str, int], dict]


def _records(document: dict, where: str) -> dict[tuple[str, int], dict]:
    records: dict[tuple[str, int], dict] = {}
    if not isinstance(document.get("records"), list):
        raise Refusal(f"{where}: records must be a list")
    for record in document["records"]:
        if not isinstance(record, dict) or not isinstance(record.get("caseId"), str) \
                or isinstance(record.get("repeat"), bool) or not isinstance(record.get("repeat"), int):
            raise Refusal(f"{where}: every record needs a caseId and a whole-number repeat")
        key = (record["caseId"], record["repeat"])
        if key in records:
            raise Refusal(f"{where}: two records for case {key[0]} repeat {key[1]}")
        records[key] = record
    return records


def load_captures(path: Path, plan: Plan, now: datetime) -> Captures:
    raw, document = read_document(path, "captures", CAPTURES_FORMAT)
    where = f"captures {path}"
    if document.get("planId") != plan.plan_id:
        raise Refusal(f"{where}: captured for plan {document.get('planId')}, not {plan.plan_id}")
    if document.get("bundleDigest") != plan.document["bundleDigest"]:
        raise Refusal(f"{where}: captured from bundle {document.get('bundleDigest')}, not the plan's")
    started = parse_time(document.get("startedAt"), f"{where}: startedAt")
    completed = parse_time(document.get("completedAt"), f"{where}: completedAt")
    if started < plan.declared_at:
        raise Refusal(f"{where}: started at {document['startedAt']}, before the plan was declared "
                      f"({plan.document['declaredAt']}); a plan declared after its outputs is not admissible")
    if started > now or completed > now:
        raise Refusal(f"{where}: claims a time after now ({document['startedAt']} / {document['completedAt']})")
    if completed < started:
        raise Refusal(f"{where}: completed at {document['completedAt']}, before it started")
    return Captures(raw, sha256_hex(raw), document, started, completed, _records(document, where))
