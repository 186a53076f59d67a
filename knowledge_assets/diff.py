"""The diff stage: each glossary entry's `diff_status` against the document's previous glossary
version, and definition conflicts. The pipeline never picks a winner.

- `new`: the term had no definition in the previous version (or there was none);
- `duplicate`: the same definition as before (compared after span normalisation);
- `conflicting`: a different definition — `definition_conflict` is set and both wordings go to
  `conflict_variants`. Two different definitions of one term found inside one document are a
  conflict too, whatever the previous version held.
"""

from __future__ import annotations

from collections.abc import Iterable

from knowledge_assets.contracts import GlossaryEntry
from knowledge_assets.verify.spans import normalise


def _distinct(definitions: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for definition in definitions:
        seen.setdefault(normalise(definition), definition)
    return list(seen.values())


def diff_entry(
    entry: GlossaryEntry, previous_definition: str | None, in_document_variants: list[str] | None = None
) -> GlossaryEntry:
    current = [entry.definition] if entry.definition else []
    variants = _distinct([*current, *(in_document_variants or [])])
    if entry.definition is None or previous_definition is None:
        status = "new"
    elif normalise(previous_definition) == normalise(entry.definition):
        status = "duplicate"
    else:
        status = "conflicting"
        variants = _distinct([*variants, previous_definition])
    conflict = status == "conflicting" or len(variants) > 1
    return entry.model_copy(
        update={
            "diff_status": "conflicting" if conflict else status,
            "definition_conflict": conflict,
            "conflict_variants": variants if conflict else [],
        }
    )


def diff_glossary(
    entries: Iterable[GlossaryEntry],
    previous: dict[str, str | None],
    in_document_variants: dict[str, list[str]] | None = None,
) -> list[GlossaryEntry]:
    """`previous` maps term_id → definition in the previous glossary version of this document."""
    variants = in_document_variants or {}
    return [diff_entry(e, previous.get(e.term_id), variants.get(e.term_id)) for e in entries]
