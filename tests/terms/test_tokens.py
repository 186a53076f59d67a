"""Words, term keys and sentence boundaries."""

import pytest

from knowledge_assets.terms.tokens import (
    Token,
    chunk_words,
    is_acronym,
    offset_typecode,
    plain_name,
    starts_sentence,
    term_key,
    tokens,
)
from tests.terms.conftest import chunk


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Gain/Loss year-to-date SKT-STD-PRM-001", ["Gain/Loss", "year-to-date", "SKT-STD-PRM-001"]),
        ("it’s the operator's", ["it’s", "the", "operator's"]),
        ("1.250.000 and 0,85 at 100% or T%.", ["1.250.000", "and", "0,85", "at", "100%", "or", "T%"]),
        # A joiner joins only when a letter or digit follows it; an underscore is not one.
        ("x-_y a_-b trailing- -leading A/ /B", ["x", "y", "a_-b", "trailing", "leading", "A", "B"]),
        ("T%x 12abc", ["T", "x", "12", "abc"]),
    ],
)
def test_a_word_keeps_its_joined_parts_and_a_number_its_separators(text, words):
    found = tokens(text)
    assert [t.text for t in found] == words
    assert all(text[t.start : t.end] == t.text for t in found)


def test_the_words_of_each_chunk_are_read_once_and_shared_by_chunk_id():
    chunks = [chunk("Working Hours (WH) adalah jam kerja.", seq=0), chunk("WH = Working Hours", seq=1)]
    words = chunk_words(chunks)
    assert list(words) == [c.chunk_id for c in chunks]
    assert words[chunks[1].chunk_id] == [Token("WH", 0, 2), Token("Working", 5, 12), Token("Hours", 13, 18)]


def test_the_words_of_a_chunk_are_built_afresh_at_each_reading_so_none_are_held():
    chunks = [chunk("Hauling Distance naik.", seq=0), chunk("Hauling Distance turun, 1.250 m.", seq=1)]
    words = chunk_words(chunks)
    first, again = words[chunks[1].chunk_id], words[chunks[1].chunk_id]
    assert first == again == tokens(chunks[1].text)
    assert first is not again and first[0] is not again[0]
    assert len(words) == 2 and dict(words) == {c.chunk_id: tokens(c.text) for c in chunks}


@pytest.mark.parametrize(
    "variants",
    [
        ("Cut-off", "cut off", "cutoffs"),
        ("Standby Hours", "standby  hour", "STANDBY HOURS"),
        ("KPIs", "KPI"),
        ("Gain/Loss", "Gain / Loss"),
        ("unit-unit", "unit"),
    ],
)
def test_case_spacing_joiner_and_plural_variants_share_a_key(variants):
    assert len({term_key(v) for v in variants}) == 1


@pytest.mark.parametrize(
    ("a", "b"),
    [("CMMS", "CMM"), ("Scheduled Breakdown", "Unscheduled Breakdown"), ("CT Loading", "CT Hauling"), ("m", "M")],
)
def test_different_terms_keep_different_keys(a, b):
    assert term_key(a) != term_key(b)


@pytest.mark.parametrize(
    ("word", "expected"),
    [("PA", True), ("KPIs", True), ("P2H", True), ("Qty", False), ("SKT-STD-PRM-001", False), ("Gain/Loss", False)],
)
def test_acronym_shape(word, expected):
    assert is_acronym(word) is expected


def test_sentence_starts_after_a_full_stop_a_short_line_or_a_bullet_but_not_inside_wrapped_prose():
    wrapped = "Production Parameter dihitung per kelompok unit loading (excavator atau wheel loader) dengan\nkelas"
    text = "2.1.1. Production\nProduction adalah volume. Bila PA rendah\n- Standby cuaca: hujan"
    assert starts_sentence(text, text.index("Production adalah"))
    assert starts_sentence(text, text.index("Bila"))
    assert starts_sentence(text, text.index("Standby"))
    assert not starts_sentence(text, text.index("PA rendah"))
    assert not starts_sentence(wrapped, wrapped.index("kelas"))


def test_a_dash_is_a_minus_in_a_formula_and_a_separator_elsewhere():
    formula = "PA = (MOHH - Breakdown Hours) / MOHH x 100%"
    history = "Revisi 01 - 1 Maret 2023 - Penambahan Match Factor"
    assert not starts_sentence(formula, formula.index("Breakdown"))
    assert starts_sentence(history, history.index("Penambahan"))


@pytest.mark.parametrize(("written", "plain"), [
    ("*R<sub>min</sub>*", "R_min"),
    ("Q<sub>out</sub>(*t*)", "Q_out(t)"),
    ("{{{γ}{}}}*<sub>max</sub>*", "γ_max"),
    ("Laju\nMuat", "Laju Muat"),
])
def test_a_name_written_with_markup_reads_as_plain_text_and_keys_alike(written, plain):
    assert plain_name(written) == plain
    assert term_key(written) == term_key(plain)


def test_a_symbol_keeps_its_percent_sign():
    assert term_key("T%") != term_key("T")


def test_an_offset_is_held_in_two_bytes_only_while_the_text_is_short_enough_for_them():
    assert offset_typecode(0xFFFF) == "H"
    assert offset_typecode(0x10000) == "i"


def test_the_words_of_a_chunk_longer_than_two_bytes_can_count_keep_their_offsets():
    long_chunk = chunk("kata " * 14_000 + "Hauling Distance", seq=0)
    words = chunk_words([long_chunk])[long_chunk.chunk_id]
    assert words == tokens(long_chunk.text)
    assert words[-1] == Token("Distance", 70_008, 70_016)
