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


def test_statutory_structure_bab_bagian_paragraf_pasal():
    found = _detect(["BAB I", "BAB II PENGAWASAN", "Bagian Kesatu", "Paragraf 1", "Pasal 1", "Pasal 2",
                     "Bagian Kedua", "Pasal 3", "Pasal 3A", "BAB III"])
    assert [s for s, _ in found] == ["BAB I", "BAB II", "Bagian Kesatu", "Paragraf 1", "Pasal 1", "Pasal 2",
                                     "Bagian Kedua", "Pasal 3", "Pasal 3A", "BAB III"]
    assert found[5][1] == ("BAB II PENGAWASAN", "Bagian Kesatu", "Paragraf 1", "Pasal 2")
    assert found[6][1] == ("BAB II PENGAWASAN", "Bagian Kedua")


def test_a_pasal_that_does_not_continue_is_a_reference_not_a_heading():
    found = _detect(["Pasal 1", "Pasal 2", "Pasal 7", "Pasal 3"])
    assert [s for s, _ in found] == ["Pasal 1", "Pasal 2", "Pasal 3"]


def test_numbered_and_lettered_lines_inside_a_pasal_or_the_preamble_are_list_items():
    found = _detect(["Mengingat : 1. Undang-Undang Nomor 1 Tahun 2000;", "2. Peraturan Pemerintah Nomor 3 Tahun",
                     "BAB I", "Pasal 1", "1. Kelapa Sawit adalah tanaman", "A. Umum", "LAMPIRAN", "1. PENDAHULUAN"])
    assert [s for s, _ in found] == ["BAB I", "Pasal 1", "LAMPIRAN", "1"]
    assert found[-1][1] == ("LAMPIRAN", "1. PENDAHULUAN")


def test_the_penjelasan_numbers_its_pasal_again_from_one():
    found = _detect(["Pasal 1", "Pasal 2", "PENJELASAN", "Pasal 1", "Pasal 2"])
    assert [s for s, _ in found] == ["Pasal 1", "Pasal 2", "PENJELASAN", "Pasal 1", "Pasal 2"]
    assert found[-1][1] == ("PENJELASAN", "Pasal 2")


def test_ocr_digits_in_a_pasal_number_are_read_as_digits():
    assert read_label("Pasal lO").section_no == "Pasal 10"
    assert read_label("Pasal II").section_no == "Pasal II"
    assert read_label("Bagian Kedu a").section_no == "Bagian Kedua"


def test_a_lone_statutory_label_takes_its_title_from_the_next_lines():
    outline = Outline()
    outline.detect("BAB I")
    first = outline.title_line("KETENTUAN UMUM DAN")
    second = outline.title_line("RUANG LINGKUP")
    assert (first.path, second.path) == (("BAB I KETENTUAN UMUM DAN",), ("BAB I KETENTUAN UMUM DAN RUANG LINGKUP",))
    assert outline.title_line("Pasal 1") is None  # a label ends the title


def test_a_bab_title_is_upper_case_and_content_is_not_taken_as_title():
    outline = Outline()
    outline.detect("BAB I")
    assert outline.title_line("Dalam Peraturan ini yang dimaksud dengan:") is None
    outline.detect("Pasal 1")
    assert outline.title_line("Ruang lingkup pengaturan") is None  # a Pasal has no title line


def test_rfc_appendix_sections_continue_after_the_numbered_sections():
    found = _detect(["1.  Introduction", "2.  Terms", "2.1.  Symbols", "Appendix A.  Sample Code",
                     "A.1.  Constants", "A.1.1.  Timers", "A.2.  Variables", "Appendix B.  Notes", "B.1.  More"])
    assert [s for s, _ in found] == ["1", "2", "2.1", "Appendix A", "A.1", "A.1.1", "A.2", "Appendix B", "B.1"]
    assert found[5][1] == ("Appendix A.  Sample Code", "A.1.  Constants", "A.1.1.  Timers")
    assert found[-1][1] == ("Appendix B.  Notes", "B.1.  More")


def test_a_letter_and_number_label_is_no_heading_outside_an_appendix():
    assert [s for s, _ in _detect(["1.  Introduction", "B.2.  Stray"])] == ["1"]


def test_rfc_front_sections_and_the_contents_listing():
    found = _detect(["Abstract", "   This memo describes widgets.", "Table of Contents",
                     "   1.  Introduction", "   2.  Widget Model", "     2.1.  Parts", "   Authors' Addresses",
                     "1.  Introduction", "   Widgets are small.", "2.  Widget Model"])
    assert [(s, p[-1]) for s, p in found] == [(None, "Abstract"), (None, "Table of Contents"),
                                              ("1", "1.  Introduction"), ("2", "2.  Widget Model")]
    assert found[2][1] == ("1.  Introduction",)  # not nested under the front sections


def test_dotted_contents_entries_end_at_the_first_body_heading():
    found = _detect(["DAFTAR ISI", "BAB I PENDAHULUAN ........ 1", "BAB II ISI ........ 4",
                     "BAB I PENDAHULUAN", "BAB II ISI"])
    assert [s for s, _ in found] == ["BAB I", "BAB II"]


def test_a_top_level_number_without_its_dot_is_a_heading_when_its_title_is_in_capitals():
    found = _detect(["1 INTRODUCTION", "2 GLOSSARY", "2.1 Terms and Acronyms", "3 KECCAK-p PERMUTATIONS",
                     "4 units were tested", "4 Sponge construction"])
    assert [s for s, _ in found] == ["1", "2", "2.1", "3"]


def test_a_heading_one_followed_by_list_items_was_the_lists_first_item():
    # A standard's announcement numbers its paragraphs "1. Name of Standard: …", "2. …" before
    # the body's own "1 INTRODUCTION".
    found = _detect(["1. Name of Standard: SHA-3 Standard", "2. Category of Standard: Cryptography.",
                     "3. Explanation: This Standard specifies", "1 INTRODUCTION", "2 GLOSSARY",
                     "2.1 Terms and Acronyms"])
    assert [p for _, p in found][-1] == ("2 GLOSSARY", "2.1 Terms and Acronyms")
    assert [s for s, _ in found] == ["1", "1", "2", "2.1"]


def test_a_list_inside_section_one_does_not_let_a_later_one_replace_it():
    found = _detect(["1. Purpose", "1. Scope of the list.", "2. Second item.", "1 INTRODUCTION", "1.1 Scope"])
    assert found[-1] == ("1.1", ("1. Purpose", "1.1 Scope"))
