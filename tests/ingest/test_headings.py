from knowledge_assets.ingest.headings import Outline, read_label


def _detect(lines):
    outline = Outline()
    return [(h.section_no, h.path) for line in lines if (h := outline.detect(line))]


def test_numbered_headings_build_the_heading_path():
    found = _detect(["1. TUJUAN PARAMETER", "2. PENJELASAN PARAMETER", "2.1. Production Parameter",
                     "2.1.1. Production", "2.1.2. Quantity (Qty)", "2.1.3. Physical of Availability (PA)",
                     "3. SUMBER DATA"])
    assert found[5] == ("2.1.3", ("2. PENJELASAN PARAMETER", "2.1. Production Parameter",
                                  "2.1.3. Physical of Availability (PA)"))
    assert found[6] == ("3", ("3. SUMBER DATA",))


def test_a_number_that_skips_ahead_is_not_a_heading():
    assert [s for s, _ in _detect(["2. PENJELASAN", "2.1. Production", "2.1.3. Skipped", "2.2. Next"])] == [
        "2", "2.1", "2.2"]


def test_a_list_item_that_does_not_continue_the_outline_is_not_a_heading():
    found = _detect(["2. PENJELASAN", "2.1. Production", "1. Data joint survey", "2.2. Equipment"])
    assert [s for s, _ in found] == ["2", "2.1", "2.2"]


def test_a_list_that_continues_past_the_next_section_number_stays_a_list():
    # Inside 3.2, "4." would continue the outline, but it follows list item "3."
    found = _detect(["3. SUMBER", "3.1. Sumber Data", "3.2. Tanggung Jawab", "1. Produksi bertanggung jawab",
                     "2. Plant bertanggung jawab", "3. Engineering bertanggung jawab",
                     "4. Site Manager bertanggung jawab memastikan", "4. REVISI DOKUMEN"])
    assert [s for s, _ in found] == ["3", "3.1", "3.2", "4"]  # the real "4." after the list


def test_sentences_counts_and_lowercase_lines_are_not_headings():
    found = _detect(["1. Purpose", "2. The unit is ready.", "2 unit excavator", "2. keterangan lain"])
    assert [s for s, _ in found] == ["1"]


def test_bab_and_letter_labels():
    assert read_label("BAB II PENJELASAN").section_no == "BAB II"
    assert read_label("A. Latar Belakang").section_no == "A"
    found = _detect(["BAB I PENDAHULUAN", "A. Latar Belakang", "B. Tujuan", "BAB II ISI", "A. Umum"])
    assert found[-1] == ("A", ("BAB II ISI", "A. Umum"))


def test_explicit_headings_take_their_level_from_markup():
    outline = Outline()
    outline.explicit("Manual", level=1)
    outline.explicit("1. Purpose", level=2)
    heading = outline.explicit("3.1. Mean Time Between Failures (MTBF)", level=3)
    assert heading.section_no == "3.1"
    assert heading.path == ("Manual", "1. Purpose", "3.1. Mean Time Between Failures (MTBF)")
