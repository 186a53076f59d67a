"""Review targets (docs/semantic_review.md §3): every accepted entity, every guarded field's
span, every gold obligation, and each case as a whole, for every planned case and repeat. Roles
and the case stay reviewable when a capture failed or returned nothing, so a gap cannot hide
behind an empty output. Each target carries what a reviewer judges: the captured item, the
located span, the obligation and its candidate entities (a name-match hint, never a verdict).
"""

from __future__ import annotations

from dataclasses import dataclass

from knowledge_assets.semantic_review.admission import AdmittedCase, Entity
from knowledge_assets.semantic_review.canonical import canonical_bytes
from knowledge_assets.semantic_review.vocabulary import (
    ENTITY_KINDS,
    ERROR_CODES,
    OUTPUT_REVIEW_FORMAT,
    TARGETS_FORMAT,
    allowed_verdicts,
)

# Which entity fields name what a gold item of each kind expects.
_NAME_FIELDS = {"term": ("term", "full_name"), "definition": ("term", "full_name"), "formula": ("name",),
                "rule": ("statement",)}
_ENTITY_OF_ROLE = {"term": "glossary", "definition": "glossary", "formula": "formula", "rule": "rule",
                   "domain": "domain_context"}


@dataclass(frozen=True)
class Target:
    key: dict
    allowed: tuple[str, ...]
    subject: dict

    @property
    def identity(self) -> bytes:
        return canonical_bytes(self.key)

    def entry(self) -> dict:
        return {"target": self.key, "allowedVerdicts": list(self.allowed), "subject": self.subject}


def _plain(text: object) -> str:
    return " ".join(text.casefold().split()) if isinstance(text, str) else ""


def _candidates(role: dict, entities: list[Entity]) -> list[str]:
    expected = role["expected"]
    names = {_plain(expected.get("canonical")), _plain(expected.get("abbreviation")), _plain(role.get("label"))} - {""}
    matches = []
    for entity in entities:
        if entity.kind.name != _ENTITY_OF_ROLE[role["kind"]]:
            continue
        values = {_plain(entity.item.get(name)) for name in _NAME_FIELDS.get(role["kind"], ())} - {""}
        if role["kind"] == "domain":
            hit = True  # one domain context per document
        elif role["kind"] == "rule":
            hit = any(n in v or v in n for n in names for v in values)
        else:
            hit = bool(values & names)
        if hit:
            matches.append(entity.entity_id)
    return matches


def _entity_targets(base: dict, entity: Entity) -> list[Target]:
    ident = {"entityKind": entity.kind.name, "entityId": entity.entity_id}
    targets = [Target({**base, "itemKind": "entity", **ident}, allowed_verdicts("entity"), {"item": entity.item})]
    targets.extend(
        Target({**base, "itemKind": "span", **ident, "field": span.field}, allowed_verdicts("span"),
               {"value": span.value, "verbatim": span.verbatim, "chunkId": span.chunk_id})
        for span in entity.spans
    )
    return targets


def case_targets(case: dict, repeat: int, record: dict | None, admitted: AdmittedCase) -> list[Target]:
    base = {"caseId": case["caseId"], "repeat": repeat}
    targets = [t for entity in admitted.entities for t in _entity_targets(base, entity)]
    for role in case["obligations"]:
        subject = {key: role[key] for key in ("kind", "coverage", "label", "expected")}
        subject["candidates"] = _candidates(role, admitted.entities)
        targets.append(Target({**base, "itemKind": "role", "roleKey": role["roleKey"]},
                              allowed_verdicts("role", role["coverage"]), subject))
    payloads = (record or {}).get("payloads") or {}
    targets.append(Target({**base, "itemKind": "case"}, allowed_verdicts("case"), {
        "status": record.get("status") if record else "unattempted",
        "error": record.get("error") if record else None,
        "source": case["source"],
        "entities": {kind.name: sum(1 for e in admitted.entities if e.kind == kind) for kind in ENTITY_KINDS},
        "rejectedFields": payloads.get("rejected.json"),
        "structuralProblems": admitted.problems,
    }))
    return targets


def targets_document(plan_id: str, captures_digest: str, targets: list[Target]) -> dict:
    return {
        "format": TARGETS_FORMAT,
        "planId": plan_id,
        "capturesDigest": captures_digest,
        "errorCodes": list(ERROR_CODES),
        "targets": [target.entry() for target in targets],
    }


def template_document(plan_id: str, captures_digest: str, targets: list[Target]) -> dict:
    """A receipt to complete: a blank one establishes nothing and is refused as a receipt."""
    return {
        "format": OUTPUT_REVIEW_FORMAT,
        "planId": plan_id,
        "capturesDigest": captures_digest,
        "reviewer": {"actorKind": None, "actorId": None},
        "independentHuman": None,
        "reviewedAt": None,
        "decisions": [{"target": t.key, "verdict": None, "errorCodes": [], "rationale": ""} for t in targets],
    }
