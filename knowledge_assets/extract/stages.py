"""Each knowledge asset's work as plain Python, in three steps: read its inputs from the store
(once, through `store/`), compute (ask the extractor, guard and link what comes back: plain
functions), then write, every branch through the one `store.knowledge.write_branch`, which
replaces the document's rows in one transaction (the rules stage computes its rules as that
write draws them, so a long document's are never all held, D104). Where a model call failed,
the rows the branch's last write stored for what that call asked about are kept and marked
(extract/kept.py, D58), so a run whose calls fail never leaves a reviewer with less than before it.

Dependencies follow the data, so a prompt change marks exactly the right assets stale:
formulas ← clusters; glossary ← clusters, formulas; rules ← clusters, formulas;
domain_context ← glossary, formulas, rules; review_queue ← glossary, domain_context.

Only a finish reads the other branches, when it runs: a plan made ahead, before the stages it
depends on have written (`extract.ahead`), asks and finishes as one made in its own step (D107).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

from knowledge_assets import contracts as c
from knowledge_assets.branches import DOMAIN_CONTEXT, FORMULA, GLOSSARY, RULE
from knowledge_assets.candidates.definitions import find_definitions
from knowledge_assets.candidates.formulas import find_formulas
from knowledge_assets.candidates.model import Candidate
from knowledge_assets.candidates.rules import find_rules
from knowledge_assets.diff import diff_glossary
from knowledge_assets.domain_derivations import complete_domain
from knowledge_assets.errors import MissingUpstream
from knowledge_assets.extract.domain import build_domain, domain_request
from knowledge_assets.extract.formulas import build_formulas
from knowledge_assets.extract.glossary import (
    ClusteredMention,
    build_glossary,
    defining_headings,
    definitions_by_term,
    evidence_chunks,
    glossary_requests,
)
from knowledge_assets.extract.kept import (
    KEPT_FIGURE,
    Kept,
    keep_by_chunk,
    keep_domain,
    keep_terms,
    kept_rejections,
    unanswered_keys,
)
from knowledge_assets.extract.rules import build_rules
from knowledge_assets.extract.tally import PREVIEW_ROWS, Tally
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
from knowledge_assets.llm.requests import (
    ExtractionRequest,
    FormulaRequest,
    RuleRequest,
    SourceChunk,
    chunk_batches,
    window_chars,
)
from knowledge_assets.llm.results import CallResult
from knowledge_assets.llm.usage import usage_rows
from knowledge_assets.queue import build_queue
from knowledge_assets.review.status import review_statuses, still_pending
from knowledge_assets.store.knowledge import (
    EarlierResult,
    KeptRow,
    earlier_result,
    kept_marks,
    latest_glossary_version,
    load_branch,
    rejected_entry_terms,
    write_branch,
    write_review_queue,
)
from knowledge_assets.store.parsed import load_chunks
from knowledge_assets.store.protocol import Store
from knowledge_assets.subdomains import speaks_mining
from knowledge_assets.terms.clusters import TermCluster
from knowledge_assets.terms.store import clustered_mentions, load_clusters, load_definitions
from knowledge_assets.verify.spans import normalise


@dataclass
class StageResult:
    rows: int
    results: list[CallResult] = field(default_factory=list)
    rejected: list[c.RejectedField] = field(default_factory=list)
    figures: dict[str, int | float] = field(default_factory=dict)
    preview: list[dict] = field(default_factory=list)


@dataclass
class StagePlan:
    """A stage's work for one document, cut at its model calls: the requests, read and built
    from the store, and what turns their answers into the stage's result (guards, links and
    the write). A step asks several documents' requests together, and the requests of the run's
    later stages ahead (`extract.ahead`)."""

    # Read once, by the ask: the formula, glossary and rule stages give an iterator, so no list of
    # requests holds what a model reads after each call is answered (D106).
    requests: Iterable[ExtractionRequest]
    finish: Callable[[list[CallResult]], StageResult]
    # The document's text, in characters: what the plan holds grows with it.
    text_chars: int = 0

    def run(self, extractor: Extractor) -> StageResult:
        return self.finish(extractor.run(self.requests))


def _parsed_chunks(store: Store, doc_id: str) -> list[c.Chunk]:
    """The document's chunks without its page text, which no stage reads (a text file's one
    page is the whole file, held again beside the chunks' own copy)."""
    chunks = load_chunks(store, doc_id)
    if chunks is None:
        raise MissingUpstream.parsed_document(doc_id)
    return chunks


