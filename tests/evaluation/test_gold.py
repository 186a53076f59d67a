"""Gold files: loading, clear refusals, and that the sample gold is the documents' own wording."""

import json

import pytest

from knowledge_assets.evaluation.gold import (
    GoldDomain,
    GoldError,
    GoldFormula,
    GoldRule,
    GoldTerm,
    load_gold,
)
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document
from knowledge_assets.terms.noise import line_shape, page_furniture
from knowledge_assets.verify.spans import is_verbatim
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF

TERM = {"canonical": "Fill Factor", "abbreviation": "FF", "definition": None}


def write(tmp_path, payload, name="DOC-1"):
    (tmp_path / f"{name}.json").write_text(json.dumps(payload), encoding="utf-8")


def test_a_document_without_gold_has_none(tmp_path):
    assert load_gold("NO-GOLD-1", tmp_path) is None


def test_gold_loads_every_part_and_ignores_unknown_keys(tmp_path):
    write(tmp_path, {
        "doc_id": "DOC-1",
        "terms": [TERM],
        "formulas": [{"name": "FF", "formula": "FF = V / K x 100%", "variables": ["V", "K"]}],
        "rules": [{"rule_type": "interpretation", "condition": "Jika FF > 110%", "consequence": "maka diverifikasi"}],
        "domain": {"title": "T", "purpose": None},
        "reviewer_notes": "ignored",
    })
    gold = load_gold("DOC-1", tmp_path)
    assert gold.terms == (GoldTerm("Fill Factor", "FF", None),)
    assert gold.formulas == (GoldFormula("FF", "FF = V / K x 100%", ("V", "K")),)
    assert gold.rules == (GoldRule("interpretation", None, "Jika FF > 110%", "maka diverifikasi"),)
    assert gold.domain == GoldDomain("T", None)


def test_a_part_nobody_annotated_is_none_and_an_empty_part_is_annotated_as_empty(tmp_path):
    write(tmp_path, {"doc_id": "DOC-1", "terms": [TERM], "rules": []})
    gold = load_gold("DOC-1", tmp_path)
    assert gold.formulas is None and gold.domain is None
    assert gold.rules == ()


def test_a_gold_file_for_another_document_is_refused(tmp_path):
    write(tmp_path, {"doc_id": "DOC-2", "terms": []})
    with pytest.raises(GoldError, match="DOC-2"):
        load_gold("DOC-1", tmp_path)


@pytest.mark.parametrize(
    ("payload", "cause"),
    [
        ({"doc_id": "DOC-1", "terms": [{"abbreviation": "FF"}]}, "canonical"),
        ({"doc_id": "DOC-1", "terms": [], "formulas": [{"name": "FF"}]}, "formula"),
        ({"doc_id": "DOC-1", "terms": [], "rules": [{"rule_type": "advice", "statement": "S."}]}, "rule_type 'advice'"),
        ({"doc_id": "DOC-1", "terms": [], "rules": [{"rule_type": "calculation", "condition": "If X"}]},
         "needs a statement"),
    ],
)
def test_malformed_gold_is_refused_naming_the_file_and_the_cause(tmp_path, payload, cause):
    write(tmp_path, payload)
    with pytest.raises(GoldError, match=cause) as refused:
        load_gold("DOC-1", tmp_path)
    assert str(tmp_path / "DOC-1.json") in str(refused.value)


def test_a_gold_file_that_is_not_json_is_refused(tmp_path):
    (tmp_path / "DOC-1.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(GoldError, match="not a UTF-8 JSON file"):
        load_gold("DOC-1", tmp_path)


def reading_text(path) -> str:
    """The document as a reader reads it: its pages in order, running headers and footers left
    out (a sentence may continue across a page break)."""
    parsed = parse_document(identify(path))
    furniture = page_furniture(parsed.pages)
    lines = [line for page in parsed.pages for line in page.text.split("\n") if line_shape(line) not in furniture]
    return "\n".join(lines)


@pytest.mark.parametrize("path", [SAMPLE_PDF, SAMPLE_MARKDOWN])
def test_sample_gold_terms_and_definitions_are_verbatim_in_their_document(path):
    parsed = parse_document(identify(path))
    text = " ".join(" ".join(page.text for page in parsed.pages).split())
    gold = load_gold(parsed.doc_id)
    assert gold is not None and len(gold.terms) >= 20
    for term in gold.terms:
        assert term.canonical in text
        for wording in (term.abbreviation, term.definition):
            assert wording is None or " ".join(wording.split()) in text


@pytest.mark.parametrize("path", [SAMPLE_PDF, SAMPLE_MARKDOWN])
def test_sample_gold_formulas_rules_and_domain_are_verbatim_in_their_document(path):
    text = reading_text(path)
    gold = load_gold(identify(path).doc_id)
    assert len(gold.formulas) >= 8 and len(gold.rules) >= 40 and gold.domain.title and gold.domain.purpose
    wordings = [gold.domain.title, gold.domain.purpose]
    wordings += [w for f in gold.formulas for w in (f.formula, f.name, *f.variables)]
    wordings += [w for r in gold.rules for w in (r.statement, r.condition, r.consequence) if w]
    assert [w for w in wordings if not is_verbatim(w, text)] == []


@pytest.mark.parametrize("path", [SAMPLE_PDF, SAMPLE_MARKDOWN])
def test_sample_gold_splits_a_rule_only_into_parts_of_its_statement(path):
    gold = load_gold(identify(path).doc_id)
    split = [r for r in gold.rules if r.condition]
    assert split and all(r.condition in r.statement and r.consequence in r.statement for r in split)
