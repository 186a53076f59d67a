"""Definition candidates on text written for these tests, one convention of a genre each."""

from __future__ import annotations

import pytest

from knowledge_assets.candidates.definitions import defining_first, find_definitions
from knowledge_assets.candidates.source import SourceChunk


def found(text: str, heading_path: list[str] | None = None) -> list:
    chunk = SourceChunk(chunk_id="D::0001", text=text, heading_path=heading_path or [])
    candidates = find_definitions([chunk])
    for candidate in candidates:
        assert text[candidate.start : candidate.end] == candidate.text
        assert all(text[p.start : p.end] == p.text for p in candidate.parts)
    return candidates


def parts(candidate) -> dict[str, str]:
    return {p.role: p.text for p in candidate.parts}


def test_numbered_statutory_definitions_with_detached_numbers_and_one_word_lines():
    text = (
        "Dalam Peraturan ini yang dimaksud dengan:\n1.\nBalai\nPengujian\nyang\nselanjutnya\ndisebut\n"
        "Balai adalah unit kerja yang menguji mutu bahan.\n2.\n"
        "Dana Cadangan Desa yang selanjutnya disingkat DCD adalah dana yang disisihkan setiap tahun.\n"
        "3. Petugas Lapangan adalah pegawai yang ditugaskan di lokasi.\n"
    )
    terms = [(parts(c)["term"], parts(c).get("abbreviation"), c.cue) for c in found(text)]
    assert terms == [
        ("Balai\nPengujian", "Balai", "introduced"),
        ("Dana Cadangan Desa", "DCD", "introduced"),
        ("Petugas Lapangan", None, "adalah"),
    ]
    dcd = found(text)[1]
    assert dcd.text == "Dana Cadangan Desa yang selanjutnya disingkat DCD adalah dana yang disisihkan setiap tahun."
    assert parts(dcd)["expansion"] == "Dana Cadangan Desa" and parts(dcd)["definition"] == dcd.text


def test_a_sentence_about_a_value_is_not_a_definition():
    assert found("Nilai ini adalah 3,5 persen dari pagu. Satu unit adalah dua alat.") == []


def test_penjelasan_explains_a_quoted_symbol_even_when_ocr_misreads_the_quote():
    text = ('Yang dimaksud dengan "Q" adalah debit air per detik.\n'
            'Yang dimaksud dengan oR2" adalah luas resapan per hektar.\n')
    assert [parts(c)["term"] for c in found(text)] == ["Q", "R2"]
    assert found(text)[0].text == 'Yang dimaksud dengan "Q" adalah debit air per detik.'


def test_a_symbol_is_given_its_meaning_by_cross_reference():
    text = "(2) Besaran nilai KR sebagaimana dimaksud pada ayat (1)\nmerupakan koefisien risiko lahan.\n"
    (candidate,) = found(text)
    assert parts(candidate)["term"] == "KR" and candidate.text.startswith("(2) Besaran nilai KR")


def test_rfc_term_list_takes_a_hanging_entry_whole_and_a_one_line_entry_to_its_first_sentence():
    text = (
        "   Terms used here:\n\n"
        "   Probe packets:  Packets sent only to test the path.  They carry\n      no data.\n\n"
        "   kMaxBurst:  Largest burst allowed.  The value is 10.\n"
    )
    assert [(parts(c)["term"], c.text) for c in found(text)] == [
        ("Probe packets", "Probe packets:  Packets sent only to test the path.  They carry\n      no data."),
        ("kMaxBurst", "kMaxBurst:  Largest burst allowed."),
    ]


def test_kramdown_definition_paragraphs_and_markdown_bullets():
    text = "*R<sub>min</sub>*:\nLowest rate seen in the interval.\n\n- burst-limited: A flow held back by its pacer.\n"
    assert [parts(c)["term"] for c in found(text)] == ["*R<sub>min</sub>*", "burst-limited"]


def test_glossary_labels_give_short_forms_and_other_language_names():
    text = "Laju Dosis (LD) : dosis per satuan waktu.\n\nBatas Aman (Safe Limit): nilai yang tidak boleh dilampaui.\n"
    first, second = found(text)
    assert (parts(first)["term"], parts(first)["abbreviation"]) == ("Laju Dosis", "LD")
    assert (parts(second)["term"], parts(second)["alias"]) == ("Batas Aman", "Safe Limit")


