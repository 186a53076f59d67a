"""The parse stage: a registered file's rows written as its chunks are cut, and what it reports."""

import pytest

from knowledge_assets.ingest import chunking
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document
from knowledge_assets.ingest.stage import PREVIEW_CHUNKS, chunk_size_summary, parse_registered
from knowledge_assets.store.parsed import load_parsed
from knowledge_assets.store.registry import register
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF


@pytest.mark.parametrize("sample", [SAMPLE_PDF, SAMPLE_MARKDOWN])
def test_rows_written_a_few_chunks_at_a_time_are_the_parsed_documents(store, monkeypatch, sample):
    # Two rows a statement: the chunks pass through many batches, as a long document's do.
    monkeypatch.setattr("knowledge_assets.store.database._INSERT_BATCH_ROWS", 2)
    doc_id = register(store, identify(sample)).source.doc_id
    report = parse_registered(store, doc_id)
    parsed = parse_document(identify(sample))
    assert load_parsed(store, doc_id) == parsed
    assert store.fetch("SELECT chunk_count FROM parsed_documents WHERE doc_id = ?", [doc_id]) == [
        {"chunk_count": len(parsed.chunks)}
    ]
    assert report.header == parsed.model_dump(exclude={"pages", "chunks"})
    assert report.chunk_chars == [len(chunk.text) for chunk in parsed.chunks]
    assert report.first_chunks == parsed.chunks[:PREVIEW_CHUNKS]
    assert chunk_size_summary(report)["chunk_chars_max"] == max(len(chunk.text) for chunk in parsed.chunks)


def test_each_chunk_is_cut_only_when_the_store_asks_for_its_row(store, monkeypatch, tmp_path):
    cut = []
    monkeypatch.setattr(chunking, "chunk_id", lambda doc_id, seq: cut.append(seq) or f"{doc_id}-{seq}")
    replace_partition = store.replace_partition

    def one_row_at_a_time(doc_id, rows_by_table):
        def chunk_rows():
            for taken, row in enumerate(rows_by_table["parsed_chunks"], start=1):
                assert len(cut) == taken  # no chunk made ahead of the row the store takes
                yield row

        replace_partition(doc_id, rows_by_table | {"parsed_chunks": chunk_rows()})

    monkeypatch.setattr(store, "replace_partition", one_row_at_a_time)
    path = tmp_path / "long.txt"
    path.write_text("".join(f"{i}. Section {i}\n\nThe rule {i} applies.\n\n" for i in range(1, 30)), encoding="utf-8")
    report = parse_registered(store, register(store, identify(path)).source.doc_id)
    assert len(cut) == len(report.chunk_chars) > 20


def test_a_new_text_without_a_chunk_is_refused_and_the_rows_parsed_before_stay(store, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("1. Scope\n\nThe rule applies.\n", encoding="utf-8")
    doc_id = register(store, identify(path)).source.doc_id
    parse_registered(store, doc_id)
    before = load_parsed(store, doc_id)
    path.write_text(" \n\n \n", encoding="utf-8")
    with pytest.raises(DocumentError, match="no text found in the document"):
        parse_registered(store, doc_id)
    assert load_parsed(store, doc_id) == before
