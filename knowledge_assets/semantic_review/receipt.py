"""The output-review receipt (docs/semantic_review.md §3): reviewer declarations and itemwise
decisions bound to the plan and to the exact capture bytes. Everything is checked before
anything is written; a decision left with `verdict: null` is undecided (the review stays
pending), anything else malformed refuses the receipt."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from knowledge_assets.semantic_review.canonical import canonical_bytes, read_document, sha256_hex
from knowledge_assets.semantic_review.captured import Captures
from knowledge_assets.semantic_review.plan import Plan
from knowledge_assets.semantic_review.references import reviewer_declaration
from knowledge_assets.semantic_review.refusal import Refusal
from knowledge_assets.semantic_review.targets import Target
from knowledge_assets.semantic_review.timestamps import parse_time
from knowledge_assets.semantic_review.vocabulary import ERROR_CODES, OUTPUT_REVIEW_FORMAT, VERDICTS


@dataclass(frozen=True)
class Decision:
    target: Target
    verdict: str
    error_codes: tuple[str, ...]
    rationale: str


@dataclass(frozen=True)
class Receipt:
    raw: bytes
    digest: str
    reviewer: dict
    independent_human: bool
    reviewed_at: str
    decisions: list[Decision]


def _decision(entry: object, targets: dict[bytes, Target], where: str) -> Decision | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("target"), dict):
        raise Refusal(f"{where}: expected an object with a target")
    target = targets.get(canonical_bytes(entry["target"]))
    if target is None:
        raise Refusal(f"{where}: {entry['target']} is not a target of this review")
    verdict = entry.get("verdict")
    if verdict is None:
        return None
    if verdict not in VERDICTS:
        raise Refusal(f"{where}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
    if verdict not in target.allowed:
        raise Refusal(f"{where}: verdict {verdict!r} does not fit this target (allowed: {', '.join(target.allowed)})")
    codes = entry.get("errorCodes", [])
    if not isinstance(codes, list) or not all(isinstance(code, str) for code in codes) \
            or len(set(codes)) != len(codes) or not set(codes) <= set(ERROR_CODES):
        raise Refusal(f"{where}: errorCodes must be distinct codes from: {', '.join(ERROR_CODES)}")
    if verdict == "incorrect" and not codes:
        raise Refusal(f"{where}: an incorrect decision names at least one error code")
    if verdict in ("correct", "optional_not_selected") and codes:
        raise Refusal(f"{where}: a {verdict} decision carries no error code")
    rationale = entry.get("rationale")
    if not isinstance(rationale, str) or not rationale.strip():
        raise Refusal(f"{where}: every decision needs a non-empty rationale")
    return Decision(target, verdict, tuple(codes), rationale)


def load_receipt(path: Path, plan: Plan, captures: Captures, targets: list[Target], authors: set[str],
                 now: datetime) -> Receipt:
    raw, document = read_document(path, "receipt", OUTPUT_REVIEW_FORMAT)
    where = f"receipt {path}"
    if document.get("planId") != plan.plan_id:
        raise Refusal(f"{where}: reviews plan {document.get('planId')}, not {plan.plan_id}")
    if document.get("capturesDigest") != captures.digest:
        raise Refusal(f"{where}: capture digest mismatch: the receipt reviewed captures "
                      f"{document.get('capturesDigest')}, the captures given have {captures.digest}")
    reviewer, independent = reviewer_declaration(document, where)
    if independent and reviewer["actorId"] in authors:
        raise Refusal(f"{where}: {reviewer['actorId']} authored the gold and cannot declare independent review")
    reviewed_at = parse_time(document.get("reviewedAt"), f"{where}: reviewedAt")
    if not captures.completed_at <= reviewed_at <= now:
        raise Refusal(f"{where}: reviewedAt {document['reviewedAt']} must lie between the capture's completion "
                      f"({captures.document['completedAt']}) and now")
    if not isinstance(document.get("decisions"), list):
        raise Refusal(f"{where}: decisions must be a list")
    by_identity = {target.identity: target for target in targets}
    decisions, seen = [], set()
    for index, entry in enumerate(document["decisions"]):
        decision = _decision(entry, by_identity, f"{where}: decisions[{index}]")
        identity = canonical_bytes(entry["target"])
        if identity in seen:
            raise Refusal(f"{where}: decisions[{index}] repeats the target {entry['target']}")
        seen.add(identity)
        if decision is not None:
            decisions.append(decision)
    return Receipt(raw, sha256_hex(raw), reviewer, independent, document["reviewedAt"], decisions)