def term_index(clusters: Sequence[TermCluster]) -> TermIndex:
    return TermIndex((cl.term_id, (cl.canonical, *cl.surfaces, *cl.long_forms)) for cl in clusters)


def _source_chunks(chunks: Sequence[c.Chunk]) -> list[SourceChunk]:
    return [SourceChunk(chunk_id=ch.chunk_id, text=ch.text, heading_path=ch.heading_path) for ch in chunks]


def candidate_requests(request_type, source: Sequence[SourceChunk], candidates: Sequence[Candidate]):
    """One request per batch of the chunks that hold candidates, each carrying its chunks'
    candidates. A chunk where the candidate layer found nothing is not sent (D37): the model
    selects and labels among candidates rather than reading the whole document, which keeps
    prompts proportional to what a document states, not to its length."""
    by_chunk: dict[str, list[Candidate]] = {}
    positions: dict[str, list[int]] = {}
    for position, cand in enumerate(candidates):
        by_chunk.setdefault(cand.chunk_id, []).append(cand)
        positions.setdefault(cand.chunk_id, []).append(position)
    holding = (chunk for chunk in source if chunk.chunk_id in by_chunk)
    for batch in chunk_batches(holding, chars=lambda chunk: window_chars(chunk, by_chunk[chunk.chunk_id])):
        # The batch's candidates in the order they were given, taken from its chunks rather than
        # by a pass over every candidate of the document per batch.
        held = sorted(position for chunk in batch for position in positions[chunk.chunk_id])
        yield request_type(chunks=batch, candidates=[candidates[position] for position in held])


def _answers(results: Sequence[CallResult]):
    for result in results:
        if result.ok:
            yield result.answer


def _marks(kept: Kept, earlier: EarlierResult, run_id: str) -> Iterator[KeptRow]:
    """Drawn by the write after the entities, when `kept.ids` is complete (`keep_by_chunk`)."""
    for entity_id in kept.ids:
        yield earlier.mark(entity_id, run_id)


def plan_formulas(store: Store, extractor: Extractor, doc_id: str, run_id: str) -> StagePlan:
    parsed_chunks = _parsed_chunks(store, doc_id)
    clusters = load_clusters(store, doc_id)
    earlier = earlier_result(store, FORMULA, doc_id)

    chunks = {ch.chunk_id: ch for ch in parsed_chunks}
    source = _source_chunks(parsed_chunks)
    requests = candidate_requests(FormulaRequest, source, find_formulas(source))

    def finish(results: list[CallResult]) -> StageResult:
        built = build_formulas(doc_id, [f for answer in _answers(results) for f in answer.formulas], chunks)
        kept = keep_by_chunk(built.formulas, earlier, unanswered_keys(results), chunks, FORMULA.id_field)
        formulas = link_formulas(kept.entities, term_index(clusters))

        usage = usage_rows(results, doc_id=doc_id, run_id=run_id)
        write_branch(store, FORMULA, doc_id, formulas, built.rejected, usage, kept=_marks(kept, earlier, run_id))
        variables = [v for f in formulas for v in f.variables]
        return StageResult(
            rows=len(formulas), results=results, rejected=built.rejected,
            figures={
                "formulas": len(formulas),
                "variables": len(variables),
                "variables_without_term": sum(v.term_id is None for v in variables),
                "latex_verified": sum(f.latex_verification == "verified" for f in formulas),
                "failed_calls": sum(not r.ok for r in results),
                KEPT_FIGURE: len(kept.ids),
            },
            preview=[{"formula_id": f.formula_id, "name": f.name, "formula_latex": f.formula_latex,
                      "latex_verification": f.latex_verification, "page_no": f.provenance.page_no}
                     for f in formulas[:PREVIEW_ROWS]],
        )

    return StagePlan(requests, finish, sum(len(ch.text) for ch in parsed_chunks))


def run_formulas(store: Store, extractor: Extractor, doc_id: str, run_id: str) -> StageResult:
    return plan_formulas(store, extractor, doc_id, run_id).run(extractor)


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


def _answers_by_term(results: Sequence[CallResult]) -> dict[str, object]:
    """term_id -> its answer, or the failure of the call that asked for it."""
    answers: dict[str, object] = {}
    for result in results:
        if result.ok:
            answers.update(result.answer.by_key(result.request))
        else:
            answers.update({cl.key: result.answer for cl in result.request.clusters})
    return answers


