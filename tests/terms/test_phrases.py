"""Acronyms, capitalised phrases, glosses and classified terms."""

from knowledge_assets.terms.document_vocabulary import read_vocabulary
from knowledge_assets.terms.phrases import acronyms, classified_terms, glosses, title_phrases
from tests.terms.conftest import chunk


def phrases(text: str, short_forms: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    piece = chunk(text)
    known = read_vocabulary([piece], set(short_forms))
    return [(m.surface, m.kind) for m in title_phrases(piece, known)]


def test_capitalised_runs_with_connectors_are_phrases():
    assert phrases("dihitung dalam Machine on Hand Hours dan Utilization of Availability per unit") == [
        ("Machine on Hand Hours", "phrase"),
        ("Utilization of Availability", "phrase"),
    ]


def test_an_acronym_ends_a_phrase_and_its_qualifier_is_no_term():
    text = "Gain/Loss MOHH = (MOHH Actual - MOHH Plan) x Qty Plan. Target PA ditetapkan per kelas."
    assert phrases(text, frozenset({"Qty"})) == []


def test_a_name_after_a_legal_form_is_the_issuer():
    assert phrases("seluruh site PT Samudra Karya Tambang menggunakan") == [("Samudra Karya Tambang", "organisation")]


def test_a_capital_by_grammar_does_not_join_a_phrase():
    assert phrases("Jika data tersedia. Satuan Production adalah BCM.") == []


def test_acronyms_are_found_but_a_heading_in_capitals_is_not():
    piece = chunk("1. TUJUAN PARAMETER\nMOHH x Qty x PA, lihat KPIs dan SKT-STD-PRM-001")
    assert [m.surface for m in acronyms(piece)] == ["MOHH", "PA", "KPIs"]


def test_an_english_gloss_of_indonesian_wording_is_a_term():
    text = (
        "pengupasan tanah penutup (overburden removal), data harian (cut-off), rencana (plan), "
        "kondisi cuaca (hujan dan jalan licin), satuan (jam), P1 (safety related)"
    )
    assert [m.surface for m in glosses(chunk(text))] == ["overburden removal", "cut-off"]


def test_what_a_rule_files_an_event_under_is_a_term():
    text = (
        "If a breakdown lasts less than 15 minutes, it is recorded as a delay and not as a breakdown. "
        "Gangguan dicatat sebagai Delay dan bukan sebagai Breakdown. "
        "It is recorded as a continuation of the original breakdown. "
        "The difference is recorded as unscheduled breakdown time, not as scheduled breakdown time."
    )
    assert [m.surface for m in classified_terms(chunk(text))] == ["delay", "breakdown", "Delay", "Breakdown"]


def test_classifying_verbs_are_found_as_the_whole_pattern_finds_them():
    from knowledge_assets.candidates.text import matches_near
    from knowledge_assets.terms.phrases import _AS, _CLASSIFYING, _word_before

    text = "Dicatat sebagai Delay, counted  as\nthe breakdown; known as as a rule, X as an item.as y"
    expected = [m.span() for m in _CLASSIFYING.finditer(text)]
    assert [m.span() for m in matches_near(_CLASSIFYING, _AS, text, _word_before)] == expected
    assert len(expected) == 4
