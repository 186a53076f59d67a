"""Batching requests: fewer, fuller calls within a size budget."""

from __future__ import annotations

from knowledge_assets.llm.requests import SourceChunk, TermBlock, chunk_batches, cluster_batches


def chunk(chunk_id: str, text: str) -> SourceChunk:
    return SourceChunk(chunk_id=chunk_id, text=text)


def test_cluster_batches_count_a_shared_chunk_once():
    shared = chunk("D::0001", "x" * 600)
    clusters = [TermBlock(key=f"t_{n}", canonical=f"T{n}", chunks=[shared]) for n in range(5)]
    assert [len(batch) for batch in cluster_batches(clusters, budget_chars=1000, max_clusters=3)] == [3, 2]


def test_chunk_batches_stay_within_the_budget():
    chunks = [chunk(f"D::{n:04d}", "y" * 400) for n in range(5)]
    assert [len(batch) for batch in chunk_batches(chunks, budget_chars=1000, max_chunks=16)] == [2, 2, 1]


def test_a_candidate_window_is_its_whole_lines_with_its_parts_and_touching_windows_merge():
    from knowledge_assets.candidates.model import span
    from knowledge_assets.llm.requests import candidate_windows

    text = "Heading\nintro line\nA = B + C\nKeterangan:\nB = one\nfar away\nD = E\ntail"
    chunk = SourceChunk(chunk_id="k", text=text)
    formula = span("formula", "k", text, text.index("A ="), text.index("A =") + 9, "assignment",
                   {"meaning": (text.index("one"), text.index("one") + 3)})
    second = span("formula", "k", text, text.index("D"), text.index("D") + 3, "assignment")
    other_chunk = span("formula", "x", "zzz", 0, 3, "assignment")
    windows = candidate_windows(chunk, [second, formula, other_chunk])
    assert [text[s:e] for s, e in windows] == ["A = B + C\nKeterangan:\nB = one", "D = E"]
    assert all(text[s:e] in text for s, e in windows)
