from knowledge_assets import contracts as c
from knowledge_assets.domain_derivations import aggregate_subdomains, complete_domain

PROVENANCE = c.Provenance(doc_id="D", span="Standar")


def _term(term: str, *tags: str) -> c.GlossaryEntry:
    return c.GlossaryEntry(term_id=f"t_{term}", term=term, subdomain_tags=list(tags), provenance=PROVENANCE)


def test_subdomains_are_ordered_by_frequency_then_alphabetically():
    glossary = [_term("a", "cost", "safety"), _term("b", "safety"), _term("c", "cost", "geology")]
    assert aggregate_subdomains(glossary) == ["cost", "safety", "geology"]


def test_a_completed_domain_counts_the_entries_it_comes_with():
    domain = c.DomainContext(domain_id="d_1", n_terms=9, provenance=PROVENANCE)
    rule = c.RuleEntry(rule_id="r_1", rule_type="calculation", provenance=PROVENANCE)
    completed = complete_domain(domain, [_term("a", "cost")], [], [rule, rule])
    assert (completed.subdomains, completed.n_terms, completed.n_formulas, completed.n_rules) == (["cost"], 1, 0, 2)
