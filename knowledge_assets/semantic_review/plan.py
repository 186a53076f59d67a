"""The plan (docs/semantic_review.md §2): the review scope frozen before any output is seen —
measurement, declaration time, split, repeats, every selected case with its frozen source, gold
and obligations, and explicit tolerance criteria with no defaults. `planId` is the digest of the
plan body, so any change to the plan is a different plan."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from knowledge_assets.semantic_review.bundle import Bundle, holds_captures
from knowledge_assets.semantic_review.canonical import (
    derived_id_holds,
    digest,
    read_document,
    read_object,
    with_derived_id,
)
from knowledge_assets.semantic_review.measurement import measurement
from knowledge_assets.semantic_review.refusal import Refusal
from knowledge_assets.semantic_review.timestamps import format_time, parse_time
from knowledge_assets.semantic_review.vocabulary import PLAN_FORMAT, REPEATS, SPLITS

PLAN_FILE = "plan.json"
LIMITS = ("maxConfirmedErrors", "maxRequiredGaps")
RATIONALES = ("confirmedErrorsRationale", "requiredGapsRationale")
CRITERIA = ("maxConfirmedErrors", "confirmedErrorsRationale", "maxRequiredGaps", "requiredGapsRationale")


def validate_criteria(criteria: object, where: str) -> dict:
    """All four fields, nothing else: a tolerance nobody wrote down is not a tolerance."""
    if not isinstance(criteria, dict):
        raise Refusal(f"{where}: expected a JSON object with {', '.join(CRITERIA)}")
    missing = [name for name in CRITERIA if name not in criteria]
    if missing:
        raise Refusal(f"{where}: missing {', '.join(missing)}; there are no default tolerances")
    unknown = sorted(set(criteria) - set(CRITERIA))
    if unknown:
        raise Refusal(f"{where}: unknown fields {', '.join(unknown)}")
    for name in LIMITS:
        value = criteria[name]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise Refusal(f"{where}: {name} must be a whole number >= 0, not {value!r}")
    for name in RATIONALES:
        if not isinstance(criteria[name], str) or not criteria[name].strip():
            raise Refusal(f"{where}: {name} must be a non-empty explanation")
    return {name: criteria[name] for name in CRITERIA}


def load_policy(path: Path) -> dict:
    _raw, policy = read_object(path, "policy")
    return validate_criteria(policy, f"policy {path}")


def _check_scope(split: str, repeats: int, where: str) -> None:
    if split not in SPLITS:
        raise Refusal(f"{where}: split must be one of {', '.join(SPLITS)}, not {split!r}")
    if isinstance(repeats, bool) or repeats not in REPEATS:
        raise Refusal(f"{where}: repeats must be one of {', '.join(map(str, REPEATS))}, not {repeats!r}")


def build_plan(bundle: Bundle, criteria: dict, split: str, repeats: int, now: datetime) -> dict:
    _check_scope(split, repeats, "prepare")
    seen = holds_captures(bundle.root)
    if seen is not None:
        raise Refusal(f"bundle {bundle.root}: already holds captures ({seen}); "
                      "a plan must be declared before outputs exist")
    cases = [case for case in bundle.cases.values() if case["split"] == split]
    if not cases:
        raise Refusal(f"bundle {bundle.root}: no case in split {split!r}")
    current = measurement(bundle.digest)
    body = {
        "format": PLAN_FORMAT,
        "measurementId": digest(current),
        "measurement": current,
        "declaredAt": format_time(now),
        "split": split,
        "repeats": repeats,
        "bundleDigest": bundle.digest,
        "cases": cases,
        "criteria": criteria,
    }
    return with_derived_id(body, "planId")


@dataclass(frozen=True)
class Plan:
    raw: bytes
    document: dict
    declared_at: datetime

    @property
    def plan_id(self) -> str:
        return self.document["planId"]

    @property
    def cases(self) -> list[dict]:
        return self.document["cases"]

    @property
    def repeats(self) -> int:
        return self.document["repeats"]


def load_plan(path: Path, bundle: Bundle) -> Plan:
    """The plan, refused unless it is intact, complete and declared over this very bundle."""
    raw, document = read_document(path, "plan", PLAN_FORMAT)
    where = f"plan {path}"
    validate_criteria(document.get("criteria"), f"{where}: criteria")
    _check_scope(document.get("split"), document.get("repeats"), where)
    if not derived_id_holds(document, "planId"):
        raise Refusal(f"{where}: planId is not the digest of the plan body; the plan was changed after it was declared")
    if document.get("bundleDigest") != bundle.digest:
        raise Refusal(f"{where}: declared over bundle {document.get('bundleDigest')}, "
                      f"not {bundle.root} ({bundle.digest})")
    cases = document.get("cases")
    if not isinstance(cases, list) or not cases:
        raise Refusal(f"{where}: no cases")
    for case in cases:
        if not isinstance(case, dict) or bundle.cases.get(case.get("caseId")) != case:
            raise Refusal(f"{where}: case {case.get('caseId') if isinstance(case, dict) else case!r} "
                          "differs from the bundle's")
    if (not isinstance(document.get("measurement"), dict)
            or document.get("measurementId") != digest(document["measurement"])):
        raise Refusal(f"{where}: measurementId is not the digest of its measurement")
    return Plan(raw, document, parse_time(document.get("declaredAt"), f"{where}: declaredAt"))