def plan_glossary(store: Store, extractor: Extractor, doc_id: str, run_id: str) -> StagePlan:
    parsed_chunks = _parsed_chunks(store, doc_id)
    clusters = load_clusters(store, doc_id)
    previous = latest_glossary_version(store, doc_id)
    earlier = earlier_result(store, GLOSSARY, doc_id)
    prompt_hash = load_prompt(GLOSSARY.name).sha256

    index = term_index(clusters)
    headings = defining_headings(parsed_chunks, index)
    # Found by the term stage; found here only for terms stored before it stored them (a
    # document without definitions is looked through again, and again finds none).
    found = load_definitions(store, doc_id) or find_definitions(_source_chunks(parsed_chunks))
    definitions = definitions_by_term(clusters, found)
    # Each mention is made a ClusteredMention as `evidence_chunks` reads it: never all at once.
    mentions = (ClusteredMention(*mention) for mention in clustered_mentions(store, doc_id))
    evidence = evidence_chunks(clusters, parsed_chunks, mentions, headings, definitions)
    mining = speaks_mining(chunk.text for chunk in parsed_chunks)
    requests = iter(glossary_requests(clusters, evidence, definitions, mining))

    def finish(results: list[CallResult]) -> StageResult:
        built = build_glossary(doc_id, clusters, evidence, headings, _answers_by_term(results))
        kept = keep_terms(built.entries, earlier, unanswered_keys(results), {ch.chunk_id: ch for ch in parsed_chunks})
        rejected = [*built.rejected, *kept_rejections(earlier, [e for e in kept.entities if e.term_id in kept.ids])]
        # Linking sets only the defining formula: the variants are the kept entries' own. The
        # entries are linked and diffed in one pass, and the build's are let go (D106).
        variants = _same_term_variants(kept.entities)
        formulas = load_branch(store, FORMULA, doc_id)
        entries = diff_glossary(link_glossary(kept.entities, formulas, index), previous, variants)
        built.entries.clear()
        kept.entities.clear()
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        version = [
            {"doc_id": doc_id, "run_id": run_id, "created_at": now, "backend": extractor.backend.name,
             "model": extractor.backend.deployment, "prompt_hash": prompt_hash,
             "term_id": e.term_id, "term": e.term, "definition": e.definition}
            for e in entries
        ]

        write_branch(store, GLOSSARY, doc_id, entries, rejected, usage_rows(results, doc_id=doc_id, run_id=run_id),
                     history={"glossary_versions": version}, kept=_marks(kept, earlier, run_id))
        return StageResult(
            rows=len(entries), results=results, rejected=rejected,
            figures={
                "entries": len(entries),
                "with_definition": sum(e.definition is not None for e in entries),
                "abstained": sum(e.extraction_status == "no_definition_found" for e in entries),
                "escalated": sum(e.extraction_status == "escalated" for e in entries),
                "definitions_rejected": len(built.rejected_definitions),
                "conflicts": sum(e.definition_conflict for e in entries),
                "with_defining_formula": sum(e.defining_formula_id is not None for e in entries),
                KEPT_FIGURE: len(kept.ids),
            },
            preview=[{"term_id": e.term_id, "term": e.term, "full_name": e.full_name, "definition": e.definition,
                      "mention_count": e.mention_count, "status": e.extraction_status}
                     for e in entries[:PREVIEW_ROWS]],
        )

    return StagePlan(requests, finish, sum(len(ch.text) for ch in parsed_chunks))


def run_glossary(store: Store, extractor: Extractor, doc_id: str, run_id: str) -> StageResult:
    return plan_glossary(store, extractor, doc_id, run_id).run(extractor)


