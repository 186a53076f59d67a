"""Rule candidates: each drafting convention on text written for these tests, and that every
part is a verbatim slice of its chunk."""

from __future__ import annotations

import random
import re

import pytest

from knowledge_assets.candidates.rules import _abbreviation, _cues, find_rules, mask_furniture, sentences
from knowledge_assets.candidates.source import SourceChunk
from knowledge_assets.crossing import pieces


def chunk(text: str, headings: list[str] | None = None, chunk_id: str = "D::0001") -> SourceChunk:
    return SourceChunk(chunk_id=chunk_id, text=text, heading_path=headings or [])


def rules_in(text: str, headings: list[str] | None = None):
    return find_rules([chunk(text, headings)])


def only_rule(text: str, headings: list[str] | None = None):
    found = rules_in(text, headings)
    assert len(found) == 1, [c.text for c in found]
    return found[0]


def parts(candidate) -> dict[str, str]:
    return {p.role: p.text for p in candidate.parts}


def pairs_of(text: str, cue: str) -> list[tuple[str, str]]:
    """The (condition, consequence) of each rule of `text` that `cue` cut."""
    return [(parts(c)["condition"], parts(c)["consequence"]) for c in rules_in(text) if c.cue == cue]


def test_indonesian_conditional_splits_at_maka():
    rule = only_rule("Apabila kadar debu melampaui ambang batas, yang diukur setiap minggu, maka pengawas "
                     "menghentikan pekerjaan.")
    assert rule.cue == "conditional"
    assert parts(rule)["condition"] == "Apabila kadar debu melampaui ambang batas, yang diukur setiap minggu"
    assert parts(rule)["consequence"] == "maka pengawas menghentikan pekerjaan"
    assert parts(rule)["statement"].endswith("menghentikan pekerjaan.")


@pytest.mark.parametrize("opening", ["Jika", "Jikalau", "Bila"])
def test_indonesian_conditional_without_maka_splits_at_the_closing_comma(opening):
    rule = only_rule(f"{opening} gudang ditutup, pemilik gudang menyerahkan kunci kepada petugas.")
    assert parts(rule)["condition"] == f"{opening} gudang ditutup"
    assert parts(rule)["consequence"] == "pemilik gudang menyerahkan kunci kepada petugas"


def test_dalam_hal_condition_keeps_its_enumeration_and_decimal_commas():
    rule = only_rule("Dalam hal sampel diuji untuk parameter warna, bau, pH, dan suhu di atas 0,5 derajat, "
                     "hasil uji dicatat dalam buku induk.")
    assert rule.cue == "dalam_hal"
    assert parts(rule)["condition"] == ("Dalam hal sampel diuji untuk parameter warna, bau, pH, dan suhu "
                                        "di atas 0,5 derajat")
    assert parts(rule)["consequence"] == "hasil uji dicatat dalam buku induk"


def test_numbered_ayat_label_is_outside_the_rule():
    rule = only_rule("(3) Dalam hal petugas berhalangan, kepala kantor menunjuk pengganti.")
    assert rule.text.startswith("Dalam hal petugas")
    assert parts(rule)["condition"] == "Dalam hal petugas berhalangan"


def test_a_sentence_broken_over_pdf_lines_is_one_rule_and_keeps_its_line_breaks():
    text = ("Pasal 4\n(1) Apabila permohonan tidak lengkap,\n    maka petugas mengembalikan\n"
            "    berkas kepada pemohon.\n")
    rule = only_rule(text)
    assert parts(rule)["consequence"] == "maka petugas mengembalikan\n    berkas kepada pemohon"
    assert rule.text in text


def test_english_conditional_keeps_or_and_regardless_inside_the_condition():
    rule = only_rule("When the queue is full, or when the link is down, regardless of the current mode, "
                     "the relay MUST drop the frame.")
    assert parts(rule)["condition"] == ("When the queue is full, or when the link is down, regardless of the "
                                        "current mode")
    assert parts(rule)["consequence"] == "the relay MUST drop the frame"


def test_if_then_splits_at_then():
    rule = only_rule("If the two tags differ then the record is stale and the reader MUST discard it.")
    assert parts(rule)["condition"] == "If the two tags differ"
    assert parts(rule)["consequence"] == "then the record is stale and the reader MUST discard it"


