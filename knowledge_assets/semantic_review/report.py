"""The conservative decision (docs/semantic_review.md §4). A known blocker beats pending review;
pending beats any conclusion; a complete, determinate review within the plan's limits is
exploratory unless an independent human other than a gold author declared it and every case's
gold is ready. `reportId` is the digest of the whole report, receipt digests and the tool digest
included."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from knowledge_assets.semantic_review.canonical import with_derived_id
from knowledge_assets.semantic_review.captured import Captures
from knowledge_assets.semantic_review.measurement import tool_digest
from knowledge_assets.semantic_review.plan import Plan
from knowledge_assets.semantic_review.receipt import Receipt
from knowledge_assets.semantic_review.references import Readiness
from knowledge_assets.semantic_review.targets import Target
from knowledge_assets.semantic_review.vocabulary import CRITICAL_ERROR_CODES, ITEM_KINDS, REPORT_FORMAT, VERDICTS

LIMITATIONS = (
    "The capture names its plan and start time: the review binds the declaration time and the exact capture "
    "bytes, which cannot prove that the execution itself enforced the plan.",
    "Counts are review-decision counts, not independent root causes or population accuracy; zero observed "
    "errors does not mean zero risk.",
    "Review times and reviewer independence are attestations, not proof that anyone read the evidence or "
    "judged it correctly.",
    "accepted_within_scope covers only the planned cases and this evidence: it is not real-world "
    "precision/recall, release readiness or a verified fact base.",
    "Reviewing these captures again is reanalysis, not a new model execution or a fresh sample.",
)


@dataclass(frozen=True)
class Evidence:
    plan: Plan
    captures: Captures
    receipt: Receipt | None
    targets: list[Target]
    engineering: list[str]
    readiness: dict[str, Readiness]
    reference_digests: dict[str, dict[str, str | None]]


def _limit(count: int, maximum: int) -> dict:
    return {"count": count, "max": maximum, "exceeded": count > maximum}


def _coverage(targets: list[Target], decided: set[bytes], uncertain: int) -> dict:
    by_kind = {kind: {"targets": 0, "decided": 0} for kind in ITEM_KINDS}
    for target in targets:
        by_kind[target.key["itemKind"]]["targets"] += 1
        by_kind[target.key["itemKind"]]["decided"] += target.identity in decided
    return {"targets": len(targets), "decided": len(decided), "undecided": len(targets) - len(decided),
            "uncertain": uncertain, "byItemKind": by_kind}


def _usage(record: dict) -> dict | None:
    """Spend as the capture recorded it; a failed case's spend stays unknown, never estimated."""
    calls = (record.get("payloads") or {}).get("usage.json")
    if record.get("status") != "ok" or not isinstance(calls, list):
        return None
    totals = {"usageRows": len(calls)}
    for name in ("prompt_tokens", "cached_tokens", "completion_tokens"):
        totals[name] = sum(value for call in calls
                           if isinstance(call, dict) and isinstance(value := call.get(name), int))
    return {"caseId": record.get("caseId"), "repeat": record.get("repeat"), **totals}


def _conclusion(receipt: Receipt, readiness: dict[str, Readiness]) -> tuple[str, list[str]]:
    """Why no blocker and no pending item still falls short of acceptance, if it does."""
    reasons = []
    if receipt.reviewer["actorKind"] != "human":
        reasons.append(f"reviewed by an agent ({receipt.reviewer['actorId']}): "
                       "AI review cannot supply independent acceptance")
    elif not receipt.independent_human:
        reasons.append(f"{receipt.reviewer['actorId']} did not declare independent human review")
    for case in readiness.values():
        reasons.extend(case.reasons)
    if reasons:
        return "exploratory_reviewed", reasons
    return "accepted_within_scope", [
        "complete determinate review within the plan's limits by an independent human; every gold ready"
    ]


def derive_report(evidence: Evidence) -> dict:
    plan, captures, receipt = evidence.plan, evidence.captures, evidence.receipt
    criteria = plan.document["criteria"]
    decisions = receipt.decisions if receipt else []
    verdicts = Counter(decision.verdict for decision in decisions)
    errors = _limit(verdicts["incorrect"], criteria["maxConfirmedErrors"])
    gaps = _limit(verdicts["required_missing"], criteria["maxRequiredGaps"])
    blockers = {
        "engineering": evidence.engineering,
        "reference": [b for readiness in evidence.readiness.values() for b in readiness.blockers],
        "semantic": [
            {"target": d.target.key, "errorCodes": sorted(CRITICAL_ERROR_CODES & set(d.error_codes)),
             "rationale": d.rationale}
            for d in decisions if d.verdict == "incorrect" and CRITICAL_ERROR_CODES & set(d.error_codes)
        ],
        "threshold": [f"{limit['count']} {name} exceed the plan's limit of {limit['max']}"
                      for name, limit in (("confirmed errors", errors), ("required gaps", gaps)) if limit["exceeded"]],
    }
    coverage = _coverage(evidence.targets, {d.target.identity for d in decisions}, verdicts["uncertain"])
    pending = []
    if receipt is None:
        pending.append(f"no output-review receipt: {coverage['targets']} targets await review")
    elif coverage["undecided"]:
        pending.append(f"{coverage['undecided']} of {coverage['targets']} targets have no decision")
    if coverage["uncertain"]:
        pending.append(f"uncertain decisions remain unresolved: {coverage['uncertain']}")
    known = [*blockers["engineering"], *blockers["reference"], *blockers["threshold"]]
    known += [f"critical error ({', '.join(b['errorCodes'])}) on {b['target']}" for b in blockers["semantic"]]
    if known:
        state, reasons = "blocked", known + pending
    elif pending:
        state, reasons = "pending", pending
    else:
        state, reasons = _conclusion(receipt, evidence.readiness)
    body = {
        "format": REPORT_FORMAT,
        "state": state,
        "reasons": reasons,
        "planId": plan.plan_id,
        "measurementId": plan.document["measurementId"],
        "bundleDigest": plan.document["bundleDigest"],
        "capturesDigest": captures.digest,
        "outputReviewDigest": receipt.digest if receipt else None,
        "referenceReceiptDigests": evidence.reference_digests,
        "toolDigest": tool_digest(),
        "scope": {"split": plan.document["split"], "repeats": plan.repeats, "cases": [c["caseId"] for c in plan.cases]},
        "criteria": criteria,
        "blockers": blockers,
        "counts": {"countingUnit": "review-decision", "confirmedErrors": errors, "requiredGaps": gaps,
                   "verdicts": {verdict: verdicts[verdict] for verdict in VERDICTS}},
        "coverage": coverage,
        "review": None if receipt is None else {
            "reviewer": receipt.reviewer, "independentHuman": receipt.independent_human,
            "reviewedAt": receipt.reviewed_at},
        "referenceReadiness": {case_id: {"ready": r.ready, "reasons": r.reasons, "blockers": r.blockers}
                               for case_id, r in evidence.readiness.items()},
        "capture": {
            **{key: captures.document.get(key) for key in
               ("startedAt", "completedAt", "backend", "model", "tier", "endpoint", "promptSha256", "modelCalls")},
            "usage": [_usage(record) for record in captures.records.values()],
        },
        "limitations": list(LIMITATIONS),
    }
    return with_derived_id(body, "reportId")
