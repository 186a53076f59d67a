"""The convention report: each candidate named by its registered convention, gold items credited
only where the convention carried their evidence and the outputs recovered them, and the
conventions that fire on one document named."""

from knowledge_assets.candidates.conventions import REGISTRY, convention_of, knowledge_candidates
from knowledge_assets.candidates.model import span
from knowledge_assets.candidates.source import SourceChunk
from knowledge_assets.evaluation.conventions import document_conventions, render_conventions, summarise

DOC = """## Ketentuan Umum

1. Alat Ukur adalah perangkat untuk mengukur laju dosis di tempat kerja.

Apabila laju dosis melebihi nilai batas, maka pekerja harus meninggalkan daerah kerja.
"""
GOLD = {
    "terms": [{"canonical": "Alat Ukur", "definition_verbatim":
               "Alat Ukur adalah perangkat untuk mengukur laju dosis di tempat kerja."},
              {"canonical": "Daerah Kerja",
               "definition_verbatim": "Daerah Kerja adalah ruang tempat pekerja bekerja."}],
    "formulas": [],
    "rules": [{"condition_verbatim": "Apabila laju dosis melebihi nilai batas",
               "consequence_verbatim": "pekerja harus meninggalkan daerah kerja"}],
}


def candidates():
    return knowledge_candidates([SourceChunk(chunk_id="c1", text=DOC)])


def test_a_statutory_sentence_is_one_convention_whatever_its_copula_and_an_unknown_cue_is_named():
    keys = {convention_of(c) for c in candidates()}
    assert {"definition/statutory", "rule/conditional"} <= keys
    assert keys <= set(REGISTRY)
    odd = span("rule", "c1", "x y z", 0, 5, "sideways")
    assert convention_of(odd) == "rule/unregistered:sideways"


def test_an_item_is_credited_only_where_the_outputs_recovered_it_and_the_convention_carried_it():
    everything = document_conventions(GOLD, candidates(), {"definition": frozenset({0, 1}), "rule": frozenset({0})})
    assert everything["definition/statutory"].recovered == {0}  # item 1's evidence is not in the text
    assert everything["rule/conditional"].recovered == {0}
    nothing = document_conventions(GOLD, candidates(), {"definition": frozenset(), "rule": frozenset()})
    assert all(not c.recovered for c in nothing.values())
    assert nothing["definition/statutory"].candidates == 1


def test_the_report_names_a_convention_that_fires_on_one_document_only():
    first = document_conventions(GOLD, candidates(), {"definition": frozenset({0}), "rule": frozenset({0})})
    rules_only = {k: v for k, v in first.items() if k.startswith("rule/")}
    summaries = summarise({"a": first, "b": rules_only})
    by_key = {s.key: s for s in summaries}
    assert by_key["rule/conditional"].documents == ("a", "b") and by_key["rule/conditional"].recovered_total == 2
    report = render_conventions(summaries)
    assert "fires on one document only: definition/statutory (a)" in report
    assert "fires on no document:" in report and "formula/latex_block" in report
    assert "recovers gold on fewer than 3 documents, so not yet general: definition/statutory (1); " \
           "rule/conditional (2)" in report
