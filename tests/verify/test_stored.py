"""The asset checks' logic on real rows: a sample document materialised offline, read back from
DuckDB, then one value changed at a time — each change must be caught, and nothing else."""

from __future__ import annotations

import copy

import pytest

from knowledge_assets.verify import stored
from tests.conftest import SAMPLE_PDF
from tests.support.materialised import materialised_samples


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    root = tmp_path_factory.mktemp("stored")
    with pytest.MonkeyPatch.context() as env, materialised_samples(root, env, paths=(SAMPLE_PDF,)) as samples:
        assert all(result.success for result in samples.results.values())
        yield samples.store, samples.doc_ids[0]


def _document(sample, table: str) -> stored.StoredDocument:
    store, doc_id = sample
    return stored.load_document(store, table, doc_id)


def _edited(document: stored.StoredDocument, index: int, **changes) -> stored.StoredDocument:
    rows = copy.deepcopy(document.rows)
    for path, value in changes.items():
        target = rows[index]
        *parents, leaf = path.split("__")
        for parent in parents:
            target = target[parent]
        target[leaf] = value
    return stored.StoredDocument(document.doc_id, document.table, rows, document.chunks,
                                 document.cluster_canonicals, document.glossary_term_ids, document.term_chunks)


def _first(document: stored.StoredDocument, predicate) -> int:
    return next(i for i, row in enumerate(document.rows) if predicate(row))


@pytest.mark.parametrize("table", stored.checked_tables())
def test_every_table_of_a_sample_document_passes_every_check(sample, table):
    document = _document(sample, table)
    assert document.rows
    assert stored.unverified_spans(document) == []
    assert stored.duplicate_ids(document) == []
    assert stored.unstable_ids(document) == []
    assert stored.contract_violations(document) == []


def test_a_fabricated_definition_is_caught_with_its_term_id_and_field(sample):
    glossary = _document(sample, "glossary")
    i = _first(glossary, lambda r: r["definition"])
    edited = _edited(glossary, i, definition="Adalah ukuran yang tidak pernah ditulis di dokumen ini.")
    assert stored.unverified_spans(edited) == [
        stored.Finding(glossary.rows[i]["term_id"], "definition", "not verbatim in any chunk of the document")
    ]


def test_a_glossary_definition_found_in_another_chunk_of_the_document_passes(sample):
    glossary = _document(sample, "glossary")
    i = _first(glossary, lambda r: r["definition"])
    j = _first(glossary, lambda r: r["definition"]
               and r["provenance"]["chunk_id"] != glossary.rows[i]["provenance"]["chunk_id"])
    assert stored.unverified_spans(_edited(glossary, i, definition=glossary.rows[j]["definition"])) == []


def test_a_rule_condition_from_another_chunk_is_not_verbatim_in_its_provenance_chunk(sample):
    rules = _document(sample, "rules")
    i = _first(rules, lambda r: r["condition"])
    j = _first(rules, lambda r: r["condition"]
               and r["provenance"]["chunk_id"] != rules.rows[i]["provenance"]["chunk_id"]
               and r["condition"] not in rules.chunks[rules.rows[i]["provenance"]["chunk_id"]].text)
    findings = stored.unverified_spans(_edited(rules, i, condition=rules.rows[j]["condition"]))
    assert findings == [stored.Finding(rules.rows[i]["rule_id"], "condition", "not verbatim in its provenance chunk")]


def test_a_latex_transcription_of_a_plain_text_formula_passes_and_a_derived_one_does_not(sample):
    formulas = _document(sample, "formulas")
    i = _first(formulas, lambda r: " x " in r["provenance"]["span"])
    transcribed = formulas.rows[i]["provenance"]["span"].replace(" x ", r" \times ")
    assert stored.unverified_spans(_edited(formulas, i, formula_latex=transcribed)) == []
    derived = _edited(formulas, i, formula_latex=transcribed.replace(r"\times", "+", 1))
    assert [f.field for f in stored.unverified_spans(derived)] == ["formula_latex"]


def test_a_provenance_span_outside_its_chunk_is_caught(sample):
    domain = _document(sample, "domain_context")
    edited = _edited(domain, 0, provenance__span="Dokumen ini mengatur hal yang tidak ada.")
    assert [(f.field, f.problem) for f in stored.unverified_spans(edited)] == [
        ("provenance.span", "not verbatim in its provenance chunk")
    ]


def test_a_queue_row_quoting_text_not_in_the_document_is_caught(sample):
    queue = _document(sample, "review_queue")
    edited = _edited(queue, 0, span="kutipan yang dikarang")
    assert stored.unverified_spans(edited) == [stored.Finding("1", "span", "not verbatim in any chunk of the document")]


def test_a_queue_term_row_is_looked_for_in_its_entrys_chunk_then_anywhere_in_the_document(sample):
    queue = _document(sample, "review_queue")
    i = _first(queue, lambda r: r["row_kind"] == "term")
    own = queue.term_chunks[queue.rows[i]["term_id"]]
    assert own in queue.chunks
    other = next(text for chunk_id, chunk in queue.chunks.items() if chunk_id != own
                 and (text := chunk.text.strip()) and text not in queue.chunks[own].text)
    assert stored.unverified_spans(_edited(queue, i, definition=queue.chunks[own].text.strip())) == []
    assert stored.unverified_spans(_edited(queue, i, definition=other)) == []


def test_a_duplicated_id_is_reported_once_with_its_count(sample):
    rules = _document(sample, "rules")
    twice = stored.StoredDocument(rules.doc_id, "rules", [*rules.rows, rules.rows[0]], rules.chunks, {}, set())
    assert stored.duplicate_ids(twice) == [stored.Finding(rules.rows[0]["rule_id"], "rule_id", "2 rows share this id")]


