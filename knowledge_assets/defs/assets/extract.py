"""The knowledge assets: formulas, glossary, rules, domain context and the review queue.
Thin wiring around `knowledge_assets.extract.stages`."""

import contextlib

import dagster as dg

from knowledge_assets.defs.assets.batch import failing_the_document, materialize_each, step_store
from knowledge_assets.defs.assets.code_versions import chained_code_version
from knowledge_assets.defs.assets.ingest import parsed_chunks
from knowledge_assets.defs.assets.metadata import entity_links, preview_table, revision_metadata, table_metadata
from knowledge_assets.defs.assets.terms import term_clusters
from knowledge_assets.defs.llm import KnowledgeLLM
from knowledge_assets.defs.partitions import documents
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.errors import MissingUpstream
from knowledge_assets.extract import stages
from knowledge_assets.extract.ahead import AskedAhead, HeldAnswers, Later, Planner
from knowledge_assets.extract.tally import PREVIEW_ROWS
from knowledge_assets.llm.extractor import CallPool
from knowledge_assets.llm.prompts import load_prompt
from knowledge_assets.llm.usage import usage_totals
from knowledge_assets.review.web.links import document_review_url
from knowledge_assets.store.held import drop_cached_pages
from knowledge_assets.store.protocol import Store

_COMMON = {
    "partitions_def": documents,
    "group_name": "knowledge",
    "owners": ["team:knowledge-assets"],
    "automation_condition": dg.AutomationCondition.eager(),
    "backfill_policy": dg.BackfillPolicy.single_run(),
}


def _llm_kinds() -> set[str]:
    # Resolved when the definitions load, like the code versions: an offline deployment does not
    # claim `openai` in the UI; one whose runs ask a model does.
    return {"python", "duckdb"} | ({"openai"} if KnowledgeLLM().settings().backend == "openai" else set())


# Model-calling steps share one pool, limited in dagster.yaml, so rate limits hold across runs.
_LLM = {**_COMMON, "kinds": _llm_kinds(), "pool": "llm"}


def _result(result: stages.StageResult, table: str, links: dict[str, object] | None = None,
            llm: KnowledgeLLM | None = None, branch: str | None = None):
    metadata = {"dagster/row_count": result.rows, **result.figures, "table": table,
                "preview": preview_table(result.preview, PREVIEW_ROWS), **(links or {})}
    if llm is not None:
        metadata |= llm.metadata() | usage_totals(result.results, llm.price_table_entry())
        metadata |= {"prompt_sha256": load_prompt(branch).sha256[:16], "rejected_fields": len(result.rejected)}
    return dg.MaterializeResult(metadata=metadata)


# The model stages in the order a run materialises them (each after those it depends on).
_PLANS = {"formulas": stages.plan_formulas, "glossary": stages.plan_glossary, "rules": stages.plan_rules,
          "domain_context": stages.plan_domain_context}
# Dagster's executors that run every step of a run in the run's own process, one after another.
_ONE_PROCESS = {"in_process", "execute_in_process_executor"}
# The calls a run's steps asked ahead for its later steps (extract/ahead.py), by run id. Under the
# executors above a process runs one run's steps at a time: what an earlier run left (a step
# that failed skips the steps that would have taken it) is dropped when the next run begins.
_HELD: dict[str, HeldAnswers] = {}


def _held(run_id: str) -> HeldAnswers:
    if run_id not in _HELD:
        _HELD.clear()
    return _HELD.setdefault(run_id, HeldAnswers())


def _later_stages(context: dg.AssetExecutionContext, table: str) -> list[str]:
    """The model stages after `table` this run materialises after this step, in this process:
    those its step keys and asset selection name (an empty selection is the whole job's)."""
    if context.job_def.executor_def.name not in _ONE_PROCESS:
        return []
    run, names = context.run, list(_PLANS)
    return [name for name in names[names.index(table) + 1:]
            if (run.step_keys_to_execute is None or name in run.step_keys_to_execute)
            and (not run.asset_selection or dg.AssetKey(name) in run.asset_selection)]


def _extract(context: dg.AssetExecutionContext, knowledge_store: KnowledgeStore, knowledge_llm: KnowledgeLLM,
             table: str, branch: str):
    own = knowledge_store.open()
    store = step_store(context, own)
    run_id = context.run.run_id

    def planner(plan_stage, store: Store) -> Planner:
        def plan(doc_id: str):
            # The retry budget is the document's, as when each document had its own run: a batch
            # spends no more retries on one document than a run of it alone would.
            extractor = knowledge_llm.extractor(store, f"{run_id}/{doc_id}")
            return extractor, plan_stage(store, extractor, doc_id, run_id)

        return plan

    # A plan asked ahead is finished by its own stage's step, after this one's writes are all
    # written: it writes to the store itself, never into this step's waiting writes.
    later = [Later(name, planner(_PLANS[name], own)) for name in _later_stages(context, table)]
    held = _held(run_id)
    # The step's documents share one pool of model calls, with the calls of the run's later
    # model steps asked ahead (extract/ahead.py).
    with CallPool(knowledge_llm.settings().max_concurrency, store, release=True) as pool:
        documents = AskedAhead(context.partition_keys, planner(_PLANS[table], store), pool, stage=table, later=later,
                               held=held)

        def extract(doc_id: str) -> dg.MaterializeResult:
            with failing_the_document(MissingUpstream):
                result = documents.result(doc_id)
            drop_cached_pages(store)  # what the stage read and wrote is not kept beside the next one
            return _result(result, table, None, knowledge_llm, branch)

        try:
            for end in materialize_each(context, extract,
                                        lambda doc_ids: _step_metadata(store, context, table, doc_ids), store):
                documents.ask_the_rest()  # before the step ends: no call is out after it
                yield end
        except BaseException:
            with contextlib.suppress(Exception):  # the step's own failure is the one it reports
                documents.stop_asking()
            raise
    if not later:  # the run's last model step: nothing is taken after it
        _HELD.pop(run_id, None)


