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
