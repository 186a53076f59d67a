"""Asset checks on every knowledge asset, per document partition, re-reading the store (the
DuckDB file or the shared PostgreSQL store, whichever the run writes). A run over several
documents checks each one and records each result under its document's partition
(`defs.assets.batch`); a blocking check that fails for one of them fails the step.

Blocking (ERROR: the data must not be used, and downstream assets in the same run do not run):
spans verbatim, ids unique and stable, rows valid against the contract, and (on the review
queue, the last asset) every asset of the document derived from the same, latest revision.
Warning: dangle rates above the configured thresholds, and a document of more than a page that
yielded no definitions, or no formulas and no rules. The logic is
`knowledge_assets.verify.stored` and `knowledge_assets.store.revisions`; this is wiring.

When an asset's blocking checks for a document have ended, the store records it and names the
failed ones (`record_checks_of`, once per step for all its documents): a run killed before that
leaves the document not current, and export and the review refuse it (store/revisions.py).

A check with nothing to evaluate is skipped with its reason, never passed (`SkippedCheck`,
docs/decisions.md D60): the row checks of a document with no rows of the table, a dangle rate
with no links to count, the yield of a document of one page.
"""

import warnings
from collections.abc import Callable, Iterator, Sequence

import dagster as dg

from knowledge_assets.defs.assets import evaluation
from knowledge_assets.defs.assets.batch import CheckOutcome, SkippedCheck, check_each
from knowledge_assets.defs.assets.extract import domain_context, formulas, glossary, review_queue, rules
from knowledge_assets.defs.partitions import documents
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.revisions import DOCUMENT_ASSETS, record_checks_of, revision_state
from knowledge_assets.verify import stored

_SHOWN_FINDINGS = 20

BLOCKING_CHECKS = {
    "spans_verbatim": "Every non-null guarded field and provenance span is verbatim in its source, re-read from "
    "the store: glossary and domain-context fields in any chunk of the document, rule and formula fields in "
    "their provenance chunk.",
    "ids_unique_and_stable": "Ids are unique in the document and are what the contract's id formulas derive "
    "from each row's content, so they survive a re-run (review queue: ranks 1..n, each term once, known terms).",
    "contract_valid": "Every row read back validates against its output-contract model.",
}


# Checks of the document as a whole, each on one asset: (table, name, blocking, description).
DOCUMENT_CHECKS = {
    "review_queue": ("revisions_consistent", True,
                     "Every asset of the document was derived from the registry's latest revision; a run killed "
                     "half-way leaves later assets behind, and they are named."),
    "domain_context": ("document_yield", False,
                       "Warns when a document of more than a page yielded no definitions, or no formulas and no "
                       "rules; the per-page yield is in the metadata."),
}


def _revisions_result(asset: dg.AssetsDefinition, store: Store, doc_id: str) -> CheckOutcome:
    state = revision_state(store, doc_id, with_checks=False)
    if len(state.behind) == len(DOCUMENT_ASSETS) and all(b.revision is None for b in state.behind):
        # A document none of whose assets was ever derived (a file that never parsed) has no
        # revisions to compare: the checks run after its failed run say so (D90).
        return SkippedCheck("revisions_consistent", "no asset of the document has been derived", asset.key)
    metadata = {"document_revision": state.latest or 0, "assets_behind": ", ".join(b.asset for b in state.behind)}
    return dg.AssetCheckResult(asset_key=asset.key, check_name="revisions_consistent", passed=not state.behind,
                               description=state.describe() if state.behind else None, metadata=metadata)


def _yield_result(asset: dg.AssetsDefinition, store: Store, doc_id: str) -> CheckOutcome:
    found = stored.document_yield(store, doc_id)
    if found.pages <= 1:
        return SkippedCheck("document_yield", f"{found.pages} page: the yield is judged on longer documents",
                            asset.key)
    shortfalls = found.shortfalls()
    return dg.AssetCheckResult(
        asset_key=asset.key, check_name="document_yield", passed=not shortfalls, severity=dg.AssetCheckSeverity.WARN,
        description=f"{found.pages} pages and " + " / ".join(shortfalls) if shortfalls else None,
        metadata={"pages": found.pages, "definitions": found.definitions, "formulas": found.formulas,
                  "rules": found.rules, "definitions_per_page": found.per_page(found.definitions),
                  "formulas_per_page": found.per_page(found.formulas), "rules_per_page": found.per_page(found.rules)},
    )


_DOCUMENT_RESULTS = {"revisions_consistent": _revisions_result, "document_yield": _yield_result}


def _document_results(
    asset: dg.AssetsDefinition, table: str, store: Store, doc_id: str
) -> Iterator[CheckOutcome]:
    if table in DOCUMENT_CHECKS:
        yield _DOCUMENT_RESULTS[DOCUMENT_CHECKS[table][0]](asset, store, doc_id)


class DangleThresholds(dg.Config):
    """The highest share of dangling links accepted before the `dangle_rate` check warns.
    Unlinked formula variables are expected (a symbol is not always a glossary term, contract §7);
    an unresolved key parameter is the domain branch's one hallucination signal, so it is tighter."""

    variables_without_term: float = 0.5
    rules_without_terms: float = 0.5
    key_parameters_unresolved: float = 0.25


