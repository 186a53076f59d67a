import pytest

from knowledge_assets.verify.spans import is_verbatim, locate, normalise

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


def test_locate_returns_the_offset_in_the_original_source():
    assert locate("Adalah jumlah", SOURCE) == SOURCE.index("Adalah jumlah")
    assert locate("menghasilkan produksi", SOURCE) == SOURCE.index("menghasilkan\nproduksi")
    source = "A  \u00a0 b fi-\nsik c"
    assert locate("fisik c", source) == source.index("fi-")
    assert locate("not there", SOURCE) is None and locate(None, SOURCE) is None