def test_a_leading_connective_is_not_part_of_the_condition():
    rule = only_rule("Thereafter, when the buffer drains, the sender resumes the stream.")
    assert parts(rule)["condition"] == "when the buffer drains"
    assert rule.text.startswith("Thereafter")


def test_requirement_with_its_condition_after_it():
    rule = only_rule("A node MUST NOT forward a probe if its hop limit is zero.")
    assert rule.cue == "condition_after"
    assert parts(rule)["consequence"] == "A node MUST NOT forward a probe"
    assert parts(rule)["condition"] == "if its hop limit is zero"


def test_indonesian_condition_after_a_modal_and_its_own_clause():
    rule = only_rule("Setelah audit selesai, laporan harus disusun ulang, dan berkas diarsipkan apabila "
                     "auditor menyetujuinya.")
    assert parts(rule)["consequence"] == "berkas diarsipkan"
    assert parts(rule)["condition"] == "apabila auditor menyetujuinya"


def test_an_indonesian_conditional_conjunction_needs_no_modal_but_not_inside_a_subordinate_clause():
    rule = only_rule("Izin dicabut apabila pemegang izin melanggar ketentuan.")
    assert parts(rule)["consequence"] == "Izin dicabut" and parts(rule)["condition"].startswith("apabila pemegang")
    assert rules_in("Zat ini adalah bahan yang apabila terhirup menimbulkan iritasi.") == []


def test_dalam_hal_after_the_consequence_but_not_dalam_hal_ini():
    rule = only_rule("Pembayaran ditunda dalam hal tagihan belum diverifikasi.")
    assert parts(rule)["consequence"] == "Pembayaran ditunda"
    assert parts(rule)["condition"] == "dalam hal tagihan belum diverifikasi"
    assert rules_in("Pemilik, dalam hal ini pengelola gedung, memasang papan nama.") == []


def test_quoted_keywords_are_mentioned_not_used():
    assert rules_in('The words "MUST" and "SHOULD" are to be read as in BCP 14 when they appear in capitals.') == []


def test_a_lowercase_if_without_a_modal_is_not_a_rule():
    assert rules_in("The daemon logs a line if the disk is slow.") == []


def test_leading_circumstance_of_a_requirement_is_its_condition():
    rule = only_rule("To keep the clocks aligned, each replica MUST resend its timestamp every minute when idle.")
    assert rule.cue == "circumstance"
    assert parts(rule)["condition"] == "To keep the clocks aligned"
    assert parts(rule)["consequence"].startswith("each replica MUST resend")


def test_a_reason_clause_is_not_a_condition():
    rule = only_rule("Because the cache is shared, the worker MUST lock it before writing.")
    assert rule.cue == "modal" and "condition" not in parts(rule)


def test_proviso_with_a_list_takes_in_the_list():
    text = ("Pemohon dapat memperoleh keringanan dengan syarat:\n"
            "a. melampirkan surat keterangan; dan\n"
            "b. tidak memiliki tunggakan.\n"
            "(2) Keringanan diberikan satu kali.\n")
    rule = next(c for c in rules_in(text) if c.cue == "proviso")
    assert parts(rule)["consequence"] == "Pemohon dapat memperoleh keringanan"
    assert parts(rule)["condition"].startswith("dengan syarat:\na. melampirkan")
    assert parts(rule)["condition"].endswith("tidak memiliki tunggakan")
    assert parts(rule)["statement"] == "Pemohon dapat memperoleh keringanan dengan syarat:"
    assert "Keringanan diberikan" not in rule.text


def test_condition_introducing_a_list_of_consequences():
    text = ("Apabila alat rusak, maka operator melakukan langkah berikut:\n"
            "a) mematikan mesin;\n"
            "b) memasang tanda bahaya.\n")
    rule = next(c for c in rules_in(text) if c.cue == "conditional")
    assert parts(rule)["consequence"].startswith("maka operator melakukan langkah berikut:\na) mematikan")
    assert parts(rule)["consequence"].endswith("memasang tanda bahaya")


@pytest.mark.parametrize(("after_list", "consequence"), [
    ("b. data belum diverifikasi,\nKepala Dinas menunda pencairan.\n", "Kepala Dinas menunda pencairan"),
    ("b. data belum diverifikasi, maka Kepala Dinas menunda pencairan.\n", "maka Kepala Dinas menunda pencairan"),
])
def test_a_conditional_opening_may_list_its_conditions(after_list, consequence):
    text = "Dalam hal:\na. laporan belum diterima; atau\n" + after_list
    rule = next(c for c in rules_in(text) if c.cue == "dalam_hal")
    assert parts(rule)["condition"].startswith("Dalam hal:\na. laporan belum diterima; atau\nb. data belum")
    assert parts(rule)["consequence"] == consequence
    assert parts(rule)["statement"].endswith("menunda pencairan")


