"""The layout-proof reading of a chunk and its map back to the original (text written for this test)."""

from __future__ import annotations

import pytest

from knowledge_assets.candidates.reading import is_furniture, read


def test_every_character_read_comes_from_the_same_character_of_the_original():
    text = "Laju  alir adalah \r\nvolume per\fdetik.\n- 4 -\n\nSatu kewa-\n  jiban lagi. \n"
    reading = read(text)
    assert len(reading.origin) == len(reading.text) + 1
    for position, char in enumerate(reading.text):
        assert char == "\n" or text[reading.origin[position]] == char
    start = reading.text.index("volume")
    end = reading.text.index("lagi.") + len("lagi.")
    low, high = reading.bounds(start, end)
    assert text[low:high] == "volume per\fdetik.\n- 4 -\n\nSatu kewa-\n  jiban lagi."


def test_line_ends_of_every_converter_read_alike():
    assert read("Tarif adalah \r\nharga per ton. \rSatu\fdua \n").text == "Tarif adalah\nharga per ton.\nSatu\ndua\n"


@pytest.mark.parametrize("line", ["www.contoh.go.id", "https://contoh.org/x", "- 6 -", "-12-", "2031, No.4 - 7 - ",
                                  "BERITA NEGARA-3-", "- lo -", "-4t-"])
def test_page_furniture_left_inside_the_text(line):
    assert is_furniture(line)
    assert read(f"batas yang\n{line}\nditetapkan.").text == "batas yang\nditetapkan."


@pytest.mark.parametrize("line", ["- a. bahan bakar", "Jumlah 3 - 1", "x - 2 - y lagi dan lagi dan lagi dan lagi dan"])
def test_text_with_dashes_is_not_furniture(line):
    assert not is_furniture(line)


def test_a_blank_line_inside_a_sentence_is_skipped_but_not_after_a_heading_or_a_sentence():
    assert read("tidak dapat\n\n- 9 -\n\n ditutup kembali.").text == "tidak dapat\n ditutup kembali."
    assert read("nilai yang sesuai\n\nterhadap organ.").text == "nilai yang sesuai\nterhadap organ."
    assert read("2.1  Sent Fields\n\n   packet_size:  bytes.").text == "2.1  Sent Fields\n\n   packet_size:  bytes."
    assert read("Selesai.\n\nlalu mulai.").text == "Selesai.\n\nlalu mulai."


def test_a_word_split_by_a_line_break_hyphen_reads_joined_and_runs_of_spaces_stay():
    reading = read("Struktur,     Sistem  dan pene-\n   rapan ini")
    assert reading.text == "Struktur,     Sistem  dan penerapan ini"
    assert read("Undang-\nUndang Dasar").text == "Undang-\nUndang Dasar"
