import pytest

from knowledge_assets.store.terms import clustered_mentions, kept_mention_count


def _mention(chunk_id: str, start: int, noise: str | None, term_id: str | None) -> dict:
    return {"doc_id": "SOP-1", "chunk_id": chunk_id, "char_start": start, "char_end": start + 4,
            "surface": "pump", "kind": "noun_phrase", "noise": noise, "term_id": term_id}


@pytest.mark.parametrize("batch_rows", [1, 2_000])
def test_mentions_kept_by_the_noise_filter_are_counted_and_the_clustered_ones_read_in_order(
        store, monkeypatch, batch_rows):
    # Read a batch at a time, never all at once (D106): one row a batch reads them all the same.
    monkeypatch.setattr("knowledge_assets.store.rows._FETCH_BATCH_ROWS", batch_rows)
    store.append("term_mentions", [
        _mention("c2", 0, None, "t1"),
        _mention("c1", 9, None, "t2"),
        _mention("c1", 3, None, None),
        _mention("c1", 1, "stopword", None),
    ])
    assert kept_mention_count(store, "SOP-1") == 3
    mentions = clustered_mentions(store, "SOP-1")
    assert not isinstance(mentions, list)
    assert list(mentions) == [("c1", 9, 13, "t2"), ("c2", 0, 4, "t1")]
