"""What the fingerprint hashes: the content a reviewer judged, not ids, links, counts, statuses
or locations, which a re-run may move while the content stays the same."""

import pytest

from knowledge_assets import contracts as c
from knowledge_assets.review.fingerprint import changed_fields, fingerprint, reviewed_content

PROVENANCE = c.Provenance(doc_id="D", span="PA adalah ketersediaan fisik.", page=2, section_no="2.1.3",
                          chunk_id="D::0007")
TERM = c.GlossaryEntry(
    term_id="t_0000000001", term="PA", full_name="Physical Availability",
    source_wording="2.1.3. Physical of Availability (PA)", definition="PA adalah ketersediaan fisik.",
    defining_formula_id="f_0000000001", subdomain_tags=["equipment", "maintenance"], mention_count=43,
    provenance=PROVENANCE,
)
FORMULA = c.FormulaEntry(
    formula_id="f_0000000001", name="PA", formula_latex="PA = (MOHH - BD) / MOHH", unit="%",
    variables=[c.FormulaVariable(symbol="MOHH", term_id="t_0000000002", meaning="Machine on Hand Hours")],
    latex_verification="unverified_no_markup", provenance=PROVENANCE,
)
RULE = c.RuleEntry(
    rule_id="r_0000000001", rule_type="calculation", statement=None, condition="Apabila data belum tersedia",
    consequence="maka digunakan truck count", formula_ids=["f_0000000001"], term_ids=["t_0000000001"],
    provenance=PROVENANCE,
)
DOMAIN = c.DomainContext(
    domain_id="d_0000000001", title="Standard Parameter", purpose_verbatim="Pedoman perhitungan.",
    outline=["1. TUJUAN"],
    key_parameters=[c.KeyParameter(surface="PA", term_id="t_0000000001"), c.KeyParameter(surface="ECA")],
    subdomains=["production"], n_terms=5, n_formulas=2, n_rules=1, provenance=PROVENANCE,
)
ENTITIES = {"term": TERM, "formula": FORMULA, "rule": RULE, "domain": DOMAIN,
            "key_parameter": c.KeyParameter(surface="ECA")}


def _print(kind, entity):
    return fingerprint(reviewed_content(kind, entity))


@pytest.mark.parametrize(("kind", "update"), [
    ("term", {"term_id": "t_0000000009", "defining_formula_id": None, "mention_count": 1, "diff_status": "duplicate",
              "definition_conflict": True, "conflict_variants": ["a", "b"], "extraction_status": "escalated",
              "subdomain_tags": ["maintenance", "equipment"],
              "provenance": c.Provenance(doc_id="D", span="PA", page=5, chunk_id="D::0012")}),
    ("formula", {"latex_verification": "verified",
                 "variables": [c.FormulaVariable(symbol="MOHH", term_id=None, meaning="Machine on Hand Hours")]}),
    ("rule", {"rule_id": "r_0000000009", "formula_ids": [], "term_ids": []}),
    ("domain", {"subdomains": ["maintenance"], "n_terms": 50, "n_formulas": 0, "n_rules": 9,
                "key_parameters": [c.KeyParameter(surface="ECA"), c.KeyParameter(surface="PA", term_id=None)]}),
    ("key_parameter", {"term_id": "t_0000000001"}),
])
def test_ids_links_counts_statuses_and_provenance_leave_the_fingerprint_alone(kind, update):
    entity = ENTITIES[kind]
    assert _print(kind, entity.model_copy(update=update)) == _print(kind, entity)


@pytest.mark.parametrize(("kind", "update", "field"), [
    ("term", {"term": "Physical Availability"}, "term"),
    ("term", {"full_name": None}, "full_name"),
    ("term", {"source_wording": "2.1.3. Physical Availability (PA)"}, "source_wording"),
    ("term", {"definition": "PA adalah ketersediaan."}, "definition"),
    ("term", {"subdomain_tags": ["equipment"]}, "subdomain_tags"),
    ("formula", {"formula_latex": "PA = MOHH / BD"}, "formula_latex"),
    ("formula", {"variables": [c.FormulaVariable(symbol="MOHH", meaning="Mine Hours")]}, "variables"),
    ("formula", {"unit": None}, "unit"),
    ("rule", {"rule_type": "interpretation"}, "rule_type"),
    ("rule", {"consequence": "maka digunakan joint survey"}, "consequence"),
    ("domain", {"purpose_verbatim": None}, "purpose_verbatim"),
    ("domain", {"outline": ["1. TUJUAN", "2. ISI"]}, "outline"),
    ("domain", {"key_parameters": [c.KeyParameter(surface="PA")]}, "key_parameters"),
    ("key_parameter", {"surface": "ECA (Equipment Capacity Analysis)"}, "surface"),
])
def test_a_change_of_reviewed_content_changes_the_fingerprint_and_is_named(kind, update, field):
    entity = ENTITIES[kind]
    before, after = reviewed_content(kind, entity), reviewed_content(kind, entity.model_copy(update=update))
    assert fingerprint(before) != fingerprint(after)
    assert changed_fields(before, after) == [field]


def test_text_re_wrapped_by_a_model_is_the_same_content():
    rewrapped = TERM.model_copy(update={"definition": "PA  adalah\nketersediaan fisik."})
    assert _print("term", rewrapped) == _print("term", TERM)
    assert (_print("term", TERM.model_copy(update={"definition": "pa adalah ketersediaan fisik."}))
            != _print("term", TERM))


def test_a_fingerprint_is_a_full_sha256_of_the_content():
    assert _print("term", TERM).startswith("sha256:") and len(_print("term", TERM)) == len("sha256:") + 64
