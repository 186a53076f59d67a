"""Candidates that cross a chunk boundary (D56), on text of our own."""

from knowledge_assets.candidates.boundaries import views
from knowledge_assets.candidates.definitions import find_definitions
from knowledge_assets.candidates.rules import find_rules
from knowledge_assets.candidates.source import SourceChunk
from knowledge_assets.crossing import joined, pieces, runs_on
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document

FIRST = ("Ketentuan umum.\n"
         "1. Zona aman adalah zona kerja yang tidak memerlukan\npengawasan khusus dan")
SECOND = "terletak di luar pagar tambang.\n2. Zona lain adalah zona kerja di dalam pagar tambang."


def _chunks(*texts: str) -> list[SourceChunk]:
    return [SourceChunk(chunk_id=f"c{i}", text=t) for i, t in enumerate(texts)]


def test_a_sentence_runs_on_only_when_the_first_part_ends_no_sentence_and_the_second_goes_on_in_lowercase():
    assert runs_on("pengawasan khusus dan  \n", "  terletak di luar")
    assert not runs_on("pengawasan khusus.", "terletak di luar")
    assert not runs_on("pengawasan khusus dan", "Pasal 3")


def test_the_pieces_of_a_joined_slice_are_exact_slices_of_each_chunk():
    first, second = "alpha beta  \n", "\n gamma delta. Next"
    whole = joined(first, second)
    assert whole == "alpha beta gamma delta. Next"
    start, end = whole.index("beta"), whole.index(".") + 1
    (a, b), (c, d) = pieces(first, second, start, end)
    assert (first[a:b], second[c:d]) == ("beta", "gamma delta.")
    assert pieces(first, second, 0, 5) is None  # inside the first chunk: no crossing


def test_the_view_is_the_last_two_sentences_and_the_next_chunks_first_sentence():
    [view] = views(_chunks("Bagian ini panjang. " * 60 + FIRST, SECOND))
    assert view.chunk().text == ("Ketentuan umum.\n1. Zona aman adalah zona kerja yang tidak memerlukan\n"
                                 "pengawasan khusus dan terletak di luar pagar tambang.\n")


def test_a_definition_cut_by_a_page_break_is_found_whole_in_place_of_its_halves():
    found = find_definitions(_chunks(FIRST, SECOND))
    crossing = [c for c in found if c.next_chunk_id]
    assert [c.part("term").text for c in crossing] == ["Zona aman"]
    [definition] = crossing
    assert definition.chunk_id == "c0" and definition.next_chunk_id == "c1"
    assert definition.part("definition").text.endswith("khusus dan terletak di luar pagar tambang.")
    assert joined(FIRST, SECOND)[definition.start:definition.end] == definition.text
    # the cut half the first chunk held is gone: one candidate for the term, the crossing one
    assert [c.part("term").text for c in found if c.chunk_id == "c0"] == ["Zona aman"]


def test_a_rule_cut_by_a_chunk_boundary_is_found_across_it():
    first = "Apabila pekerja menerima dosis di atas batas yang\nditetapkan, maka pekerja itu"
    second = "harus dipindahkan dari zona kerja.\nPasal 5"
    [rule] = [c for c in find_rules(_chunks(first, second)) if c.next_chunk_id]
    assert rule.part("condition").text.startswith("Apabila pekerja menerima dosis")
    assert rule.part("consequence").text.endswith("harus dipindahkan dari zona kerja")


def test_chunks_that_end_their_sentences_give_no_view_and_no_crossing_candidate():
    first, second = "1. Zona aman adalah zona kerja di luar pagar.", "terletak jauh."
    assert views(_chunks(first, second)) == []
    assert not any(c.next_chunk_id for c in find_definitions(_chunks(first, second)))


def test_a_definition_the_size_cap_cuts_mid_sentence_is_found_across_the_cut(tmp_path):
    filler = "rencana kerja disusun setiap tahun. Rencana itu dinilai oleh\n"
    text = ("Ketentuan Penambangan\n\n" + filler * 24
            + "tim teknis. Kadar Batas adalah kadar terendah bahan galian yang\n"
              "masih layak ditambang menurut perhitungan ekonomi yang berlaku\n"
              "pada saat penambangan dimulai. Rencana itu dinilai oleh\n" + filler * 4 + "tim teknis.\n")
    path = tmp_path / "kadar.txt"
    path.write_text(text, encoding="utf-8")
    chunks = parse_document(identify(path)).chunks
    cut = next(i for i, chunk in enumerate(chunks) if chunk.text.endswith("Kadar Batas adalah"))
    source = [SourceChunk(chunk_id=c.chunk_id, text=c.text, heading_path=c.heading_path) for c in chunks]
    [definition] = [c for c in find_definitions(source) if c.part("term").text == "Kadar Batas"]
    assert (definition.chunk_id, definition.next_chunk_id) == (chunks[cut].chunk_id, chunks[cut + 1].chunk_id)
    assert definition.text.endswith("pada saat penambangan dimulai.")
