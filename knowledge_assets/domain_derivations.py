"""What a domain context derives from the entries it comes with: its subdomains and its counts.

Shared by the extraction (over everything extracted) and the approved-only export (over what an
expert approved), so it sits below both: the review does not import the extraction to recompute
a domain, and the two cannot drift apart on how the aggregate is taken.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from knowledge_assets.contracts import DomainContext, FormulaEntry, GlossaryEntry, RuleEntry


def aggregate_subdomains(glossary: Sequence[GlossaryEntry]) -> list[str]:
    """Tag frequency descending, alphabetical tiebreak, so two runs of one document agree."""
    counts = Counter(tag for entry in glossary for tag in entry.subdomain_tags)
    return [tag for tag, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def complete_domain(
    domain: DomainContext,
    glossary: Sequence[GlossaryEntry],
    formulas: Sequence[FormulaEntry],
    rules: Sequence[RuleEntry],
) -> DomainContext:
    return domain.model_copy(update={
        "subdomains": aggregate_subdomains(glossary),
        "n_terms": len(glossary),
        "n_formulas": len(formulas),
        "n_rules": len(rules),
    })
