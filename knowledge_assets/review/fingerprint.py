"""The fingerprint of what a reviewer judged: a hash of the entity's content fields only.

An approval is a judgement about content, so only content feeds the hash. Left out, because a
re-run may move them while the content stays the same:
  - ids and links (`term_id`, `defining_formula_id`, `formula_ids`, `term_ids`, a variable's
    or key parameter's `term_id`): set by deterministic code, not judged;
  - counts and aggregates (`mention_count`, `n_*`, `subdomains`): they follow other entities;
  - statuses (`extraction_status`, `diff_status`, `definition_conflict`, `conflict_variants`,
    `latex_verification`): `conflict_variants` in particular holds the previous run's wording,
    so it changes on the run after any edit even when this run's content is unchanged;
  - provenance: where the content was found, which the span check verifies on every run.
Strings are compared as the span check compares them (NFKC, whitespace collapsed), so a model
re-wrapping a line is not a change. Order is kept where it carries meaning (an outline, a
formula's variables) and dropped where it does not (tags, key-parameter surfaces).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

from knowledge_assets.branches import DOMAIN_CONTEXT, FORMULA, GLOSSARY, BranchTable
from knowledge_assets.review.entities import KEY_PARAMETER, Kind
from knowledge_assets.verify.spans import normalise

# 64 bits of the hash: a person can copy it, and no two contents of an entry share it by chance.
SHORT_DIGITS = 16
CONTENT_FIELDS: BranchTable[tuple[str, ...]] = BranchTable(
    lambda spec: spec.review_kind, lambda spec: spec.content_fields, extra={KEY_PARAMETER: ("surface",)})


def _text(value: str | None) -> str | None:
    return None if value is None else normalise(value)


def reviewed_content(kind: Kind, entity: BaseModel) -> dict[str, Any]:
    """The content fields of `entity`, normalised: what the fingerprint hashes."""
    data = entity.model_dump(include=set(CONTENT_FIELDS[kind]))
    if kind == GLOSSARY.review_kind:
        data["subdomain_tags"] = sorted(data["subdomain_tags"])
    if kind == FORMULA.review_kind:
        data["variables"] = [{"symbol": _text(v["symbol"]), "meaning": _text(v["meaning"])} for v in data["variables"]]
    if kind == DOMAIN_CONTEXT.review_kind:
        data["outline"] = [_text(h) for h in data["outline"]]
        data["key_parameters"] = sorted({_text(p["surface"]) for p in data["key_parameters"]})
    return {name: _text(value) if isinstance(value, str) else value for name, value in data.items()}


def fingerprint(content: dict[str, Any]) -> str:
    canonical = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def short_fingerprint(value: str) -> str:
    """`sha256:` and the first 16 hex digits: what a person reads, and types back as `--seen`."""
    return "sha256:" + value.removeprefix("sha256:")[:SHORT_DIGITS]


def changed_fields(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [name for name in after if before.get(name) != after[name]]
