"""Each table's natural key is declared beside the table, in its stage's module, and names
columns the table has."""

import pytest

from knowledge_assets.store import schema
from knowledge_assets.store.tables import evaluation, ingest, knowledge, llm, review, revisions, terms

STAGES = [evaluation, ingest, knowledge, llm, review, revisions, terms]


@pytest.mark.parametrize("stage", STAGES, ids=lambda stage: stage.__name__.rpartition(".")[2])
def test_a_stage_keys_only_its_own_tables_by_their_columns(stage):
    for table, key in stage.KEYS.items():
        assert table in stage.TABLES, f"{table}'s key is declared away from its table"
        assert key and set(key) <= set(stage.TABLES[table]), f"{table}'s key {key} names no column of it"


def test_the_schema_gathers_every_stage_key():
    assert schema.KEYS == {table: key for stage in STAGES for table, key in stage.KEYS.items()}