def _step_metadata(store, context: dg.AssetExecutionContext, table: str, doc_ids: list[str]) -> dict[str, dict]:
    """What each document's materialisation carries that is read back once the step's
    documents are all written: the links between the entities stored, the document's names
    and the revision it was derived from."""
    links, names = entity_links(store, table, doc_ids), revision_metadata(store, context, doc_ids)
    return {doc_id: links.get(doc_id, {}) | found for doc_id, found in names.items()}


def _code_version(branch: str, *upstream: dg.AssetsDefinition) -> str:
    # Resolved when the definitions load, as Dagster computes code versions then: the prompt
    # file's hash and the model settings, chained with the upstream assets' versions, so
    # editing a prompt marks its asset and everything downstream of it stale.
    return chained_code_version(KnowledgeLLM().code_version(branch), *upstream)


@dg.asset(
    **_LLM, deps=[parsed_chunks, term_clusters], code_version=_code_version("formula", parsed_chunks, term_clusters),
    metadata=table_metadata("formulas"),
    description="Formulas transcribed from the document (never derived), each with latex_verification set by "
    "code and variables linked to terms. Table: formulas (+ rejected_fields, llm_usage).",
)
def formulas(context: dg.AssetExecutionContext, knowledge_store: KnowledgeStore, knowledge_llm: KnowledgeLLM):
    return _extract(context, knowledge_store, knowledge_llm, "formulas", "formula")


@dg.asset(
    **_LLM, deps=[term_clusters, formulas], code_version=_code_version("glossary", term_clusters, formulas),
    metadata=table_metadata("glossary"),
    description="One glossary entry per term cluster: the model fills term, full_name, definition and "
    "subdomain_tags; code sets ids, source wording, counts, links and diff status. Span-guarded. "
    "Table: glossary (+ glossary_versions, rejected_fields, llm_usage).",
)
def glossary(context: dg.AssetExecutionContext, knowledge_store: KnowledgeStore, knowledge_llm: KnowledgeLLM):
    return _extract(context, knowledge_store, knowledge_llm, "glossary", "glossary")


@dg.asset(
    **_LLM, deps=[parsed_chunks, term_clusters, formulas],
    code_version=_code_version("rule", parsed_chunks, term_clusters, formulas), metadata=table_metadata("rules"),
    description="The interpretation pack: rules as the document words them, condition and consequence "
    "split out, typed calculation or interpretation, linked to terms and formulas. Table: rules.",
)
def rules(context: dg.AssetExecutionContext, knowledge_store: KnowledgeStore, knowledge_llm: KnowledgeLLM):
    return _extract(context, knowledge_store, knowledge_llm, "rules", "rule")


@dg.asset(
    **_LLM, deps=[parsed_chunks, glossary, formulas, rules],
    code_version=_code_version("domain_context", parsed_chunks, glossary, formulas, rules),
    metadata=table_metadata("domain_context"),
    description="The document's domain context (v3): title and purpose located verbatim, outline derived "
    "from headings, key parameters corroborated by terms, subdomains aggregated, counts. Table: domain_context.",
)
def domain_context(context: dg.AssetExecutionContext, knowledge_store: KnowledgeStore, knowledge_llm: KnowledgeLLM):
    return _extract(context, knowledge_store, knowledge_llm, "domain_context", "domain_context")


@dg.asset(
    **_COMMON, kinds={"python", "duckdb"}, deps=[glossary, domain_context],
    code_version=chained_code_version("review_queue-2", glossary, domain_context),
    metadata=table_metadata("review_queue"),
    description="What the expert reviews first: conflicts, then unresolved key parameters, then terms by "
    "mention count, each with one review reason. Table: review_queue.",
)
def review_queue(context: dg.AssetExecutionContext, knowledge_store: KnowledgeStore):
    store = step_store(context, knowledge_store.open())

    def queue(doc_id: str) -> dg.MaterializeResult:
        with failing_the_document(MissingUpstream):
            result = stages.run_review_queue(store, doc_id)
        drop_cached_pages(store)
        links = {}
        # The document's page in `review serve`, when KNOWLEDGE_REVIEW_URL says where it runs.
        if (review_page := document_review_url(doc_id)) is not None:
            links["review_page"] = dg.MetadataValue.url(review_page)
        return _result(result, "review_queue", links)

    yield from materialize_each(context, queue, lambda doc_ids: _step_metadata(store, context, "review_queue", doc_ids),
                                store)


ASSETS = [formulas, glossary, rules, domain_context, review_queue]