def plan_rules(store: Store, extractor: Extractor, doc_id: str, run_id: str) -> StagePlan:
    parsed_chunks = _parsed_chunks(store, doc_id)
    clusters = load_clusters(store, doc_id)
    earlier = earlier_result(store, RULE, doc_id)

    chunks = {ch.chunk_id: ch for ch in parsed_chunks}
    source = _source_chunks(parsed_chunks)
    requests = candidate_requests(RuleRequest, source, find_rules(source))

    def finish(results: list[CallResult]) -> StageResult:
        # Built, kept, linked and tallied one rule at a time as the write draws them (D104).
        built = build_rules(doc_id, (r for answer in _answers(results) for r in answer.rules), chunks)
        kept = keep_by_chunk(built.rules, earlier, unanswered_keys(results), chunks, RULE.id_field)
        rules = Tally(
            link_rules(kept.entities, load_branch(store, FORMULA, doc_id), term_index(clusters)),
            lambda r: {"rule_id": r.rule_id, "rule_type": r.rule_type, "condition": r.condition,
                       "consequence": r.consequence, "statement": r.statement},
            calculation=lambda r: r.rule_type == "calculation",
            interpretation=lambda r: r.rule_type == "interpretation",
            rules_without_terms=lambda r: not r.term_ids,
        )

        write_branch(store, RULE, doc_id, rules, built.rejected, usage_rows(results, doc_id=doc_id, run_id=run_id),
                     kept=_marks(kept, earlier, run_id))
        return StageResult(
            rows=rules.rows, results=results, rejected=built.rejected,
            figures={"rules": rules.rows, **rules.figures, "failed_calls": sum(not r.ok for r in results),
                     KEPT_FIGURE: len(kept.ids)},
            preview=rules.preview,
        )

    return StagePlan(requests, finish, sum(len(ch.text) for ch in parsed_chunks))


def run_rules(store: Store, extractor: Extractor, doc_id: str, run_id: str) -> StageResult:
    return plan_rules(store, extractor, doc_id, run_id).run(extractor)


def plan_domain_context(store: Store, extractor: Extractor, doc_id: str, run_id: str) -> StagePlan:
    parsed_chunks = _parsed_chunks(store, doc_id)
    clusters = load_clusters(store, doc_id)
    earlier = earlier_result(store, DOMAIN_CONTEXT, doc_id)

    request = domain_request(parsed_chunks)
    requests = [request]

    def finish(results: list[CallResult]) -> StageResult:
        glossary, formulas, rules = (load_branch(store, branch, doc_id) for branch in (GLOSSARY, FORMULA, RULE))
        built = build_domain(doc_id, parsed_chunks, results[0].answer)
        kept = keep_domain(built.domain, earlier, results[0].ok, {ch.chunk_id: ch for ch in parsed_chunks})
        domain = complete_domain(link_domain(kept.entities[0], term_index(clusters)), glossary, formulas, rules)

        usage = usage_rows(results, doc_id=doc_id, run_id=run_id)
        write_branch(store, DOMAIN_CONTEXT, doc_id, [domain], built.rejected, usage, kept=_marks(kept, earlier, run_id))
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
                KEPT_FIGURE: len(kept.ids),
            },
            preview=[{"title": domain.title, "purpose_verbatim": domain.purpose_verbatim,
                      "subdomains": ", ".join(domain.subdomains),
                      "key_parameters": ", ".join(f"{k.surface}→{k.term_id}" for k in domain.key_parameters)}],
        )

    return StagePlan(requests, finish, sum(len(ch.text) for ch in parsed_chunks))


def run_domain_context(store: Store, extractor: Extractor, doc_id: str, run_id: str) -> StageResult:
    return plan_domain_context(store, extractor, doc_id, run_id).run(extractor)


def run_review_queue(store: Store, doc_id: str) -> StageResult:
    glossary = load_branch(store, GLOSSARY, doc_id)
    domains = load_branch(store, DOMAIN_CONTEXT, doc_id)
    rejected_terms = rejected_entry_terms(store, doc_id, GLOSSARY, "definition")
    # The queue's rows are terms and key parameters: no other branch's statuses are read (issue 31).
    statuses = review_statuses(store, doc_id, loaded={GLOSSARY.table: glossary, DOMAIN_CONTEXT.table: domains},
                               among=(GLOSSARY, DOMAIN_CONTEXT))
    kept = kept_marks(store, doc_id)

    rejected_ids = {e.term_id for e in glossary if e.term in rejected_terms and e.definition is None}
    # Entries whose latest review still applies leave the queue; changed ones come back.
    rows = still_pending(build_queue(glossary, domains[0] if domains else None, rejected_ids), statuses)

    write_review_queue(store, doc_id, rows)
    return StageResult(
        rows=len(rows),
        figures={"rows": len(rows), "key_parameter_rows": sum(r.row_kind == "key_parameter" for r in rows),
                 KEPT_FIGURE: sum((r.term_id or r.domain_id) in kept for r in rows)},
        preview=[{"rank": r.rank, "row_kind": r.row_kind, "term": r.term, "mention_count": r.mention_count,
                  "review_reason": r.review_reason, "page_no": r.page_no} for r in rows[:PREVIEW_ROWS]],
    )