def test_a_conditional_clause_ending_in_a_colon_lists_its_consequences():
    text = "If the queue is full:\n- drop the newest frame;\n- log the drop.\n\nOther text.\n"
    rule = next(c for c in rules_in(text) if c.cue == "conditional")
    assert parts(rule)["condition"] == "If the queue is full"
    assert parts(rule)["consequence"] == "- drop the newest frame;\n- log the drop"


def test_tiered_schedule_items():
    text = ("Denda ditetapkan sebagai berikut:\n"
            "a. 2% (dua persen) untuk keterlambatan sampai dengan 5 (lima) hari;\n"
            "b. 4% (empat persen) untuk keterlambatan lebih dari 5 (lima) hari.\n")
    tiers = [c for c in rules_in(text) if c.cue == "tier"]
    assert [parts(c)["consequence"] for c in tiers] == ["2% (dua persen)", "4% (empat persen)"]
    assert parts(tiers[0])["condition"] == "untuk keterlambatan sampai dengan 5 (lima) hari"


def test_a_list_item_closed_by_its_semicolon_and_conjunction_is_whole_at_the_chunk_end():
    text = "Denda:\na. 1% (satu persen) untuk keterlambatan 5 hari;\nb. 2% (dua persen) untuk telat 9 hari; atau"
    assert [consequence for _, consequence in pairs_of(text, "tier")] == ["1% (satu persen)", "2% (dua persen)"]


def test_an_anaphoric_circumstance_takes_the_condition_of_the_sentence_before():
    text = "If the peer is idle, then the link is dormant. In this case, the node SHOULD send a keepalive."
    rule = next(c for c in rules_in(text) if c.cue == "anaphora")
    assert parts(rule)["condition"] == "If the peer is idle"
    assert parts(rule)["consequence"] == "In this case, the node SHOULD send a keepalive"
    assert parts(rule)["statement"] == "In this case, the node SHOULD send a keepalive."
    assert rule.text == text


def test_an_anaphoric_circumstance_after_a_plain_sentence_is_a_connective():
    rule = only_rule("The link is dormant. In this case, the node SHOULD send a keepalive.")
    assert rule.cue == "modal" and parts(rule)["subject"] == "the node"


def test_commencement_clause():
    rule = only_rule("Peraturan Bupati ini mulai berlaku setelah 7 (tujuh) hari terhitung sejak diundangkan.")
    assert rule.cue == "commencement"
    assert parts(rule)["consequence"] == "Peraturan Bupati ini mulai berlaku"
    assert parts(rule)["condition"] == "setelah 7 (tujuh) hari terhitung sejak diundangkan"


def test_deadline_separates_subject_and_predicate_without_a_condition():
    rule = only_rule("Laporan triwulan sebagaimana dimaksud pada ayat (2) disampaikan paling lambat tanggal "
                     "10 bulan berikutnya.")
    assert rule.cue == "deadline" and "condition" not in parts(rule)
    assert parts(rule)["subject"] == "Laporan triwulan sebagaimana dimaksud pada ayat (2)"
    assert parts(rule)["consequence"].startswith("disampaikan paling lambat")


@pytest.mark.parametrize(("sentence", "subject"), [
    ("Setiap pengunjung wajib memakai helm.", "Setiap pengunjung"),
    ("Petugas dilarang membuka segel.", "Petugas"),
    ("Kabel cadangan tidak boleh dipakai ulang.", "Kabel cadangan"),
    ("Receivers SHOULD NOT cache the reply.", "Receivers"),
])
def test_obligations_and_prohibitions_have_a_subject_not_a_condition(sentence, subject):
    rule = only_rule(sentence)
    assert rule.cue == "modal" and parts(rule)["subject"] == subject and "condition" not in parts(rule)


def test_lowercase_must_and_a_modal_in_a_relative_clause_are_not_requirements():
    assert rules_in("Operators must be careful here.") == []
    assert rules_in("Bagian ini memuat aturan yang harus diikuti oleh petugas.") == []


