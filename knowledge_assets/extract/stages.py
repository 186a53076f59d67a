"""Each knowledge asset's work as plain Python: read its inputs from the store, ask the
extractor, guard and link what comes back, and replace the document's rows in one transaction.

Dependencies follow the data, so a prompt change marks exactly the right assets stale:
formulas ← clusters; glossary ← clusters, formulas; rules ← clusters, formulas;
domain_context ← glossary, formulas, rules; review_queue ← glossary, domain_context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

from knowledge_assets import contracts as c
from knowledge_assets.candidates.definitions import find_definitions
from knowledge_assets.candidates.formulas import find_formulas
from knowledge_assets.candidates.model import Candidate
from knowledge_assets.candidates.rules import find_rules
from knowledge_assets.diff import diff_glossary
from knowledge_assets.extract.domain import build_domain, complete_domain, domain_request
from knowledge_assets.extract.formulas import build_formulas
from knowledge_assets.extract.glossary import (
    Mention,
    build_glossary,
    defining_headings,
    definitions_by_term,
    evidence_chunks,
    glossary_requests,
)
from knowledge_assets.extract.rules import build_rules
from knowledge_assets.link import (
    TermIndex,
    dangle_counts,
    link_domain,
    link_formulas,
    link_glossary,
    link_rules,
)
from knowledge_assets.llm.extractor import Extractor
from knowledge_assets.llm.prompts import load_prompt
from knowledge_assets.llm.requests import FormulaRequest, RuleRequest, SourceChunk, chunk_batches
from knowledge_assets.llm.results import CallResult
from knowledge_assets.llm.usage import record_usage
from knowledge_assets.queue import build_queue
from knowledge_assets.review.status import review_statuses, still_pending
from knowledge_assets.store.database import Store
from knowledge_assets.store.knowledge import entity_rows, load_entities
from knowledge_assets.store.parsed import load_parsed
from knowledge_assets.store.terms import load_clusters
from knowledge_assets.terms.clusters import TermCluster as Cluster
from knowledge_assets.verify.spans import normalise


# The one missing-upstream error of the project (knowledge_assets/errors.py), under its old name here.
from knowledge_assets.errors import MissingUpstream as MissingInput


@dataclass
class StageResult:
    rows: int
    results: list[CallResult] = field(default_factory=list)
    rejected: list[c.RejectedField] = field(default_factory=list)
    figures: dict[str, int | float] = field(default_factory=dict)
    preview: list[dict] = field(default_factory=list)


def _parsed(store: Store, doc_id: str) -> c.ParsedDocument:
    parsed = load_parsed(store, doc_id)
    if parsed is None:
        raise MissingInput(f"{doc_id}: no parsed document; materialise parsed_chunks first")
    return parsed


def term_index(clusters: Sequence[Cluster]) -> TermIndex:
    return TermIndex((cl.term_id, (cl.canonical, *cl.surfaces, *cl.long_forms)) for cl in clusters)


def _rejected_rows(doc_id: str, rejected: Sequence[c.RejectedField]) -> list[dict]:
    return entity_rows(doc_id, list(rejected))


def _source_chunks(chunks: Sequence[c.Chunk]) -> list[SourceChunk]:
    return [SourceChunk(chunk_id=ch.chunk_id, text=ch.text, heading_path=ch.heading_path) for ch in chunks]


def candidate_requests(request_type, source: Sequence[SourceChunk], candidates: Sequence[Candidate]):
    """One request per batch of the chunks that hold candidates, each carrying its chunks'
    candidates. A chunk where the candidate layer found nothing is not sent (D37): the model
    selects and labels among candidates rather than reading the whole document, which keeps
    prompts proportional to what a document states, not to its length."""
    holding = {cand.chunk_id for cand in candidates}
    for batch in chunk_batches(chunk for chunk in source if chunk.chunk_id in holding):
        ids = {chunk.chunk_id for chunk in batch}
        yield request_type(chunks=batch, candidates=[cand for cand in candidates if cand.chunk_id in ids])


def _answers(results: Sequence[CallResult]):
    for result in results:
        if result.ok:
            yield result.answer


def run_formulas(store: Store, extractor: Extractor, doc_id: str, run_id: str) -> StageResult:
    parsed = _parsed(store, doc_id)
    chunks = {ch.chunk_id: ch for ch in parsed.chunks}
    source = _source_chunks(parsed.chunks)
    results = extractor.run(list(candidate_requests(FormulaRequest, source, find_formulas(source))))
    built = build_formulas(doc_id, [f for answer in _answers(results) for f in answer.formulas], chunks)
    formulas = link_formulas(built.formulas, term_index(load_clusters(store, doc_id)))
    store.replace_partition(
        doc_id,
        {"formulas": entity_rows(doc_id, formulas), "rejected_fields": _rejected_rows(doc_id, built.rejected)},
        scope={"rejected_fields": {"branch": "formula"}},
    )
    record_usage(store, results, doc_id=doc_id, run_id=run_id)
    variables = [v for f in formulas for v in f.variables]
    return StageResult(
        rows=len(formulas), results=results, rejected=built.rejected,
        figures={
            "formulas": len(formulas),
            "variables": len(variables),
            "variables_without_term": sum(v.term_id is None for v in variables),
            "latex_verified": sum(f.latex_verification == "verified" for f in formulas),
            "failed_calls": sum(not r.ok for r in results),
        },
        preview=[{"formula_id": f.formula_id, "name": f.name, "formula_latex": f.formula_latex,
                  "latex_verification": f.latex_verification, "page_no": f.provenance.page_no} for f in formulas],
    )


def _mentions(store: Store, doc_id: str) -> list[Mention]:
    rows = store.fetch(
        "SELECT chunk_id, char_start, char_end, term_id FROM term_mentions "
        "WHERE doc_id = ? AND noise IS NULL AND term_id IS NOT NULL ORDER BY chunk_id, char_start",
        [doc_id],
    )
    return [Mention(r["chunk_id"], r["char_start"], r["char_end"], r["term_id"]) for r in rows]


def _previous_glossary(store: Store, doc_id: str) -> dict[str, str | None]:
    rows = store.fetch(
        "SELECT term_id, definition FROM glossary_versions WHERE doc_id = ? AND run_id = ("
        "SELECT run_id FROM glossary_versions WHERE doc_id = ? ORDER BY created_at DESC LIMIT 1)",
        [doc_id, doc_id],
    )
    return {r["term_id"]: r["definition"] for r in rows}


def _same_term_variants(entries: Sequence[c.GlossaryEntry]) -> dict[str, list[str]]:
    """Two entries the model named as one term with different definitions: both conflict."""
    by_term: dict[str, list[c.GlossaryEntry]] = {}
    for entry in entries:
        by_term.setdefault(normalise(entry.term).casefold(), []).append(entry)
    variants = {}
    for group in by_term.values():
        definitions = [e.definition for e in group if e.definition]
        if len({normalise(d) for d in definitions}) > 1:
            variants.update({e.term_id: definitions for e in group})
    return variants


def run_glossary(store: Store, extractor: Extractor, doc_id: str, run_id: str) -> StageResult:
    parsed = _parsed(store, doc_id)
    clusters = load_clusters(store, doc_id)
    index = term_index(clusters)
    headings = defining_headings(parsed.chunks, index)
    definitions = definitions_by_term(clusters, find_definitions(_source_chunks(parsed.chunks)))
    evidence = evidence_chunks(clusters, parsed.chunks, _mentions(store, doc_id), headings, definitions)
    results = extractor.run(glossary_requests(clusters, evidence, definitions))
    answers: dict[str, object] = {}
    for result in results:
        if result.ok:
            answers.update(result.answer.by_key(result.request))
        else:
            answers.update({cl.key: result.answer for cl in result.request.clusters})
    built = build_glossary(doc_id, clusters, evidence, headings, answers)
    formulas = load_entities(store, "formulas", doc_id, c.FormulaEntry)
    entries = link_glossary(built.entries, formulas, index)
    entries = diff_glossary(entries, _previous_glossary(store, doc_id), _same_term_variants(entries))
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    version = [
        {"doc_id": doc_id, "run_id": run_id, "created_at": now, "backend": extractor.backend.name,
         "model": extractor.backend.deployment, "prompt_hash": load_prompt("glossary").sha256,
         "term_id": e.term_id, "term": e.term, "definition": e.definition}
        for e in entries
    ]
    store.replace_partition(
        doc_id,
        {"glossary": entity_rows(doc_id, entries), "rejected_fields": _rejected_rows(doc_id, built.rejected)},
        scope={"rejected_fields": {"branch": "glossary"}},
        appends={"glossary_versions": version},
    )
    record_usage(store, results, doc_id=doc_id, run_id=run_id)
    return StageResult(
        rows=len(entries), results=results, rejected=built.rejected,
        figures={
            "entries": len(entries),
            "with_definition": sum(e.definition is not None for e in entries),
            "abstained": sum(e.extraction_status == "no_definition_found" for e in entries),
            "escalated": sum(e.extraction_status == "escalated" for e in entries),
            "definitions_rejected": len(built.rejected_definitions),
            "conflicts": sum(e.definition_conflict for e in entries),
            "with_defining_formula": sum(e.defining_formula_id is not None for e in entries),
        },
        preview=[{"term_id": e.term_id, "term": e.term, "full_name": e.full_name, "definition": e.definition,
                  "mention_count": e.mention_count, "status": e.extraction_status} for e in entries],
    )


def run_rules(store: Store, extractor: Extractor, doc_id: str, run_id: str) -> StageResult:
    parsed = _parsed(store, doc_id)
    chunks = {ch.chunk_id: ch for ch in parsed.chunks}
    source = _source_chunks(parsed.chunks)
    results = extractor.run(list(candidate_requests(RuleRequest, source, find_rules(source))))
    built = build_rules(doc_id, [r for answer in _answers(results) for r in answer.rules], chunks)
    formulas = load_entities(store, "formulas", doc_id, c.FormulaEntry)
    rules = link_rules(built.rules, formulas, term_index(load_clusters(store, doc_id)))
    store.replace_partition(
        doc_id,
        {"rules": entity_rows(doc_id, rules), "rejected_fields": _rejected_rows(doc_id, built.rejected)},
        scope={"rejected_fields": {"branch": "rule"}},
    )
    record_usage(store, results, doc_id=doc_id, run_id=run_id)
    return StageResult(
        rows=len(rules), results=results, rejected=built.rejected,
        figures={
            "rules": len(rules),
            "calculation": sum(r.rule_type == "calculation" for r in rules),
            "interpretation": sum(r.rule_type == "interpretation" for r in rules),
            "rules_without_terms": sum(not r.term_ids for r in rules),
            "failed_calls": sum(not r.ok for r in results),
        },
        preview=[{"rule_id": r.rule_id, "rule_type": r.rule_type, "condition": r.condition,
                  "consequence": r.consequence, "statement": r.statement} for r in rules],
    )


def run_domain_context(store: Store, extractor: Extractor, doc_id: str, run_id: str) -> StageResult:
    parsed = _parsed(store, doc_id)
    request = domain_request(parsed.chunks)
    results = extractor.run([request])
    built = build_domain(doc_id, parsed.chunks, results[0].answer)
    glossary = load_entities(store, "glossary", doc_id, c.GlossaryEntry)
    formulas = load_entities(store, "formulas", doc_id, c.FormulaEntry)
    rules = load_entities(store, "rules", doc_id, c.RuleEntry)
    domain = complete_domain(link_domain(built.domain, term_index(load_clusters(store, doc_id))), glossary, formulas, rules)
    store.replace_partition(
        doc_id,
        {"domain_context": entity_rows(doc_id, [domain]), "rejected_fields": _rejected_rows(doc_id, built.rejected)},
        scope={"rejected_fields": {"branch": "summary"}},
    )
    record_usage(store, results, doc_id=doc_id, run_id=run_id)
    dangles = dangle_counts(glossary, formulas, rules, domain)
    return StageResult(
        rows=1, results=results, rejected=built.rejected,
        figures={
            "outline_headings": len(domain.outline),
            "key_parameters": len(domain.key_parameters),
            "key_parameters_unresolved": dangles.key_parameters_unresolved,
            "variables_without_term": dangles.variables_without_term,
            "rules_without_terms": dangles.rules_without_terms,
            "n_terms": domain.n_terms, "n_formulas": domain.n_formulas, "n_rules": domain.n_rules,
            "title_found": int(domain.title is not None),
            "purpose_found": int(domain.purpose_verbatim is not None),
            "title_candidates": sum(c.kind == "title" for c in request.candidates),
            "purpose_candidates": sum(c.kind == "purpose" for c in request.candidates),
        },
        preview=[{"title": domain.title, "purpose_verbatim": domain.purpose_verbatim,
                  "subdomains": ", ".join(domain.subdomains),
                  "key_parameters": ", ".join(f"{k.surface}→{k.term_id}" for k in domain.key_parameters)}],
    )


def run_review_queue(store: Store, doc_id: str) -> StageResult:
    glossary = load_entities(store, "glossary", doc_id, c.GlossaryEntry)
    domains = load_entities(store, "domain_context", doc_id, c.DomainContext)
    rejected = store.fetch(
        "SELECT DISTINCT entry_term FROM rejected_fields WHERE doc_id = ? AND branch = 'glossary' AND field = 'definition'",
        [doc_id],
    )
    rejected_terms = {r["entry_term"] for r in rejected}
    rejected_ids = {e.term_id for e in glossary if e.term in rejected_terms and e.definition is None}
    # Entries whose latest review still applies leave the queue; changed ones come back.
    rows = still_pending(build_queue(glossary, domains[0] if domains else None, rejected_ids), review_statuses(store, doc_id))
    dumped = [row.model_dump() for row in rows]
    table_rows = [{"doc_id": doc_id, "domain_id": None, **row} for row in dumped]
    store.replace_partition(doc_id, {"review_queue": table_rows})
    return StageResult(
        rows=len(rows),
        figures={"rows": len(rows), "key_parameter_rows": sum(r.row_kind == "key_parameter" for r in rows)},
        preview=[{"rank": r.rank, "row_kind": r.row_kind, "term": r.term, "mention_count": r.mention_count,
                  "review_reason": r.review_reason, "page_no": r.page_no} for r in rows],
    )