@pytest.mark.parametrize("text", [
    "Menimbang : bahwa perlu mengatur tata cara.\n",
    "Figure 3: Timeline of the exchange\n",
    "title: Pacing for Fast Networks\n",
    "Description: A comprehensive guide to essential SRE metrics including MTTR and MTBF.\n",
    "Tags: Site Reliability Engineering, SRE, Observability, Incident Response\n",
    "Rincian memuat: a. nama; b. alamat.\n",
    "Jenis gangguan:\n- Gangguan cuaca: hujan, kabut;\n- Gangguan jalan: licin.\n",
    "    OnTimeout(space):\n      if (armed): fire()\n",
    "Disusun oleh: Kepala Bagian Umum\n",
    # A lead-in that only announces a list or a formula.
    "Jenis Tarif adalah sebagai berikut:\na. tarif dasar;\nb. tarif tambahan.\n",
    "Tarif Akhir adalah: (T1 x 2) + T2\nNo.\n",
    "Nilai Akhir adalah:\nCukup jelas.\n",
    # Cross-references that give no meaning: a second reference before the copula, a word too
    # long to be a symbol, a prefix glued to the text before it, no copula after the reference,
    # a relative clause (`yang merupakan`) after it, a wrapped line that opens no ayat.
    "A sebagaimana dimaksud B sebagaimana dimaksud pada ayat (1) merupakan dua hal.",
    "Abcdefghijklmnopqrstu sebagaimana dimaksud pada ayat (4) adalah dua kali lipat.",
    "xnilai HK SEBAGAIMANA DIMAKSUD dalam Pasal 2 yaitu harga kontrak.",
    "Besaran sebagaimana dimaksud pada ayat (1); tidak berlaku.",
    "(5) Formulir Isian sebagaimana dimaksud pada ayat (1)\ntercantum dalam Lampiran yang merupakan bagian.",
    "(2) Berita acara pemeriksaan\nPNBP PKS sebagaimana dimaksud pada ayat (3) merupakan lampiran.",
    "(3) Data dan dokumentasi hasil Verifikasi sebagaimana dimaksud pada ayat (1) merupakan kelengkapan.",
])
def test_metadata_captions_lists_code_announcements_and_bare_references_define_nothing(text):
    assert found(text) == []


def test_front_matter_and_code_fences_are_skipped():
    text = "---\ntitle: Draft\nabbrev: D\n--- abstract\n\nText.\n\n~~~\nanswer: 42 is the value\n~~~\n"
    assert found(text) == []


def test_legend_entries_under_keterangan_are_the_variables_definitions():
    text = (
        "Keterangan:\nRKT = realisasi kas tahunan dari\npenerimaan daerah\n"
        "www.contoh.go.id\nT% = persentase tambahan yang dikenakan\n\nPasal 3\n"
    )
    assert [(parts(c)["term"], c.cue) for c in found(text)] == [("RKT", "legend"), ("T%", "legend")]
    assert found(text)[0].text == "RKT = realisasi kas tahunan dari\npenerimaan daerah"


def test_a_legend_verb_glosses_each_short_symbol_and_an_expression_line_leaves_the_legend_going_on():
    text = (
        "Keterangan:\n\nKd adalah laju dosis harian pada lokasi i\ndalam satuan mSv;\n"
        "(laju dosis)i adalah nilai laju dosis per satuan waktu; dan\n"
        "n adalah jumlah lokasi yang diukur.\nContoh hasil pengukuran tercantum dalam Tabel 2.\n"
        "\ndengan:\nQo adalah jumlah awal, dan\nλ adalah konstanta peluruhan.\n"
        "\nwhere:\n   w(s,t) is the weight of sample s at time t.\n"
    )
    assert [(parts(c)["term"], c.cue) for c in found(text)] == [
        ("Kd", "legend"), ("n", "legend"), ("Qo", "legend"), ("λ", "legend"), ("w(s,t)", "legend")]
    assert found(text)[0].text == "Kd adalah laju dosis harian pada lokasi i\ndalam satuan mSv;"
    assert found(text)[1].text == "n adalah jumlah lokasi yang diukur."