def test_rfc_page_furniture_inside_a_sentence_is_masked_but_kept_in_the_span():
    text = ("   When the timer fires, the client MUST retry the request with\n\n"
            "Doe & Roe                    Standards Track                  [Page 7]\n"
            "\fRFC 9999                    Example Protocol                 May 2030\n\n"
            "   a fresh nonce.\n")
    rule = only_rule(text)
    assert parts(rule)["condition"] == "When the timer fires"
    assert parts(rule)["consequence"].endswith("a fresh nonce")
    assert "[Page 7]" in parts(rule)["consequence"]
    assert rule.text in text


def test_page_furniture_never_starts_a_rule():
    masked, furniture = mask_furniture("- 3 -\nPRESIDEN\nREPUBLIK INDONESIA\nPasal 5 ...\nIsi.\n")
    assert masked.startswith(" " * 5) and "PRESIDEN" not in masked and "Pasal 5 ..." not in masked
    assert len(furniture) == 4


def test_a_running_header_is_masked_and_a_sentence_cut_by_the_chunk_edge_is_left_out():
    header = "PT Contoh Jaya | DOC-01 Prosedur Gudang"
    chunks = [chunk(f"{header}\nIsi halaman {n}.\nHalaman {n} dari 4", chunk_id=f"D::{n:04d}") for n in range(1, 4)]
    chunks.append(chunk(f"{header}\nbarang wajib ditimbang ulang.\nSetiap palet wajib diberi label.",
                        chunk_id="D::0004"))
    found = find_rules(chunks)
    assert [c.text for c in found] == ["Setiap palet wajib diberi label."]


def test_a_sentence_cut_by_the_chunk_end_is_not_a_rule():
    assert rules_in("Isi lengkap.\nApabila data hilang, maka petugas") == []


def test_code_fences_are_skipped_even_when_the_chunk_starts_inside_one():
    text = "x = y MUST z\n~~~\n\nIf the value is odd, the parser MUST reject it.\n\n~~~ text\nIf a, b MUST c.\n~~~\n"
    assert [parts(c)["condition"] for c in rules_in(text)] == ["If the value is odd"]


def test_a_heading_line_is_not_part_of_the_sentence_under_it():
    rule = only_rule("4.2.  Penyimpanan\nSetiap tabung harus diikat.", ["4.2.  Penyimpanan"])
    assert rule.text == "Setiap tabung harus diikat."


def test_sentences_split_after_a_full_stop_but_not_after_an_abbreviation():
    text = "Lihat No. 5 di atas. Apabila ragu, tanyakan."
    units = sentences(text)
    assert [text[u.body:u.end] for u in units] == ["Lihat No. 5 di atas.", "Apabila ragu, tanyakan."]


@pytest.mark.parametrize(("text", "expected"), [
    # the abbreviation is the line's last word, read back from its full stop
    ("Use a gauge, e.g.\na digital caliper.", ["Use a gauge, e.g.\na digital caliper."]),
    # an initial after an opening parenthesis is one too
    ("Disetujui oleh (A.\nBudi) sebagai pengawas.", ["Disetujui oleh (A.\nBudi) sebagai pengawas."]),
    # a full stop standing alone after a space closes no word: the sentence ends
    ("Pompa dimatikan .\nKatup ditutup.", ["Pompa dimatikan .", "Katup ditutup."]),
    # a sentence ending in an ordinary word ends, however long the text before it
    ("Kata " * 2000 + "akhir.\nBaris baru.", ["Kata " * 2000 + "akhir.", "Baris baru."]),
])
def test_a_line_ends_its_sentence_unless_its_last_word_is_an_abbreviation(text, expected):
    units = sentences(text)
    assert [text[u.body:u.end] for u in units] == expected


def test_the_word_before_a_stop_is_read_back_as_the_pattern_over_the_whole_text_found_it():
    """D101: `_abbreviation` reads the last word back from the stop instead of searching
    `(\\S+)\\.$` over all the text before it; on any text ending at a stop they agree."""
    rng = random.Random(31)
    alphabet = ["e", "g", "no", "A", ".", "!", "?", " ", "\n", "(", "\"", "'", "\u00a0", "etc", "x"]
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 12))) + rng.choice(".!?")
        start = rng.randrange(0, len(text))
        word = re.search(r"(\S+)\.$", text[start:])
        token = word.group(1).lstrip("(\"'") if word else None
        expected = token is not None and (token.casefold() in _cues().abbreviations
                                          or (len(token) == 1 and token.isalpha()))
        assert _abbreviation(text, start, len(text)) == expected, (text, start)


