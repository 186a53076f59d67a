"""Title and purpose candidates on text written here, one genre convention per test."""

from knowledge_assets.candidates.domain import find_domain
from knowledge_assets.candidates.source import SourceChunk


def chunk(seq: int, text: str, *heading_path: str) -> SourceChunk:
    return SourceChunk(chunk_id=f"D::{seq:04d}", text=text, heading_path=list(heading_path))


def found(chunks, kind):
    return [(c.cue, c.text) for c in find_domain(chunks) if c.kind == kind]


def test_candidates_are_verbatim_slices_of_their_chunk():
    chunks = [chunk(0, 'title: "Widget Transport"'),
              chunk(1, "abstract\n\nThis document specifies widgets.", "abstract")]
    by_id = {c.chunk_id: c.text for c in chunks}
    for candidate in find_domain(chunks):
        assert by_id[candidate.chunk_id][candidate.start:candidate.end] == candidate.text


def test_front_matter_title_value_without_quotes():
    assert found([chunk(0, "title: 'Widget Transport Protocol'")], "title")[0] == (
        "front_matter_title", "Widget Transport Protocol")


def test_a_title_line_after_the_first_heading_is_no_front_matter():
    chunks = [chunk(0, "Widgets", "Widgets"), chunk(1, "title: not the document", "Widgets")]
    assert ("front_matter_title", "not the document") not in found(chunks, "title")


def test_regulation_heading_runs_from_the_instrument_to_the_subject():
    text = ("SALINAN\nMENTERI CONTOH\nPERATURAN MENTERI CONTOH REPUBLIK INDONESIA\nNOMOR 7 TAHUN 2030\nTENTANG\n"
            "TATA CARA PENGUJIAN ALAT\nDAN BAHAN\n\nDENGAN RAHMAT TUHAN YANG MAHA ESA\nMENTERI CONTOH,\n"
            "Menimbang : a. bahwa")
    assert found([chunk(0, text)], "title")[0] == (
        "regulation_heading",
        "PERATURAN MENTERI CONTOH REPUBLIK INDONESIA\nNOMOR 7 TAHUN 2030\nTENTANG\nTATA CARA PENGUJIAN ALAT\nDAN BAHAN")


def test_regulation_subject_stops_at_the_enacting_official():
    text = "KEPUTUSAN KEPALA BADAN CONTOH\nNOMOR: 3/K/2030\nTENTANG\nKESELAMATAN ALAT\nKEPALA BADAN CONTOH,\nMenimbang"
    assert found([chunk(0, text)], "title")[0][1].endswith("TENTANG\nKESELAMATAN ALAT")


def test_an_upper_case_line_without_nomor_and_tentang_is_no_regulation_heading():
    assert not [c for c in found([chunk(0, "PERATURAN INI BERLAKU\nSEJAK DIUNDANGKAN")], "title")
                if c[0] == "regulation_heading"]


def test_rfc_title_is_the_centred_line_above_the_abstract():
    header = ("Widget Working Group                                      A. Person\n"
              "Internet-Draft                                          Example Inc.\n\n\n"
              "                      Widget Transport over Gadgets\n"
              "                     draft-person-widget-transport-02\n")
    chunks = [chunk(0, header), chunk(1, "Abstract\n\n   This document specifies widgets.", "Abstract")]
    assert found(chunks, "title")[0] == ("rfc_title", "Widget Transport over Gadgets")


def test_two_column_header_lines_are_no_rfc_title():
    chunks = [chunk(0, "   Widget Group       A. Person\n   Request: 9999      Example"),
              chunk(1, "Abstract\n\n   This document specifies widgets.", "Abstract")]
    assert not [c for c in found(chunks, "title") if c[0] == "rfc_title"]


def test_document_statements_of_purpose_in_english_and_indonesian():
    chunks = [
        chunk(0, "Abstract\n\n   This document specifies the widget protocol.", "Abstract"),
        chunk(1, "Pasal 2\n(1) Peraturan Menteri ini mengatur tata cara pengujian alat.", "Pasal 2"),
        chunk(2, "Maksud ditetapkannya Peraturan ini adalah memberikan pedoman pengujian.", "Pasal 3"),
        chunk(3, "The purpose of this memo is to describe gadgets.", "1. Introduction"),
    ]
    assert [text for cue, text in found(chunks, "purpose") if cue == "purpose_statement"] == [
        "This document specifies the widget protocol.",
        "(1) Peraturan Menteri ini mengatur tata cara pengujian alat.",
        "Maksud ditetapkannya Peraturan ini adalah memberikan pedoman pengujian.",
        "The purpose of this memo is to describe gadgets.",
    ]


def test_boilerplate_sections_state_no_purpose():
    chunks = [chunk(0, "Status of This Memo\n\n   This document is subject to BCP 78 and describes nothing.",
                    "Status of This Memo")]
    assert found(chunks, "purpose") == []


def test_a_statement_announcing_a_list_takes_its_items_up_to_the_next_ayat():
    text = ("Pasal 2\n(1) Peraturan ini meliputi:\na. pengujian alat;\nb. pelaporan hasil.\n"
            "(2) Pengujian dilakukan setiap tahun.")
    assert found([chunk(0, text, "Pasal 2")], "purpose") == [
        ("purpose_statement", "(1) Peraturan ini meliputi:\na. pengujian alat;\nb. pelaporan hasil.")]


def test_purpose_heading_counts_only_where_it_opens_the_document():
    chunks = [chunk(0, "1. Purpose\nThis guide sets the widget limits.", "1. Purpose"),
              chunk(1, "2. Terms", "2. Terms"), chunk(2, "3. Tools", "3. Tools"),
              chunk(3, "3.1. Purpose of the Test Tool\nThe tool measures widgets.", "3. Tools",
                    "3.1. Purpose of the Test Tool")]
    assert [(cue, text) for cue, text in found(chunks, "purpose") if cue == "purpose_heading"] == [
        ("purpose_heading", "This guide sets the widget limits.")]


def test_scope_heading_sentence_is_a_weaker_purpose():
    chunks = [chunk(0, "RUANG LINGKUP\nKetentuan teknis ini dipakai di semua tambang.", "RUANG LINGKUP")]
    assert found(chunks, "purpose") == [("scope_heading", "Ketentuan teknis ini dipakai di semua tambang.")]


def test_older_rfc_title_stands_above_the_status_of_this_memo():
    header = "Network Working Group                                   A. Person\n\n\n                Widget Key Words\n"
    chunks = [chunk(0, header), chunk(1, "Status of this Memo\n\n   This memo is an RFC.", "Status of this Memo"),
              chunk(2, "Abstract\n\n   Widgets.", "Abstract")]
    assert found(chunks, "title")[0] == ("rfc_title", "Widget Key Words")


def test_a_rule_line_is_never_part_of_the_first_lines_title():
    assert found([chunk(0, "---\n\nWidget Handbook\nEdition One")], "title") == [
        ("first_lines", "Widget Handbook\nEdition One")]