def test_a_word_glossed_under_a_legend_head_is_no_symbol():
    assert [c.cue for c in found("dengan:\nPemohon adalah orang yang mengajukan izin.\n")] != ["legend"]


def test_a_legend_entry_named_in_words_restates_a_quantity_and_is_not_taken():
    assert found("dengan:\nJam Kerja = jumlah jam unit bekerja (jam)\n") == []


def test_the_sentence_under_a_heading_that_opens_with_the_copula_defines_the_heading():
    text = "3.1.2. Laju Muat (LM)\nAdalah volume yang dimuat per jam kerja.\n"
    (candidate,) = found(text, ["3.1.2. Laju Muat (LM)"])
    assert candidate.text == "Adalah volume yang dimuat per jam kerja."
    assert (parts(candidate)["term"], parts(candidate)["abbreviation"]) == ("Laju Muat", "LM")


def test_defining_sentences_rank_before_weak_copulas_and_symbol_glosses():
    text = (
        "Keterangan:\nRK = rasio kas daerah\n\n"
        "Rasio Kas merupakan bagian dari laporan.\n\nRasio Kas adalah perbandingan kas dengan utang.\n"
    )
    assert [c.cue for c in defining_first(found(text))] == ["adalah", "merupakan", "legend"]
    labelled = found("Rasio Kas adalah perbandingan kas.\n\nRasio Kas: perbandingan kas dengan utang.\n")
    assert [c.cue for c in defining_first(labelled)] == ["label", "adalah"]


def test_a_name_followed_by_its_symbol_may_end_in_a_function_word():
    (candidate,) = found("b) Laju dosis dalam, D i pada titik uji : dosis terbesar di dalam bola.\n")
    assert parts(candidate)["term"] == "Laju dosis dalam"


def test_cross_references_give_the_meaning_of_a_symbol_or_of_the_name_opening_the_ayat():
    text = ("Pasal 3\n(1) Tarif dihitung per hektar.\n(2) Besaran nilai KR sebagaimana dimaksud pada ayat (1)\n"
            "merupakan koefisien risiko lahan.\n(3) Nilai  FK   sebagaimana\n"
            "dimaksud pada ayat (2) adalah faktor koreksi.\n"
            "(4) Kewajiban pemulihan atas kerusakan lahan bekas tambang\n(reklamasi) sebagaimana dimaksud pada\n"
            "ayat (1) huruf b dan ayat (2) merupakan kewajiban pemegang izin.\n")
    assert [parts(c)["term"] for c in found(text)] == [
        "KR", "FK", "Kewajiban pemulihan atas kerusakan lahan bekas tambang\n(reklamasi)"]
    assert found(text)[2].text.startswith("(4) Kewajiban pemulihan")


def test_explanations_are_found_wherever_the_first_explainer_stands():
    text = ('Pasal 2\nCukup jelas.\nYang dimaksud dengan "Q" adalah debit air.\n'
            'The term "rate" means a speed of sending.\n')
    assert [parts(c)["term"] for c in found(text)] == ["Q", "rate"]
    assert found("Pasal 2\nCukup jelas.\n") == []


def test_page_furniture_inside_a_definition_is_read_across_and_kept_in_the_verbatim_span():
    text = ("3. Air Baku adalah air yang diambil dari sumber \nwww.contoh.go.id\n2031, No.4 - 7 - \n"
            "alam sebelum diolah. \n4. Air Olahan adalah air hasil pengolahan. \n")
    first, second = found(text)
    assert first.text == ("Air Baku adalah air yang diambil dari sumber \nwww.contoh.go.id\n2031, No.4 - 7 - \n"
                          "alam sebelum diolah.")
    assert parts(second)["term"] == "Air Olahan"


def test_justified_text_and_line_ends_with_a_space_read_as_plain_text():
    text = "1. Uji     Beban    adalah   pengujian  unit \ndengan beban \npenuh. \n"
    (candidate,) = found(text)
    assert candidate.text == "Uji     Beban    adalah   pengujian  unit \ndengan beban \npenuh."
    assert parts(candidate)["term"] == "Uji     Beban"


