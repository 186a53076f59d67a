import pytest

from knowledge_assets.verify.spans import (
    VerbatimIndex,
    _normalised_with_offsets,
    crossing_pieces,
    is_verbatim,
    locate,
    locate_bounds,
    normalise,
)

SOURCE = (
    "2.1.2. Quantity (Qty)\nAdalah jumlah equipment/unit yang digunakan untuk menghasilkan\n"
    "produksi dalam suatu periode."
)


def test_a_value_spanning_a_line_break_is_verbatim():
    assert is_verbatim(
        "Adalah jumlah equipment/unit yang digunakan untuk menghasilkan produksi dalam suatu periode.", SOURCE
    )


@pytest.mark.parametrize(
    "value",
    [
        "adalah jumlah equipment/unit",  # case differs
        "Adalah jumlah equipment / unit",  # spacing inside a token differs
        "Adalah jumlah unit yang digunakan",  # words dropped
        "Merupakan jumlah equipment/unit",  # paraphrase
        "Quantity is the number of units used for production in a period.",  # fabricated
        "",
        "   ",
    ],
)
def test_anything_but_the_source_wording_is_refused(value):
    assert not is_verbatim(value, SOURCE)


def test_ligatures_and_non_breaking_spaces_are_the_same_text():
    source = "Fill Factor is de\ufb01ned as the ratio\u00a0of bucket load."
    assert is_verbatim("Fill Factor is defined as the ratio of bucket load.", source)


def test_a_word_hyphenated_across_a_line_break_is_found_joined():
    source = "waktu unit berada dalam kondisi siap secara fi-\nsik untuk dioperasikan"
    assert is_verbatim("kondisi siap secara fisik untuk dioperasikan", source)
    assert is_verbatim("secara fi- sik", source)  # as written is still verbatim
    assert not is_verbatim("kondisi siap secara fi-sik", source)


def test_a_real_hyphen_at_a_line_end_before_a_digit_is_kept():
    assert not is_verbatim("Revisi 02", "Revisi -\n02")


def test_soft_hyphens_are_invisible():
    assert is_verbatim("Productivity", "Produc\u00adtivity (Pty)")


def test_normalise_collapses_whitespace_runs():
    assert normalise("  a\t\n b\u00a0 c ") == "a b c"


@pytest.mark.parametrize(
    "text", ["", "   ", "one", " a  b\t\tc\r\n", "x\x0by\x0cz\x1c\x1dw\x1e\x1fv", "end - \n  ", "a-\nb"]
)
def test_normalise_of_ascii_text_is_the_general_normalisation(text):
    assert normalise(text) == _normalised_with_offsets(text)[0]


def test_locate_returns_the_offset_in_the_original_source():
    assert locate("Adalah jumlah", SOURCE) == SOURCE.index("Adalah jumlah")
    assert locate("menghasilkan produksi", SOURCE) == SOURCE.index("menghasilkan\nproduksi")
    source = "A  \u00a0 b fi-\nsik c"
    assert locate("fisik c", source) == source.index("fi-")
    assert locate("not there", SOURCE) is None and locate(None, SOURCE) is None


# --- a span that crosses a chunk boundary (D56) ---

FIRST_CHUNK = "Pasal 2\nBatas dosis tahunan berlaku untuk pekerja dan\n"
NEXT_CHUNK = "\nmagang yang berumur di atas 16 tahun.\nPasal 3"


def test_a_value_running_from_a_chunks_end_into_the_next_chunks_start_has_two_pieces():
    value = "Batas dosis tahunan berlaku untuk pekerja dan magang yang berumur di atas 16 tahun."
    assert not is_verbatim(value, FIRST_CHUNK) and not is_verbatim(value, NEXT_CHUNK)
    assert crossing_pieces(value, FIRST_CHUNK, NEXT_CHUNK) == (
        "Batas dosis tahunan berlaku untuk pekerja dan", "magang yang berumur di atas 16 tahun.")


def test_a_value_inside_one_chunk_or_leaving_a_gap_is_no_crossing():
    assert crossing_pieces("Batas dosis tahunan", FIRST_CHUNK, NEXT_CHUNK) is None
    # the first piece must reach its chunk's end: skipping words of a chunk is a stitch
    assert crossing_pieces("Batas dosis tahunan berlaku magang yang", FIRST_CHUNK, NEXT_CHUNK) is None
    # and the second must start at the next chunk's start
    assert crossing_pieces("untuk pekerja dan berumur di atas", FIRST_CHUNK, NEXT_CHUNK) is None


def test_an_index_of_many_sources_holds_exactly_what_one_of_them_holds_verbatim():
    sources = ["Availability is the share of\ncalendar time a unit can run.",
               "The ﬁlter is replaced every equip-\nment service.", "Downtime ends when the unit is handed back."]
    index = VerbatimIndex(sources)
    values = ["share of calendar time", "The filter is replaced", "every equipment service", "every equip- ment",
              "unit can run. The filter", "handed back.", "Handed back.", "", None]
    assert [index.holds(v) for v in values] == [any(is_verbatim(v, s) for s in sources) for v in values]
    assert [index.holds(v) for v in values] == [True, True, True, True, False, True, False, False, False]


@pytest.mark.parametrize("text", [
    "", "  ", "word", "  two  words ", "a\tb\n\nc\r\nd", "x\x0by\x0cz\x1c\x1dw\x1e\x1fv", "trailing \n ",
    "hyphen-\nated", "exam-\n  ple text", "2.1 Quantity (Qty)\nAdalah jumlah",
])
@pytest.mark.parametrize("dehyphenate", [False, True])
def test_ascii_text_with_its_offsets_is_normalised_as_the_general_loop_does(text, dehyphenate):
    # A soft hyphen at the end is dropped by the general loop and sends the text through it.
    assert _normalised_with_offsets(text, dehyphenate) == _normalised_with_offsets(text + "\u00ad", dehyphenate)


def test_a_source_is_held_once_per_form_with_its_offsets_as_c_ints():
    # The cache holds 256 chunks' forms: a list of int objects per character was ~60 KB a chunk,
    # and a text with no hyphen at a line break was held twice (D106).
    from array import array

    from knowledge_assets.verify.spans import _searchable_forms

    plain = "Mean time  between\nfailures"
    (form, origin), = _searchable_forms(plain)
    assert form == "Mean time between failures" and isinstance(origin, array)
    assert [plain[origin[i]] for i in range(len(form)) if form[i] != " "] == [c for c in plain if not c.isspace()]
    hyphenated = "the equip-\nment fails"
    forms = _searchable_forms(hyphenated)
    assert [f for f, _ in forms] == ["the equip- ment fails", "the equipment fails"]
    assert locate_bounds("equipment", hyphenated) == (4, 15) and hyphenated[4:15] == "equip-\nment"
