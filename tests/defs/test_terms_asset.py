"""The term_clusters asset materialised with parsed_chunks against a real store."""

import dagster as dg
import pytest

from knowledge_assets.defs.assets import terms
from knowledge_assets.defs.assets.ingest import parsed_chunks
from knowledge_assets.defs.assets.terms import _cluster, term_clusters
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.ids import term_id
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.stage import parse_registered
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.registry import register
from knowledge_assets.terms.store import load_clusters
from tests.conftest import SAMPLE_PDF


def materialise(tmp_path, path, instance, doc_id=None) -> tuple[dg.ExecuteInProcessResult, DuckDBStore, str]:
    store = DuckDBStore(tmp_path / "k.duckdb")
    doc_id = register(store, identify(path, doc_id)).source.doc_id
    instance.add_dynamic_partitions("documents", [doc_id])
    result = dg.materialize(
        [parsed_chunks, term_clusters],
        partition_key=doc_id,
        instance=instance,
        resources={"knowledge_store": KnowledgeStore(database=str(store.path))},
    )
    return result, store, doc_id


def term_metadata(result: dg.ExecuteInProcessResult) -> dict[str, object]:
    (event,) = [
        e for e in result.get_asset_materialization_events() if e.asset_key == dg.AssetKey("term_clusters")
    ]
    return {k: v.value for k, v in event.event_specific_data.materialization.metadata.items()}


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("asset")
    (root / "dagster").mkdir()
    # The instance must outlive the run result, which reads events through it.
    with dg.instance_for_test(temp_dir=str(root / "dagster")) as instance:
        yield materialise(root, SAMPLE_PDF, instance)


def test_the_funnel_is_numeric_metadata_and_the_sample_meets_its_targets(sample_run):
    result, _, _ = sample_run
    meta = term_metadata(result)
    assert result.success
    assert meta["raw_mentions"] > meta["mentions_after_noise"] > meta["clusters"] == meta["dagster/row_count"] > 0
    assert isinstance(meta["compression"], float)
    assert meta["compression"] == pytest.approx(meta["mentions_after_noise"] / meta["clusters"])
    assert meta["noise_page_furniture"] > 0
    assert meta["e1_term_filter_recall"] >= 0.90
    assert meta["non_gold_clusters_per_page"] < 10
    assert "| 1 | Machine on Hand Hours | MOHH |" in meta["preview"]


def test_both_tables_hold_the_partition_and_clusters_load_in_rank_order(sample_run):
    result, store, doc_id = sample_run
    clusters = load_clusters(store, doc_id)
    meta = term_metadata(result)
    assert len(clusters) == meta["clusters"]
    assert [c.rank for c in clusters] == list(range(1, len(clusters) + 1))
    assert all(c.term_id == term_id(doc_id, c.canonical) and c.provenance.doc_id == doc_id for c in clusters)
    counts = store.fetch(
        "SELECT count(*) AS raw, count(*) FILTER (WHERE noise IS NULL) AS kept FROM term_mentions WHERE doc_id = ?",
        [doc_id],
    )
    assert counts == [{"raw": meta["raw_mentions"], "kept": meta["mentions_after_noise"]}]
    pa = next(c for c in clusters if c.abbreviation == "PA")
    assert "Physical of Availability" in pa.surfaces and pa.provenance.page_no == pa.provenance.page + 1


def test_a_document_without_gold_gets_no_e1(tmp_path, instance):
    path = tmp_path / "note.md"
    path.write_text("# 1. Scope\n\nFill Factor (FF) adalah perbandingan volume.\n\nFF naik bila Fill Factor naik.\n")
    result, store, doc_id = materialise(tmp_path, path, instance, "NOTE-1")
    meta = term_metadata(result)
    assert "e1_term_filter_recall" not in meta
    assert [c.canonical for c in load_clusters(store, doc_id)] == ["Fill Factor"]


def test_a_long_document_is_read_and_written_on_connections_of_its_own_and_its_rows_are_the_same(
    tmp_path, monkeypatch
):
    store = DuckDBStore(tmp_path / "k.duckdb")
    doc_id = register(store, identify(SAMPLE_PDF)).source.doc_id
    parse_registered(store, doc_id)

    def rows() -> list[list[dict[str, object]]]:
        return [store.fetch(f"SELECT * FROM {table} ORDER BY ALL")
                for table in ("term_mentions", "term_clusters", "definition_candidates")]

    releases: list[DuckDBStore] = []
    release = DuckDBStore.released
    monkeypatch.setattr(DuckDBStore, "released", lambda self: releases.append(self) or release(self))
    with store.session():
        _cluster(store, doc_id)
        assert releases == []  # a short document keeps the session's connection (D78)
        short = rows()
        monkeypatch.setattr(terms, "_LONG_DOCUMENT_CHUNKS", 1)
        _cluster(store, doc_id)
        assert releases == [store, store]  # once after the read, once around the write
        assert rows() == short