def test_a_definition_whose_meaning_is_a_list_takes_the_list():
    text = ("1. Fasilitas Olah yang selanjutnya disingkat FO adalah: \n  a. unit pemurnian bijih; \ndan/atau \n"
            "  b. unit peleburan logam. \n2. Operator adalah badan yang menjalankan FO.\n")
    first, second = found(text)
    assert first.text.endswith("b. unit peleburan logam.") and parts(first)["abbreviation"] == "FO"
    assert parts(second)["term"] == "Operator"
    explained = found('Yang dimaksud dengan "pihak ketiga" antara lain:\na. pemasok; dan\nb. kontraktor.\nHuruf c\n')
    assert [c.text.splitlines()[-1] for c in explained] == ["b. kontraktor."]


def test_penjelasan_cues_survive_an_ocr_misread_letter_and_antara_lain_explains():
    text = ('Yang dimalsud dengan "hasil olahan" adalah produk dari pengolahan.\n'
            'Yang dimaksud dengan "ketentuan teknis"\nantara lain standar mutu nasional.\n')
    explained = found(text)
    assert [(parts(c)["term"], c.cue) for c in explained] == [("hasil olahan", "explained"),
                                                             ("ketentuan teknis", "explained")]
    assert not found("Yang dimaksud dengan biaya antara lain sewa alat.")  # unquoted: no explanation


def test_an_ayat_gives_the_meaning_of_a_short_name_ending_in_its_symbol():
    text = ("(2) Kriteria meliputi area K1 dan area K2.\n"
            "(3) Area K1 sebagaimana dimaksud pada ayat (2) huruf a \nmerupakan area untuk bangunan tetap.\n"
            "(4) Besaran PNBP Sewa sebagaimana dimaksud pada ayat (1) dihitung dengan formula : \n\n\n"
            "(5) Luas lahan PKS sebagaimana dimaksud pada ayat (4) \nmerupakan luas hasil pengukuran batas.\n"
            "(6) Berita acara pemeriksaan\nPNBP PKS sebagaimana dimaksud pada ayat (3) merupakan lampiran.\n")
    assert [(parts(c)["term"], c.cue) for c in found(text)] == [("Area K1", "referenced"),
                                                                ("Luas lahan PKS", "referenced")]


def test_legend_meanings_of_one_word_camel_case_symbols_and_an_outline_item_ending_the_legend():
    text = ("Keterangan\nB = Biaya\nQRate = Laju\nalir\n(m3/jam)\nK = 0,5\n")
    assert [c.text for c in found(text)] == ["B = Biaya", "QRate = Laju\nalir\n(m3/jam)"]
    table = "Keterangan :\nW = Waktu\ntunggu\n(jam)\nH. Denda lain per hari\nRp100.000,00\n"
    assert [c.text for c in found(table)] == ["W = Waktu\ntunggu\n(jam)"]


def test_a_legend_cut_by_the_chunks_end_goes_on_in_the_next_chunk():
    first = SourceChunk(chunk_id="D::0001", text="Keterangan:\nA = Harga\njual\nrata-rata")
    second = SourceChunk(chunk_id="D::0002", text="per bulan;\nR = Realisasi\nproduksi (ton)\n\nTarif berlaku.\n")
    other = SourceChunk(chunk_id="D::0003", text="R = rasio yang lain\n")
    # the entry the chunk's end cuts is found whole across the boundary (D56)
    assert [(c.chunk_id, c.next_chunk_id, c.text) for c in find_definitions([first, second, other])] == [
        ("D::0001", "D::0002", "A = Harga\njual\nrata-rata per bulan;"),
        ("D::0002", None, "R = Realisasi\nproduksi (ton)")]


