"""The approved_knowledge asset: one corpus-wide asset downstream of every document's knowledge."""

import dagster as dg

from knowledge_assets.definitions import defs
from knowledge_assets.defs.assets.review import approved_knowledge
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.ids import domain_id, term_id
from knowledge_assets.review.decisions import record_decision
from knowledge_assets.review.entities import find
from tests.review.conftest import KPI, PRM

MTTR = term_id(KPI, "Mean Time To Repair")
MTBF = term_id(KPI, "Mean Time Between Failures")


def test_approved_knowledge_is_one_unpartitioned_asset_downstream_of_the_four_knowledge_assets():
    node = defs.get_repository_def().asset_graph.get(dg.AssetKey("approved_knowledge"))
    assert node.partitions_def is None and node.code_version
    assert {key.to_user_string() for key in node.parent_keys} == {"glossary", "formulas", "rules", "domain_context"}


def test_materialising_it_writes_the_table_and_reports_counts_per_kind_and_per_document(extracted, instance):
    record_decision(extracted, find(extracted, MTTR), "approved", "alice")
    record_decision(extracted, find(extracted, domain_id(KPI)), "approved", "alice")
    record_decision(extracted, find(extracted, MTBF), "rejected", "bob", note="incomplete")
    result = dg.materialize([approved_knowledge], instance=instance, resources={"knowledge_store": KnowledgeStore()})
    assert result.success
    [event] = result.get_asset_materialization_events()
    metadata = {k: v.value for k, v in event.event_specific_data.materialization.metadata.items()}
    assert metadata["dagster/row_count"] == 2 and metadata["documents"] == 2
    assert (metadata["approved_term"], metadata["approved_domain"], metadata["approved_rule"]) == (1, 1, 0)
    assert (metadata["entries_approved"], metadata["entries_rejected"]) == (2, 1)
    assert (f"| {KPI} | 1 | 0 | 0 | 1 | 0 |" in metadata["by_document"]
            and f"| {PRM} | 0 | 0 | 0 | 0 | 0 |" in metadata["by_document"])
    rows = extracted.fetch("SELECT entity_kind, entity_id FROM approved_knowledge ORDER BY entity_kind")
    assert rows == [{"entity_kind": "domain", "entity_id": domain_id(KPI)}, {"entity_kind": "term", "entity_id": MTTR}]
