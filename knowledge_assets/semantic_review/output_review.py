"""`review`: enumerate the targets of a captured plan, check a receipt if one is given, and
derive the report. It makes no model call: it reads files, parses the frozen sources again and
writes new evidence, nothing else.

    <output>/bundle.json, plan.json, captures.json   the inputs, byte for byte
    <output>/references/<caseId>/*.json              the gold's reference records, byte for byte
    <output>/output-review.json                      the receipt, byte for byte (when given)
    <output>/review-targets.json                     every target, what it shows, its verdicts
    <output>/review-template.json                    a receipt to complete
    <output>/report.json                             state, blockers, counts, coverage, digests
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from knowledge_assets.contracts import Chunk
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document
from knowledge_assets.semantic_review.admission import AdmittedCase, admit
from knowledge_assets.semantic_review.bundle import BUNDLE_FILE, CAPTURES_FILE, Bundle
from knowledge_assets.semantic_review.canonical import read_json, sha256_hex
from knowledge_assets.semantic_review.captured import Captures
from knowledge_assets.semantic_review.measurement import checker_measurement, differences
from knowledge_assets.semantic_review.outputs import EvidenceWriter
from knowledge_assets.semantic_review.plan import PLAN_FILE, Plan
from knowledge_assets.semantic_review.receipt import load_receipt
from knowledge_assets.semantic_review.references import RECORDS, readiness, validate_record
from knowledge_assets.semantic_review.report import Evidence, derive_report
from knowledge_assets.semantic_review.targets import Target, case_targets, targets_document, template_document

RECEIPT_FILE = "output-review.json"
TARGETS_FILE = "review-targets.json"
TEMPLATE_FILE = "review-template.json"
REPORT_FILE = "report.json"


def _plan_blockers(plan: Plan, captures: Captures) -> list[str]:
    declared = plan.document["measurement"]
    captured = captures.document.get("measurement")
    captured = captured if isinstance(captured, dict) else {}
    blockers = [f"the capture ran with a different {key} than the plan declared"
                for key in differences(declared, {key: captured.get(key) for key in declared})]
    blockers += [f"this review runs with a different {key} than the plan declared; review with the original build"
                 for key in differences(declared, checker_measurement())]
    planned = {(case["caseId"], repeat) for case in plan.cases for repeat in range(1, plan.repeats + 1)}
    blockers += [f"the capture holds case {case_id} repeat {repeat}, which the plan did not select"
                 for case_id, repeat in sorted(set(captures.records) - planned)]
    return blockers


def _chunks(bundle: Bundle, case: dict) -> dict[str, Chunk]:
    parsed = parse_document(identify(bundle.path(case["source"]), case["caseId"]))
    return {chunk.chunk_id: chunk for chunk in parsed.chunks}


def _admitted(bundle: Bundle, case: dict, record: dict | None, repeat: int, blockers: list[str]) -> AdmittedCase:
    where = f"case {case['caseId']} repeat {repeat}"
    if record is None:
        blockers.append(f"{where}: unattempted (no capture record)")
        return AdmittedCase()
    if record.get("status") != "ok":
        blockers.append(f"{where}: capture failed: {record.get('error') or 'no reason recorded'}")
        return AdmittedCase()
    if record.get("sourceSha256") != case["source"]["sha256"]:
        blockers.append(f"{where}: captured from source bytes other than the bundle's")
        return AdmittedCase()
    try:
        chunks = _chunks(bundle, case)
    except DocumentError as exc:
        blockers.append(f"{where}: the frozen source cannot be parsed again ({exc})")
        return AdmittedCase()
    admitted = admit(case["caseId"], record.get("payloads"), chunks)
    blockers.extend(f"{where}: {problem}" for problem in admitted.problems)
    return admitted


def review_targets(bundle: Bundle, plan: Plan, captures: Captures) -> tuple[list[Target], list[str]]:
    """Every target of the plan, and the engineering blockers found on the way."""
    blockers = _plan_blockers(plan, captures)
    targets: list[Target] = []
    for case in plan.cases:
        for repeat in range(1, plan.repeats + 1):
            record = captures.records.get((case["caseId"], repeat))
            admitted = _admitted(bundle, case, record, repeat, blockers)
            targets.extend(case_targets(case, repeat, record, admitted))
    return targets, blockers


@dataclass(frozen=True)
class FrozenRecord:
    """A reference record as the bundle froze it: copied verbatim, judged as validated."""

    file_name: str
    raw: bytes
    record: dict

    @property
    def digest(self) -> str:
        return sha256_hex(self.raw)


def reference_records(bundle: Bundle, case: dict) -> dict[str, FrozenRecord | None]:
    found: dict[str, FrozenRecord | None] = {}
    for name in RECORDS:
        entry = case.get("references", {}).get(name)
        if entry is None:
            found[name] = None
            continue
        path = bundle.path(entry)
        raw, data = read_json(path, "reference record")
        found[name] = FrozenRecord(path.name, raw,
                                   validate_record(data, path, name, case["caseId"], case["gold"]["sha256"]))
    return found


def run_review(bundle: Bundle, plan: Plan, captures: Captures, receipt_path: Path | None, output: Path,
               now: datetime) -> dict:
    """Checks everything, then writes: a refused receipt leaves no output behind."""
    targets, engineering = review_targets(bundle, plan, captures)
    references = {case["caseId"]: reference_records(bundle, case) for case in plan.cases}
    readiness_by_case = {
        case_id: readiness(case_id, {name: found and found.record for name, found in records.items()})
        for case_id, records in references.items()
    }
    authors = {author for case in readiness_by_case.values() for author in case.authors}
    receipt = None if receipt_path is None else load_receipt(receipt_path, plan, captures, targets, authors, now)
    report = derive_report(Evidence(
        plan=plan, captures=captures, receipt=receipt, targets=targets, engineering=engineering,
        readiness=readiness_by_case,
        reference_digests={case_id: {name: found and found.digest for name, found in records.items()}
                           for case_id, records in references.items()},
    ))
    writer = EvidenceWriter(output)
    writer.create()
    writer.write_bytes(BUNDLE_FILE, bundle.raw)
    writer.write_bytes(PLAN_FILE, plan.raw)
    writer.write_bytes(CAPTURES_FILE, captures.raw)
    for case_id, records in references.items():
        for found in records.values():
            if found is not None:
                writer.write_bytes(f"references/{case_id}/{found.file_name}", found.raw)
    if receipt is not None:
        writer.write_bytes(RECEIPT_FILE, receipt.raw)
    writer.write_json(TARGETS_FILE, targets_document(plan.plan_id, captures.digest, targets))
    writer.write_json(TEMPLATE_FILE, template_document(plan.plan_id, captures.digest, targets))
    writer.write_json(REPORT_FILE, report)
    return report