def test_a_list_of_label_lines_is_one_entry_a_line_and_a_form_is_no_glossary():
    text = "Keterangan \nT1 : Rencana pembukaan tahun ke -1 \nTN : Rencana pembukaan tahun terakhir \n\n"
    assert [c.text for c in found(text)] == ["T1 : Rencana pembukaan tahun ke -1",
                                             "TN : Rencana pembukaan tahun terakhir"]
    form = "Nama Pemegang Izin : \nJabatan : \nPARAF PETUGAS:    YA     TIDAK\nCatatan: diisi sebagai berikut:\n"
    assert found(form) == []


def test_statutory_names_opened_by_a_duty_word_modified_by_an_adverb_or_listing_their_parts():
    text = ("1. Wajib Setor adalah pihak yang menyetor iuran.\n"
            "2. Zona sangat dingin yaitu zona dengan suhu di bawah nol.\n"
            "3. Alat, Bahan, dan Suku Cadang yang penting untuk produksi yang selanjutnya disingkat ABS yang\n"
            "penting untuk produksi adalah barang yang menopang produksi.\n"
            "4. Dalam Waktu adalah tidak lama.\n")
    assert [(parts(c)["term"], parts(c).get("abbreviation")) for c in found(text)] == [
        ("Wajib Setor", None), ("Zona sangat dingin", None),
        ("Alat, Bahan, dan Suku Cadang yang penting untuk produksi", "ABS yang\npenting untuk produksi")]


def test_a_definition_the_chunks_end_cuts_is_found_across_the_boundary_when_the_next_chunk_goes_on():
    def cues(first: str, second: str) -> list[tuple[str, str, str | None]]:
        chunks = [SourceChunk(chunk_id="D::0001", text=first), SourceChunk(chunk_id="D::0002", text=second)]
        return [(c.text, c.cue, c.next_chunk_id) for c in find_definitions(chunks)]

    head = "Keterangan:\nC = nilai\nkumulatif"
    cut = cues(head, "ekspor selama\nperiode pembangunan\nfasilitas yang\ndiverifikasi oleh\nverifikator")
    assert cut == [("C = nilai\nkumulatif ekspor selama\nperiode pembangunan\nfasilitas yang\ndiverifikasi oleh\n"
                    "verifikator", "legend", "D::0002")]  # D56: whole, in place of the fragment
    assert cues(head, "ekspor.\nPasal 4") == [("C = nilai\nkumulatif ekspor.", "legend", "D::0002")]
    # a next chunk that opens a new sentence does not go on with it: the entry is what its chunk holds
    assert cues(head, "Ekspor.\nPasal 4") == [("C = nilai\nkumulatif", "legend", None)]


def test_a_notation_list_labels_dotted_identifiers():
    text = ("   Option Fields\n\n       shift.cnt:   Window scale byte in the option.\n"
            "       Rcv.Wind.Scale:  Receive window scale power\n")
    assert [(parts(c)["term"], c.cue) for c in found(text)] == [("shift.cnt", "label"), ("Rcv.Wind.Scale", "label")]
    assert found("See section 3.2. Then: the rest of it follows here.\n") == []


def test_a_term_named_in_emphasis_or_quotes_is_introduced_whether_or_not_its_sentence_is_kept():
    from knowledge_assets.candidates.definitions import introduced_terms

    text = ("The server counts observations in buckets, in the form of a metric type called _histogram_.\n\n"
            "This kind of series is sometimes called a \"bucket series\".\n\n"
            "The exported series is called `http_seconds_bucket` in the exposition.\n")
    chunk = SourceChunk(chunk_id="D::0001", text=text)
    samples = []
    find_definitions([chunk], samples)
    assert [c.part("term").text for c in introduced_terms([chunk], samples)] == ["histogram", "bucket series"]


def test_a_title_line_restated_as_the_sentence_subject_is_not_part_of_the_term():
    text = ("diperlukan data masukan, antara lain:\na. Data Cuaca\n"
            "Data cuaca merupakan data statistik jangka panjang arah angin.\n")
    (candidate,) = found(text)
    assert parts(candidate)["term"] == "Data cuaca"
    assert candidate.text == "Data cuaca merupakan data statistik jangka panjang arah angin."


def test_a_restructuredtext_role_is_no_label():
    assert found("3. calculate :math:`MTBF_c = \\frac{T}{n}`. This is the point on the plot.\n") == []
