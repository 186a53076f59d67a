"""Assets of the evaluation stage (per-document scores) and their kill-line checks.
Thin wiring around `knowledge_assets.evaluation`. A document without gold has nothing to
score: its kill lines are skipped with that reason, not passed (`defs.assets.batch`, D60).
The kill lines judge the scores the asset recorded, in a check of their own, so they can run
without it, as every other check can (`check_document`, D90)."""

import warnings
from datetime import datetime, timezone

import dagster as dg

from knowledge_assets.defs.assets.batch import (
    CheckOutcome,
    SkippedCheck,
    check_each,
    failing_the_document,
    materialize_each,
    step_store,
)
from knowledge_assets.defs.assets.code_versions import chained_code_version
from knowledge_assets.defs.assets.extract import domain_context, formulas, glossary, rules
from knowledge_assets.defs.assets.metadata import document_names_of, store_value, table_metadata
from knowledge_assets.defs.assets.terms import term_clusters
from knowledge_assets.defs.llm import KnowledgeLLM
from knowledge_assets.defs.partitions import documents
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.errors import MissingUpstream
from knowledge_assets.evaluation.gold import GoldError, gold_path, load_gold
from knowledge_assets.evaluation.records import record_scores, recorded_scores
from knowledge_assets.evaluation.scores import (
    KILL_LINES,
    SCORING_VERSION,
    DocumentScores,
    KillLine,
    RunInfo,
    kill_lines,
    score_document,
)
from knowledge_assets.llm.prompts import prompt_hashes

# e1_term_filter_recall -> e1_kill_line, e3_schema_fill_precision -> e3_kill_line
_CHECK_NAMES = {metric: f"{metric.split('_')[0]}_kill_line" for metric in KILL_LINES}
_SCORED = (term_clusters, glossary, formulas, rules, domain_context)
_KEY = dg.AssetKey("eval_scores")


def _kill_line_specs() -> list[dg.AssetCheckSpec]:
    # Partitioned check specs are a preview feature in Dagster 1.13 (pinned); they are what
    # records each kill line per document, so the preview warning is expected.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.PreviewWarning)
        return [
            dg.AssetCheckSpec(
                name, asset="eval_scores", partitions_def=documents,
                description=f"{metric} >= {KILL_LINES[metric]:.2f} (kill line; skipped without gold)",
            )
            for metric, name in _CHECK_NAMES.items()
        ]


def _metadata(scores: DocumentScores, run: RunInfo, database: dg.MetadataValue) -> dict:
    metadata: dict = {
        "has_gold": scores.has_gold,
        "gold_file": dg.MetadataValue.path(str(gold_path(scores.doc_id))),
        "llm_backend": run.backend,
        "llm_deployment": run.model,
        "prompt_hash": run.prompt_hash,
        **{f"prompt_sha256_{branch}": sha[:16] for branch, sha in sorted(run.prompt_hashes.items())},
        "scoring_version": SCORING_VERSION,
        "table": "eval_scores",
        "database": database,
    }
    if not scores.has_gold:
        return metadata
    # Floats throughout, so the UI plots every score over materialisations.
    metadata |= {metric: float(value) for metric, value in scores.metrics.items() if value is not None}
    metadata |= scores.counts
    rows = "\n".join(f"| {name} | {t.filled} | {t.correct} |" for name, t in scores.fields.items())
    metadata["e3_by_field"] = dg.MetadataValue.md("| field | filled | correct |\n|---|---|---|\n" + rows)
    return metadata


def _check_result(verdict: KillLine) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(
        asset_key=_KEY,
        check_name=_CHECK_NAMES[verdict.metric],
        passed=verdict.passed,
        severity=dg.AssetCheckSeverity.ERROR,
        metadata={
            "threshold": verdict.threshold,
            **({"value": float(verdict.value)} if verdict.value is not None else {}),
            "note": verdict.note,
        },
    )


def _kill_lines(scores: DocumentScores | None) -> list[CheckOutcome]:
    if scores is None:
        return [SkippedCheck(name, "the document has no scores", _KEY) for name in _CHECK_NAMES.values()]
    verdicts = kill_lines(scores)
    if not scores.has_gold:
        return [SkippedCheck(_CHECK_NAMES[verdict.metric], verdict.note, _KEY) for verdict in verdicts]
    return [_check_result(verdict) for verdict in verdicts]


@dg.asset(
    partitions_def=documents,
    deps=list(_SCORED),
    group_name="evaluation",
    kinds={"python", "duckdb"},
    owners=["team:knowledge-assets"],
    backfill_policy=dg.BackfillPolicy.single_run(),
    # A prompt or model change upstream changes the scores: it marks this asset stale too.
    code_version=chained_code_version(f"eval_scores-{SCORING_VERSION}", *_SCORED),
    metadata=table_metadata("eval_scores"),
    automation_condition=dg.AutomationCondition.eager(),
    description=(
        "The document's scores against its gold in eval_assets/gold/: E1 term-filter recall, E2 "
        "compression, E3 schema-fill precision, definition precision/recall, formula and rule recall, "
        "abstentions and rejected fields, with the backend, model and prompt hashes that produced them. "
        "A document without gold materialises with has_gold = False. Table: eval_scores."
    ),
)
def eval_scores(context: dg.AssetExecutionContext, knowledge_store: KnowledgeStore, knowledge_llm: KnowledgeLLM):
    store = step_store(context, knowledge_store.open())
    settings = knowledge_llm.settings()
    run = RunInfo(settings.backend, settings.deployment, prompt_hashes())

    def score(doc_id: str) -> dg.MaterializeResult:
        with failing_the_document(GoldError, MissingUpstream):
            scores = score_document(store, doc_id, load_gold(doc_id))
        record_scores(store, scores, run, context.run.run_id, datetime.now(timezone.utc).replace(tzinfo=None))
        return dg.MaterializeResult(metadata=_metadata(scores, run, store_value(store)))

    yield from materialize_each(context, score, lambda doc_ids: document_names_of(store, doc_ids), store)


@dg.multi_asset_check(specs=_kill_line_specs(), name="eval_scores_checks")
def kill_line_checks(context: dg.AssetCheckExecutionContext, knowledge_store: KnowledgeStore):
    """Each kill line on the scores recorded for the document; skipped without gold, or without
    scores (a document whose run failed before it was scored)."""
    recorded = recorded_scores(knowledge_store.open(), context.partition_keys)
    yield from check_each(context, lambda doc_id: _kill_lines(recorded.get(doc_id)))


ASSETS = [eval_scores]
CHECKS = [kill_line_checks]