def _findings_table(findings: Sequence[stored.Finding]) -> dg.MetadataValue:
    lines = ["| id | field | problem |", "|---|---|---|"]
    lines += [f"| {f.entity_id} | {f.field} | {f.problem.replace('|', '/')} |" for f in findings[:_SHOWN_FINDINGS]]
    if len(findings) > _SHOWN_FINDINGS:
        lines.append(f"| … | | {len(findings) - _SHOWN_FINDINGS} more |")
    return dg.MetadataValue.md("\n".join(lines))


def _blocking_results(asset: dg.AssetsDefinition, document: stored.StoredDocument) -> Iterator[CheckOutcome]:
    if not document.rows:
        for name in BLOCKING_CHECKS:
            yield SkippedCheck(name, f"no {document.table} rows to check", asset.key)
        return
    for name, findings in stored.blocking_findings(document).items():
        metadata = {"rows_checked": len(document.rows), "failures": len(findings)}
        if findings:
            metadata["findings"] = _findings_table(findings)
        yield dg.AssetCheckResult(asset_key=asset.key, check_name=name, passed=not findings, metadata=metadata)


def _dangle_result(asset: dg.AssetsDefinition, rate: stored.DangleRate, limit: float) -> CheckOutcome:
    if not rate.total:
        return SkippedCheck("dangle_rate", f"{rate.name}: no links to count", asset.key)
    return dg.AssetCheckResult(
        asset_key=asset.key, check_name="dangle_rate", passed=rate.rate <= limit, severity=dg.AssetCheckSeverity.WARN,
        description=f"{rate.name}: {rate.dangling} of {rate.total} ({rate.rate:.0%}), threshold {limit:.0%}",
        metadata={"link": rate.name, "dangling": rate.dangling, "total": rate.total,
                  "rate": round(rate.rate, 4), "threshold": limit},
    )


def _specs(asset: dg.AssetsDefinition, table: str) -> list[dg.AssetCheckSpec]:
    # Partitioned check specs are a preview feature in Dagster 1.13 (pinned in pyproject); they
    # are what records a result per document, so the warning is expected, not news.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.PreviewWarning)
        specs = [
            dg.AssetCheckSpec(name, asset=asset, blocking=True, partitions_def=documents, description=description)
            for name, description in BLOCKING_CHECKS.items()
        ]
        if table in stored.DANGLE_RATES:
            specs.append(dg.AssetCheckSpec(
                "dangle_rate", asset=asset, partitions_def=documents,
                description="Warns when the share of dangling links exceeds its configured threshold.",
            ))
        if table in DOCUMENT_CHECKS:
            name, blocking, description = DOCUMENT_CHECKS[table]
            specs.append(dg.AssetCheckSpec(name, asset=asset, blocking=blocking, partitions_def=documents,
                                           description=description))
    return specs


def _recorder(context: dg.AssetCheckExecutionContext, store: Store, table: str):
    """What records, once every document of the step is checked, that the asset's blocking checks
    ended for each and which failed (a skipped check had nothing to fail: it ended), in one write:
    a step killed part-way records none, which reads as checks that did not finish."""
    def record(results: dict[str, list[CheckOutcome]]) -> None:
        record_checks_of(store, table, {doc_id: _failed(found) for doc_id, found in results.items()},
                         context.run.run_id)

    return record


def _failed(results: list[CheckOutcome]) -> list[str]:
    return [r.check_name for r in results
            if isinstance(r, dg.AssetCheckResult) and r.severity == dg.AssetCheckSeverity.ERROR and not r.passed]


def _in_turn(store: Store, table: str, doc_ids: Sequence[str]) -> Callable[[str], stored.StoredDocument]:
    """Each document's stored rows as the step checks it, in the run's order, read a group of
    documents at a time (`stored.load_documents`)."""
    loaded = stored.load_documents(store, table, doc_ids)

    def document(doc_id: str) -> stored.StoredDocument:
        found = next(loaded)
        if found.doc_id != doc_id:
            raise RuntimeError(f"checks of {table} asked for {doc_id} out of the run's order (next: {found.doc_id})")
        return found

    return document


def _checks(asset: dg.AssetsDefinition, table: str) -> dg.AssetChecksDefinition:
    spec = {"name": f"{table}_checks", "specs": _specs(asset, table)}
    if table not in stored.DANGLE_RATES:
        @dg.multi_asset_check(**spec)
        def checks(context: dg.AssetCheckExecutionContext, knowledge_store: KnowledgeStore):
            store = knowledge_store.open()
            document = _in_turn(store, table, context.partition_keys)

            def check(doc_id: str) -> list[CheckOutcome]:
                return [*_blocking_results(asset, document(doc_id)), *_document_results(asset, table, store, doc_id)]

            yield from check_each(context, check, _recorder(context, store, table))

        return checks

    @dg.multi_asset_check(**spec)
    def checks_with_dangles(context: dg.AssetCheckExecutionContext, knowledge_store: KnowledgeStore,
                            config: DangleThresholds):
        store = knowledge_store.open()
        loaded = _in_turn(store, table, context.partition_keys)

        def check(doc_id: str) -> list[CheckOutcome]:
            document = loaded(doc_id)
            rate = stored.dangle_rate(document)
            return [*_blocking_results(asset, document), _dangle_result(asset, rate, getattr(config, rate.name)),
                    *_document_results(asset, table, store, doc_id)]

        yield from check_each(context, check, _recorder(context, store, table))

    return checks_with_dangles


CHECKS = [
    _checks(formulas, "formulas"),
    _checks(glossary, "glossary"),
    _checks(rules, "rules"),
    _checks(domain_context, "domain_context"),
    _checks(review_queue, "review_queue"),
    *evaluation.CHECKS,
]
