"""Gold files: loading, and that the sample gold is the documents' own wording."""

import json

import pytest

from knowledge_assets.evaluation.gold import GoldTerm, load_gold
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF


def test_a_document_without_gold_has_none(tmp_path):
    assert load_gold("NO-GOLD-1", tmp_path) is None


def test_gold_loads_terms_and_ignores_keys_of_later_stages(tmp_path):
    (tmp_path / "DOC-1.json").write_text(
        json.dumps(
            {
                "doc_id": "DOC-1",
                "terms": [{"canonical": "Fill Factor", "abbreviation": "FF", "definition": None}],
                "formulas": [{"name": "FF"}],
            }
        )
    )
    gold = load_gold("DOC-1", tmp_path)
    assert gold is not None and gold.terms == (GoldTerm("Fill Factor", "FF", None),)


def test_a_gold_file_for_another_document_is_refused(tmp_path):
    (tmp_path / "DOC-1.json").write_text(json.dumps({"doc_id": "DOC-2", "terms": []}))
    with pytest.raises(ValueError, match="DOC-2"):
        load_gold("DOC-1", tmp_path)


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