def test_every_part_is_a_verbatim_slice_of_its_chunk():
    text = ("(1) Dalam hal kapal tiba malam hari, maka pemeriksaan dilakukan\npagi berikutnya.\n"
            "Upon a restart (for any reason), the counter MUST be reset to zero.\n")
    for candidate in rules_in(text):
        assert text[candidate.start:candidate.end] == candidate.text
        for part in candidate.parts:
            assert text[part.start:part.end] == part.text


def test_then_after_a_comma_further_back_is_an_adverb_of_the_consequence():
    found = parts(only_rule("If the queue is full, the value is then doubled by the sender."))
    assert found["condition"] == "If the queue is full"
    assert found["consequence"].startswith("the value is then doubled")


def test_a_short_clause_stating_an_obligation_is_the_consequence_not_an_enumeration_item():
    found = parts(only_rule("Jika suhu naik, operator harus berhenti, lalu melapor kepada pengawas."))
    assert found["condition"] == "Jika suhu naik"
    assert found["consequence"].startswith("operator harus berhenti")


@pytest.mark.parametrize(("sentence", "cue", "condition", "consequence"), [
    # a time clause set off by a comma needs no modal
    ("After the backup finishes, rotate the log files.", "temporal", "After the backup finishes",
     "rotate the log files"),
    ("Sebelum mesin dinyalakan, operator memeriksa oli.", "temporal", "Sebelum mesin dinyalakan",
     "operator memeriksa oli"),
    ("Pada saat Peraturan Bupati ini mulai berlaku, izin yang telah terbit tetap berlaku.", "temporal",
     "Pada saat Peraturan Bupati ini mulai berlaku", "izin yang telah terbit tetap berlaku"),
    # a later proviso wins over an opening time clause
    ("Pada saat Peraturan ini mulai berlaku, semua izin dinyatakan masih berlaku sepanjang tidak bertentangan "
     "dengan Peraturan ini.", "proviso", "sepanjang tidak bertentangan dengan Peraturan ini",
     "Pada saat Peraturan ini mulai berlaku, semua izin dinyatakan masih berlaku"),
    # a life-cycle stage without a comma is the stage word and the stage's name
    ("(2) Selama tahap konstruksi pekerjaan galian harus diawasi.", "stage", "Selama tahap konstruksi",
     "pekerjaan galian harus diawasi"),
    ("Operator harus memeriksa katup sebelum pompa dinyalakan.", "condition_after", "sebelum pompa dinyalakan",
     "Operator harus memeriksa katup"),
    # a trigger or a case phrase after its consequence needs no modal
    ("Send a page only when the queue stays full for ten minutes.", "proviso",
     "only when the queue stays full for ten minutes", "Send a page"),
    ("The team opens a bridge call for cases that affect paying customers.", "proviso",
     "for cases that affect paying customers", "The team opens a bridge call"),
    # a conditional clause after an opening phrase opens the condition
    ("Dalam rangka pengawasan, apabila segel rusak, petugas membuat berita acara.", "conditional",
     "apabila segel rusak", "petugas membuat berita acara"),
    # an Indonesian condition without a comma ends at the main clause's passive verb
    ("Dalam hal pemohon mengajukan keberatan diberikan waktu tambahan.", "dalam_hal",
     "Dalam hal pemohon mengajukan keberatan", "diberikan waktu tambahan"),
    # a degree of a quantity and the verb that reads it
    ("A higher queue depth usually indicates a slow consumer.", "degree", "A higher queue depth",
     "usually indicates a slow consumer"),
    # comparative correlatives, also after a dash
    ("Backups matter - the sooner you test a restore, the sooner you find gaps.", "correlative",
     "the sooner you test a restore", "the sooner you find gaps"),
    ("Semakin tinggi suhu, semakin cepat reaksi berlangsung.", "correlative", "Semakin tinggi suhu",
     "semakin cepat reaksi berlangsung"),
    # a subject restricted by a relative clause
    ("A relay that receives a malformed frame MUST drop it.", "qualified_subject",
     "A relay that receives a malformed frame", "MUST drop it"),
])
def test_a_convention_cuts_the_condition_and_the_consequence(sentence, cue, condition, consequence):
    rule = only_rule(sentence)
    assert (rule.cue, parts(rule)["condition"], parts(rule)["consequence"]) == (cue, condition, consequence)


