"""Entities read back from their tables (store/knowledge.py)."""

from knowledge_assets.store.knowledge import with_shared_ids


def _fresh(text: str) -> str:
    """`text` as a string object of its own, as the store gives each item of a list it reads."""
    return "".join(list(text))


def test_list_items_read_back_share_one_string_per_distinct_id():
    rows = [{"rule_id": "r_1", "formula_ids": [_fresh("f_1"), _fresh("f_2")], "term_ids": []},
            {"rule_id": "r_2", "formula_ids": [_fresh("f_2")], "term_ids": [_fresh("t_1")]}]
    assert rows[0]["formula_ids"][1] is not rows[1]["formula_ids"][0]
    shared = list(with_shared_ids(rows))
    assert shared == [{"rule_id": "r_1", "formula_ids": ["f_1", "f_2"], "term_ids": []},
                      {"rule_id": "r_2", "formula_ids": ["f_2"], "term_ids": ["t_1"]}]
    assert shared[0]["formula_ids"][1] is shared[1]["formula_ids"][0]
