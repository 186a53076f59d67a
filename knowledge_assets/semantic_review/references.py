"""Pre-output reference readiness: the protocol's two-record review of the gold itself.

Beside `<doc_id>.json` the gold folder may hold `<doc_id>.reference-self-review.json` (the
gold's author reviewing it) and `<doc_id>.reference-review.json` (an independent reviewer).
Each binds the gold file's exact bytes by `goldSha256`. The gold is ready only when both say
`ready` and the second comes from a human declared independent who is not the author; a record
requesting changes blocks every review of that case rather than being overridden by one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from knowledge_assets.semantic_review.refusal import Refusal
from knowledge_assets.semantic_review.timestamps import parse_time
from knowledge_assets.semantic_review.vocabulary import REFERENCE_REVIEW_FORMAT

# record key in a bundle → (file suffix in the gold folder, the role the record must declare)
RECORDS = {
    "selfReview": (".reference-self-review.json", "author"),
    "review": (".reference-review.json", "independent"),
}
DECISIONS = ("ready", "changes_requested")


def reviewer_declaration(data: dict, where: str) -> tuple[dict, bool]:
    """The reviewer and the independence claim, shared by reference records and output
    receipts: an agent can never attest independent human review."""
    reviewer = data.get("reviewer")
    if not isinstance(reviewer, dict) or reviewer.get("actorKind") not in ("agent", "human"):
        raise Refusal(f"{where}: reviewer.actorKind must be 'agent' or 'human'")
    if not isinstance(reviewer.get("actorId"), str) or not reviewer["actorId"].strip():
        raise Refusal(f"{where}: reviewer.actorId must be a non-empty string")
    independent = data.get("independentHuman")
    if not isinstance(independent, bool):
        raise Refusal(f"{where}: independentHuman must be true or false")
    if independent and reviewer["actorKind"] == "agent":
        raise Refusal(f"{where}: an agent ({reviewer['actorId']}) cannot attest independent human review")
    return {"actorKind": reviewer["actorKind"], "actorId": reviewer["actorId"]}, independent


def validate_record(data: object, origin: Path, record: str, case_id: str, gold_sha256: str) -> dict:
    where = f"reference record {origin}"
    if not isinstance(data, dict) or data.get("format") != REFERENCE_REVIEW_FORMAT:
        raise Refusal(f"{where}: expected a JSON object with format {REFERENCE_REVIEW_FORMAT!r}")
    role = RECORDS[record][1]
    if data.get("role") != role:
        raise Refusal(f"{where}: role must be {role!r} for this file name, not {data.get('role')!r}")
    if data.get("caseId") != case_id:
        raise Refusal(f"{where}: caseId {data.get('caseId')!r}, expected {case_id!r}")
    if data.get("goldSha256") != gold_sha256:
        raise Refusal(f"{where}: goldSha256 does not match the gold file's bytes ({gold_sha256})")
    if data.get("decision") not in DECISIONS:
        raise Refusal(f"{where}: decision must be one of {', '.join(DECISIONS)}")
    if not isinstance(data.get("rationale"), str) or not data["rationale"].strip():
        raise Refusal(f"{where}: rationale must be a non-empty string")
    parse_time(data.get("reviewedAt"), f"{where}: reviewedAt")
    reviewer_declaration(data, where)
    return data


@dataclass
class Readiness:
    ready: bool
    reasons: list[str] = field(default_factory=list)
    blockers: list[str] = field(default_factory=list)
    authors: set[str] = field(default_factory=set)


def readiness(case_id: str, records: dict[str, dict | None]) -> Readiness:
    """`records` maps each key of RECORDS to its validated record, or None when absent."""
    result = Readiness(ready=False)
    author, independent = records.get("selfReview"), records.get("review")
    for name, record in records.items():
        if record is not None and record["decision"] == "changes_requested":
            result.blockers.append(f"case {case_id}: the reference {name} requests changes to the gold")
    if author is None:
        result.reasons.append(f"case {case_id}: no reference self-review by the gold's author")
    else:
        result.authors.add(author["reviewer"]["actorId"])
    if independent is None:
        result.reasons.append(f"case {case_id}: no independent reference review")
    elif independent["reviewer"]["actorKind"] != "human" or not independent["independentHuman"]:
        result.reasons.append(f"case {case_id}: the reference review is not declared by an independent human")
    elif independent["reviewer"]["actorId"] in result.authors:
        result.reasons.append(f"case {case_id}: the reference review comes from the gold's author")
    result.ready = not result.reasons and not result.blockers
    return result