@pytest.mark.parametrize("sentence", [
    "After all, the fee is small.",  # a time adverb referring back
    "Setelah itu, petugas pulang.",
    "Pada saat ini, gudang sedang direnovasi.",
    "Selama tahap konstruksi pekerjaan galian diawasi.",  # a stage without a modal
    "Operator memeriksa katup sebelum pompa dinyalakan.",  # a time clause after no modal
    "The map F(x), where x is a word, is defined by the table.",  # `where` describes
    "Pemohon selaku Wajib Lapor menyampaikan laporan.",  # a capitalised modal is part of a name
    "The high voltage line runs along the wall.",  # a degree without a reading verb
    "Short outages page the engineer, while the manager sleeps.",  # a contrast of two things
    "The more common case, the one above, is rare.",  # half a correlative
])
def test_not_a_rule(sentence):
    assert rules_in(sentence) == []


@pytest.mark.parametrize(("sentence", "subject"), [
    ("Pemohon selaku Wajib Lapor wajib menyampaikan laporan.", "Pemohon selaku Wajib Lapor"),
    ("Apabila diperlukan ruang tunggu harus disediakan.", "Apabila diperlukan ruang tunggu"),  # not cut: a modal
    ("The point is that the relay MUST drop it.", "The point is that the relay"),  # a complement clause
    ("Fasilitas yang memadai harus disediakan.", "Fasilitas yang memadai"),  # `yang` only describes
])
def test_a_requirement_whose_subject_is_no_condition(sentence, subject):
    rule = only_rule(sentence)
    assert rule.cue == "modal" and parts(rule)["subject"] == subject


def test_markdown_run_in_matter_is_not_part_of_the_rule():
    found = parts(only_rule('> :::image type="icon" source="tip.svg"::: **Tip:** If the cache is cold, warm it.'))
    assert (found["statement"], found["condition"]) == ("If the cache is cold, warm it.", "If the cache is cold")


def test_two_degrees_of_one_quantity_contrasted_are_two_rules():
    assert pairs_of("Short outages page the on-call engineer, while long outages open an incident.", "contrast") == [
        ("Short outages", "page the on-call engineer"), ("long outages", "open an incident")]


def test_rate_schedule_rows_compare_a_quantity_through_its_unit():
    text = ("Tarif royalti:\na) Harga < USD50 per ton 3% dari Harga\nb) USD50 < Harga per ton 5% dari Harga\n"
            "Tarif ditinjau setiap tahun.\n")
    assert pairs_of(text, "rate_tier") == [("Harga < USD50 per ton", "3% dari Harga"),
                                           ("USD50 < Harga per ton", "5% dari Harga")]
    assert rules_in("Limits:\na) load < 5 per node plus overhead\n") == []


def test_a_rate_set_in_parentheses_after_the_unit_is_the_rows_consequence():
    text = ("dihitung berdasarkan formula:\na) HBA < USD 70 (tujuh puluh) per ton,\n(tarif 15% (lima belas persen) "
            "dikalikan\nharga jual) dikurangi tarif iuran;\nb) HBA > USD 70 per ton\nsampai dengan < USD 120 per ton, "
            "(tarif 18% (delapan\n"
            "belas persen) dikalikan harga jual)\ndikurangi tarif iuran;\n")
    assert pairs_of(text, "rate_tier") == [
        ("HBA < USD 70 (tujuh puluh) per ton", "(tarif 15% (lima belas persen) dikalikan\nharga jual)"),
        ("HBA > USD 70 per ton\nsampai dengan < USD 120 per ton",
         "(tarif 18% (delapan\nbelas persen) dikalikan harga jual)")]


def test_flattened_tariff_rows_pair_each_case_label_with_its_cell():
    text = ("A. Denda dalam hal pemegang izin terlambat melapor per\nlaporanRp 100.000,00\n"
            "per kasusRp[Tarif x\n2 (dua kali)]B. Denda dalam hal pemegang izin tidak melapor\n"
            "C. Sanksi terhadap pemegang izin yang lalai\nberupa denda tetapper kasus Rp 9,00\n"
            "1. Sewa ruang rapat per hariRp 500.000,00\n")
    assert pairs_of(text, "tariff_row") == [
        ("Denda dalam hal pemegang izin terlambat melapor", "100.000,00"),
        ("Denda dalam hal pemegang izin tidak melapor", "[Tarif x\n2 (dua kali)]"),
        ("Sanksi terhadap pemegang izin yang lalai", "berupa denda tetap")]
    assert not any("Sewa" in c.text for c in rules_in(text))


