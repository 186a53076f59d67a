from knowledge_assets import contracts as c
from knowledge_assets.diff import diff_entry, diff_glossary

PROV = {"doc_id": "D", "span": "s"}


def _entry(definition):
    return c.GlossaryEntry(term_id="t_1", term="PA", definition=definition, provenance=PROV)


def test_first_version_is_new():
    assert diff_glossary([_entry("Adalah ketersediaan fisik.")], {})[0].diff_status == "new"


def test_same_definition_modulo_whitespace_is_duplicate():
    out = diff_entry(_entry("Adalah  ketersediaan\nfisik."), "Adalah ketersediaan fisik.")
    assert (out.diff_status, out.definition_conflict, out.conflict_variants) == ("duplicate", False, [])


def test_a_different_definition_is_a_conflict_with_both_variants_and_no_winner():
    out = diff_entry(_entry("Adalah ketersediaan fisik unit."), "Adalah kesiapan unit.")
    assert out.diff_status == "conflicting" and out.definition_conflict
    assert out.conflict_variants == ["Adalah ketersediaan fisik unit.", "Adalah kesiapan unit."]
    assert out.definition == "Adalah ketersediaan fisik unit."


def test_two_definitions_inside_one_document_conflict_without_history():
    out = diff_entry(_entry("MTTR is breakdown duration / frequency."), None, ["MTTR is repair time per job."])
    assert out.definition_conflict and len(out.conflict_variants) == 2


def test_an_abstention_is_new_not_a_conflict():
    out = diff_entry(_entry(None), "Adalah kesiapan unit.")
    assert out.diff_status == "new" and not out.definition_conflict
