"""The whole stage on real documents: determinism, document scope, counts, long documents."""

import random
import time
from dataclasses import replace

from knowledge_assets.candidates.definitions import find_definitions
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.terms.discovery import discover, source_chunks
from knowledge_assets.terms.funnel import edge_lines_only, run_term_funnel
from knowledge_assets.terms.mentions import find_occurrences, with_defined_names
from knowledge_assets.terms.noise import read_candidates, screen
from knowledge_assets.terms.store import load_definitions, write_terms
from knowledge_assets.terms.tokens import chunk_words
from tests.terms.conftest import repeated_document


def test_every_mention_is_verbatim_chunk_text_and_kept_mentions_carry_their_cluster(sample_pdf):
    funnel = run_term_funnel(sample_pdf)
    text = {c.chunk_id: c.text for c in sample_pdf.chunks}
    term_ids = {c.term_id for c in funnel.clusters}
    for mention in funnel.mentions:
        assert text[mention.chunk_id][mention.start : mention.end] == mention.surface
        assert (mention.noise is None) == (mention.term_id in term_ids)


def test_funnel_counts_add_up(sample_pdf):
    funnel = run_term_funnel(sample_pdf)
    assert funnel.raw_mentions > funnel.mentions_after_noise > len(funnel.clusters) > 0
    assert funnel.raw_mentions - funnel.mentions_after_noise == sum(funnel.noise_by_reason().values())
    assert sum(c.mention_count for c in funnel.clusters) == funnel.mentions_after_noise
    assert [c.rank for c in funnel.clusters] == list(range(1, len(funnel.clusters) + 1))


def test_same_document_twice_gives_identical_clusters_and_ids(sample_pdf):
    assert run_term_funnel(sample_pdf) == run_term_funnel(sample_pdf)


def test_a_document_whose_pages_are_cut_to_their_edge_lines_gives_the_same_funnel(sample_pdf):
    cut = edge_lines_only(sample_pdf)
    assert sum(len(p.text) for p in cut.pages) < sum(len(p.text) for p in sample_pdf.pages) / 2
    funnel = run_term_funnel(cut)
    assert funnel.noise_by_reason()["page_furniture"] > 0
    assert funnel == run_term_funnel(sample_pdf)


def test_the_noise_filter_gives_the_same_verdicts_reading_only_the_candidates_it_needs(sample_pdf):
    chunks, words = sample_pdf.chunks, chunk_words(sample_pdf.chunks)
    found = discover(chunks, words)
    occurrences = with_defined_names(find_occurrences(chunks, found.candidates, words), found.defined)
    read = read_candidates(found.candidates)
    assert len(read) < len(found.candidates)
    assert {m.kind for m in read} >= {"organisation", "phrase"}
    lean = replace(found, candidates=read)
    every = screen(occurrences, chunks, sample_pdf.pages, found, words)
    assert screen(occurrences, chunks, sample_pdf.pages, lean, words) == every
    assert {m.noise for m in every} >= {"organisation", "page_furniture"}


def test_shuffled_chunk_and_page_order_gives_identical_canonicals_and_ids(sample_pdf):
    chunks, pages = list(sample_pdf.chunks), list(sample_pdf.pages)
    random.Random(7).shuffle(chunks)
    random.Random(7).shuffle(pages)
    shuffled = sample_pdf.model_copy(update={"chunks": chunks, "pages": pages})
    assert [(c.canonical, c.term_id) for c in run_term_funnel(shuffled).clusters] == [
        (c.canonical, c.term_id) for c in run_term_funnel(sample_pdf).clusters
    ]


def test_no_cluster_spans_two_documents(sample_pdf, sample_markdown):
    funnels = [run_term_funnel(sample_pdf), run_term_funnel(sample_markdown)]
    for funnel in funnels:
        assert {m.chunk_id.split("::")[0] for m in funnel.mentions} == {funnel.doc_id}
        assert {c.provenance.doc_id for c in funnel.clusters} == {funnel.doc_id}
    shared = {c.canonical for c in funnels[0].clusters} & {c.canonical for c in funnels[1].clusters}
    assert "Physical Availability" in shared
    ids = [{c.canonical: c.term_id for c in f.clusters} for f in funnels]
    assert all(ids[0][name] != ids[1][name] for name in shared)


def test_a_300_page_document_finishes_and_the_stage_is_not_quadratic(sample_pdf):
    short, long = repeated_document(sample_pdf, 4), repeated_document(sample_pdf, 34)
    assert long.page_count >= 300
    started = time.perf_counter()
    run_term_funnel(short)
    short_seconds = time.perf_counter() - started
    started = time.perf_counter()
    funnel = run_term_funnel(long)
    long_seconds = time.perf_counter() - started
    assert funnel.raw_mentions == 34 * run_term_funnel(sample_pdf).raw_mentions
    # 8.5 times the pages: linear work takes about 8.5 times as long, quadratic about 72.
    assert long_seconds < 60 and long_seconds / short_seconds < 25


def test_every_name_a_definition_gives_becomes_a_cluster_named_in_plain_text(tmp_path):
    from tests.terms.conftest import markdown_document

    document = markdown_document(tmp_path, (
        "# Variables\n\n*R<sub>min</sub>*:\nLowest rate seen in the interval.\n\n"
        "Dana Cadangan Desa yang selanjutnya disingkat DCD adalah dana yang disisihkan setiap tahun.\n\n"
        "DCD dipakai bila R<sub>min</sub> turun.\n"
    ))
    clusters = {c.canonical: c for c in run_term_funnel(document).clusters}
    assert "R_min" in clusters
    assert clusters["Dana Cadangan Desa"].abbreviation == "DCD"


def test_a_section_title_is_no_term_but_a_heading_the_text_uses_or_defines_is(tmp_path):
    from tests.terms.conftest import markdown_document

    document = markdown_document(tmp_path, (
        "# Incident Handling Guide\n\nThis guide is for on-call teams.\n\n"
        "## Related Resources\n\nSee the links below for the escalation policy.\n\n"
        "## Blast Radius\n\n**Definition**: The scope of impact when a failure occurs.\n\n"
        "## Error Budget\n\nTeams spend the Error Budget before they freeze releases.\n"
    ))
    funnel = run_term_funnel(document)
    canonicals = {c.canonical for c in funnel.clusters}
    assert {"Blast Radius", "Error Budget"} <= canonicals
    assert "Related Resources" not in canonicals
    titled = {m.surface for m in funnel.mentions if m.noise == "section_title"}
    assert "Related Resources" in titled and "Blast Radius" not in titled
    assert [c.rank for c in funnel.clusters] == list(range(1, len(funnel.clusters) + 1))


def test_the_definitions_the_glossary_reads_are_those_the_stage_found_and_stored(sample_pdf, tmp_path):
    # The glossary reads the term stage's definition candidates from the store instead of
    # finding them again: they must be exactly what finding them again would give.
    funnel = run_term_funnel(sample_pdf)
    store = DuckDBStore(tmp_path / "knowledge.duckdb")
    write_terms(store, funnel)

    found_again = find_definitions(source_chunks(sorted(sample_pdf.chunks, key=lambda c: c.seq)))
    assert found_again and funnel.definitions == found_again
    assert load_definitions(store, sample_pdf.doc_id) == found_again
    assert load_definitions(store, "ANOTHER-DOC") == []