def test_a_pseudo_code_branch_takes_the_lines_indented_under_it():
    text = "   That is:\n\n      if count == 0:\n         total = base\n      else:\n         total = base + 1\n"
    rule = only_rule(text)
    assert rule.cue == "branch"
    assert (parts(rule)["condition"], parts(rule)["consequence"]) == ("if count == 0:", "total = base")
    assert rules_in("   if count == 0:\n   total = base\n") == []


def test_numbered_algorithm_steps_each_take_the_condition_that_introduces_them():
    text = ("When the timer expires, do the following:\n\n(5.4) Retransmit the oldest segment.\n\n"
            "(5.5) Double the timeout.\n")
    assert pairs_of(text, "step") == [("When the timer expires", "Retransmit the oldest segment"),
                                      ("When the timer expires", "Double the timeout")]
    assert parts(rules_in(text)[1])["statement"] == "Retransmit the oldest segment."
    assert pairs_of("The sender does the following:\n\n(5.4) Retransmit the oldest segment.\n", "step") == []


# ------------------------------------------------------------------ the layout-proof reading (D65)


def _assert_verbatim(text: str, rule) -> None:
    assert rule.text == text[rule.start:rule.end]
    for part in rule.parts:
        assert part.text == text[part.start:part.end]


@pytest.mark.parametrize("text", [
    # a PDF-to-Markdown converter's blank line in the middle of the sentence (after a function word)
    "If the reservoir level falls below the lower mark, the operator must close the\n\noutlet gate.",
    # CRLF line ends
    "If the reservoir level falls below the lower mark,\r\nthe operator must close\r\nthe outlet gate.",
    # raw pdftotext: one word a line
    "\n".join("If the reservoir level falls below the lower mark, the operator must close the outlet gate."
              .split()),
    # justified text: runs of spaces between the words
    "If  the   reservoir level  falls below   the lower mark,   the operator  must   close the outlet gate.",
    # a word split across lines by a line-break hyphen
    "If the reservoir level falls below the lower mark, the oper-\nator must close the outlet gate.",
])
def test_a_rule_is_found_whole_whatever_the_layout(text):
    rule = only_rule(text)
    assert rule.cue == "conditional"
    _assert_verbatim(text, rule)
    assert rule.text == text.strip()
    assert " ".join(parts(rule)["condition"].split()) == "If the reservoir level falls below the lower mark"
    assert parts(rule)["consequence"].split()[-1] == "gate"


def test_a_rule_crossing_a_page_number_line_is_found_whole_with_the_line_inside_its_span():
    text = "Apabila kadar debu melampaui ambang batas, pengawas\n\n- 4 -\n\nwajib menghentikan pekerjaan."
    rule = only_rule(text)
    _assert_verbatim(text, rule)
    assert rule.text == text
    assert parts(rule)["consequence"].endswith("menghentikan pekerjaan")


def test_a_rule_across_a_chunk_boundary_is_read_through_its_layout_too():
    first = chunk("Intro sentence.\r\n\r\nIf the reservoir level falls below the lower mark, the operator must "
                  "close the\r\n\r\nupper and", chunk_id="D::0001")
    second = chunk("lower outlet gates.\r\n\r\nNext.", chunk_id="D::0002")
    rule = next(c for c in find_rules([first, second]) if c.cue == "conditional")
    assert rule.next_chunk_id == "D::0002"
    head, tail = pieces(first.text, second.text, rule.start, rule.end)
    assert first.text[head[0]:head[1]].startswith("If the reservoir") and first.text[head[1] - 3:head[1]] == "and"
    assert second.text[tail[0]:tail[1]] == "lower outlet gates."
    assert parts(rule)["consequence"].endswith("lower outlet gates")


def test_a_condition_coordinated_with_the_clause_before_it_is_not_split_off():
    text = "Ventilasi harus dioperasikan terus-menerus, dan tidak boleh diubah kecuali diizinkan oleh BAPETEN atau " \
           "dalam hal keadaan darurat.\n"
    assert not any((r.part("consequence") or r).text.rstrip().endswith("atau") for r in rules_in(text))