@pytest.mark.parametrize(("table", "id_field"), [
    ("glossary", "term_id"), ("formulas", "formula_id"), ("rules", "rule_id"), ("domain_context", "domain_id"),
])
def test_an_id_the_contract_formula_does_not_derive_is_unstable(sample, table, id_field):
    document = _document(sample, table)
    edited = _edited(document, 0, **{id_field: id_field[0] + "_0000000000"})
    assert stored.unstable_ids(edited) == [
        stored.Finding(id_field[0] + "_0000000000", id_field, "not the id the contract derives from this row's content")
    ]


def test_a_rule_whose_span_moved_in_its_chunk_keeps_an_id_that_no_longer_derives(sample):
    rules = _document(sample, "rules")
    i = _first(rules, lambda r: len(rules.chunks[r["provenance"]["chunk_id"]].text) > len(r["provenance"]["span"]) + 10)
    chunk_id = rules.rows[i]["provenance"]["chunk_id"]
    moved = {**rules.chunks, chunk_id: stored.ChunkText("Catatan. " + rules.chunks[chunk_id].text, None)}
    edited = stored.StoredDocument(rules.doc_id, "rules", rules.rows, moved, {}, set())
    assert [f.entity_id for f in stored.unstable_ids(edited)] == [
        r["rule_id"] for r in rules.rows if r["provenance"]["chunk_id"] == chunk_id
    ]


def test_queue_ranks_must_run_one_to_n_and_name_known_terms_once(sample):
    queue = _document(sample, "review_queue")
    i = _first(queue, lambda r: r["row_kind"] == "term")
    gap = _edited(queue, len(queue.rows) - 1, rank=len(queue.rows) + 5)
    assert stored.unstable_ids(gap) == [stored.Finding("rank", "rank", f"ranks are not 1..{len(queue.rows)}")]
    unknown = _edited(queue, i, term_id="t_0000000000")
    assert stored.unstable_ids(unknown) == [
        stored.Finding("t_0000000000", "term_id", "no glossary entry has this term_id")]


def test_rows_outside_the_contract_are_reported_by_field(sample):
    glossary = _document(sample, "glossary")
    edited = _edited(glossary, 0, extraction_status="maybe", subdomain_tags=["astrology"])
    assert sorted(f.field for f in stored.contract_violations(edited)) == ["extraction_status", "subdomain_tags.0"]


def test_a_queue_term_row_with_a_domain_id_breaks_the_contract(sample):
    queue = _document(sample, "review_queue")
    i = _first(queue, lambda r: r["row_kind"] == "term")
    findings = stored.contract_violations(_edited(queue, i, domain_id="d_0000000000"))
    assert [f.field for f in findings] == ["term.domain_id"]


def test_provenance_naming_another_document_breaks_the_contract(sample):
    rules = _document(sample, "rules")
    findings = stored.contract_violations(_edited(rules, 0, provenance__doc_id="OTHER-DOC"))
    assert [(f.field, f.problem) for f in findings] == [("provenance.doc_id", f"names OTHER-DOC, not {rules.doc_id}")]


def test_dangle_rates_count_unlinked_variables_rules_and_key_parameters(sample):
    formulas = _document(sample, "formulas")
    variables = [v for r in formulas.rows for v in r["variables"]]
    rate = stored.dangle_rate(formulas)
    assert (rate.name, rate.dangling, rate.total) == (
        "variables_without_term", sum(v["term_id"] is None for v in variables), len(variables))
    rules = stored.dangle_rate(_document(sample, "rules"))
    assert rules.name == "rules_without_terms" and 0 <= rules.rate <= 1
    unresolved = _edited(_document(sample, "domain_context"), 0,
                         key_parameters=[{"surface": "Grouping", "term_id": None}])
    assert stored.dangle_rate(unresolved).rate == 1.0


@pytest.mark.parametrize("table", ["glossary", "review_queue"])
def test_documents_read_in_groups_are_each_documents_own_rows_in_the_order_asked(sample, table, monkeypatch):
    store, doc_id = sample
    monkeypatch.setattr(stored, "DOCUMENTS_PER_READ", 2)
    order = ["absent-1", doc_id, "absent-2"]

    documents = list(stored.load_documents(store, table, order))

    assert [d.doc_id for d in documents] == order
    assert all(not d.rows and not d.chunks and not d.glossary_term_ids for d in documents if d.doc_id != doc_id)
    (found,) = (d for d in documents if d.doc_id == doc_id)
    assert found.rows == store.fetch(f"SELECT * FROM {table} WHERE doc_id = ?", [doc_id])
    chunks = store.fetch("SELECT chunk_id, text FROM parsed_chunks WHERE doc_id = ? ORDER BY seq", [doc_id])
    assert [(k, c.text) for k, c in found.chunks.items()] == [(r["chunk_id"], r["text"]) for r in chunks]
    glossary = store.fetch("SELECT term_id, provenance FROM glossary WHERE doc_id = ?", [doc_id])
    assert found.glossary_term_ids == {r["term_id"] for r in glossary}
    assert found.term_chunks == ({r["term_id"]: r["provenance"]["chunk_id"] for r in glossary}
                                 if table == "review_queue" else {})
    clusters = store.fetch("SELECT term_id, canonical FROM term_clusters WHERE doc_id = ?", [doc_id])
    assert found.cluster_canonicals == {r["term_id"]: r["canonical"] for r in clusters} != {}
