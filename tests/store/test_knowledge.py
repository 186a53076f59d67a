"""Entities written to and read back from their tables (store/knowledge.py)."""

from knowledge_assets import contracts as c
from knowledge_assets.branches import RULE
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.knowledge import KeptRow, with_shared_ids, write_branch


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


def _rule(n: int) -> c.RuleEntry:
    return c.RuleEntry(rule_id=f"r_{n:05d}", rule_type="interpretation", statement=f"Rule {n} holds.",
                       term_ids=[f"t_{n % 7}"], provenance=c.Provenance(doc_id="DOC", span=f"Rule {n} holds.",
                                                                          chunk_id=f"DOC::{n:04d}"))


def _written(store: DuckDBStore) -> list[list[dict]]:
    return [store.fetch(f"SELECT * FROM {table} ORDER BY ALL") for table in ("rules", "rejected_fields", "kept_rows")]


def test_a_branch_drawn_as_it_is_written_stores_what_drawing_it_gathered_as_a_list_would(tmp_path):
    """More rules than one insert batch, each drawn as the write takes it; the rejections and
    kept marks gathered while drawing them are written whole, as when all were given at once."""
    rules = [_rule(n) for n in range(2_500)]

    def rejection(rule: c.RuleEntry) -> c.RejectedField:
        return c.RejectedField(entry_term=rule.statement, field="condition", offending_value="x",
                               reason="not verbatim", branch=RULE.contract_branch)

    def mark(rule: c.RuleEntry) -> KeptRow:
        return KeptRow(rule.rule_id, "run-0", 1, "run-1")

    listed = DuckDBStore(tmp_path / "listed.duckdb")
    write_branch(listed, RULE, "DOC", rules, [rejection(r) for r in rules[::500]], [],
                 kept=[mark(r) for r in rules[::1000]])

    drawn = DuckDBStore(tmp_path / "drawn.duckdb")
    rejected: list[c.RejectedField] = []
    kept: list[KeptRow] = []

    def each_rule():
        for n, rule in enumerate(rules):
            rejected.extend([rejection(rule)] if n % 500 == 0 else [])
            kept.extend([mark(rule)] if n % 1000 == 0 else [])
            yield rule

    write_branch(drawn, RULE, "DOC", each_rule(), rejected, [], kept=(row for row in kept))
    assert len(_written(drawn)[0]) == 2_500 and len(_written(drawn)[1]) == 5 and len(_written(drawn)[2]) == 3
    assert _written(drawn) == _written(listed)
