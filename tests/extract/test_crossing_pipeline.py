"""A definition and a rule that a page break cuts, a page number between their halves (D56),
through the whole graph: offline, and against the loopback OpenAI-compatible server quoting
the crossing sentences whole. Each is found whole, its provenance names both pages, and the
stored checks (which block the run) pass on the pieces."""

import re

import pytest

from knowledge_assets.branches import GLOSSARY, RULE
from knowledge_assets.store.knowledge import load_branch
from knowledge_assets.store.protocol import Store
from tests.support.crossing import piece_pages, run_pdf
from tests.support.openai_server import OpenAIServer, prompt_text, schema_title

PAGES = [
    ["PERATURAN KEPALA BADAN CONTOH", "NOMOR 7 TAHUN 2030", "BAB I", "KETENTUAN UMUM", "Pasal 1",
     "Dalam Peraturan ini yang dimaksud dengan:",
     "1. Zona Pengawasan adalah daerah kerja yang memerlukan pemantauan dosis",
     "dan tindakan proteksi khusus bagi setiap pekerja yang",
     "- 2 -"],
    ["berada di dalamnya selama jam kerja.",
     "2. Petugas Proteksi adalah pekerja yang ditunjuk untuk mengawasi zona kerja.",
     "Pasal 2",
     "Apabila dosis seorang pekerja melampaui batas yang ditetapkan, maka pekerja",
     "- 3 -"],
    ["tersebut harus dipindahkan dari Zona Pengawasan.",
     "- 4 -"],
]
FIRST_HALF = ("Zona Pengawasan adalah daerah kerja yang memerlukan pemantauan dosis\n"
              "dan tindakan proteksi khusus bagi setiap pekerja yang")
DEFINITION = ("Zona Pengawasan adalah daerah kerja yang memerlukan pemantauan dosis dan tindakan proteksi "
              "khusus bagi setiap pekerja yang berada di dalamnya selama jam kerja.")
RULE_TEXT = ("Apabila dosis seorang pekerja melampaui batas yang ditetapkan, maka pekerja tersebut harus "
             "dipindahkan dari Zona Pengawasan.")


def _assert_found_whole(store: Store, doc_id: str) -> None:
    [entry] = [e for e in load_branch(store, GLOSSARY, doc_id) if e.term == "Zona Pengawasan"]
    assert " ".join(entry.definition.split()) == DEFINITION
    assert piece_pages(entry.provenance) == [1, 2] and entry.provenance.page_no == 1
    first, second = entry.provenance.pieces
    assert first.span.endswith("setiap pekerja yang") and second.span == "berada di dalamnya selama jam kerja."
    assert entry.provenance.span == f"{first.span} {second.span}"
    [rule] = [r for r in load_branch(store, RULE, doc_id) if r.condition and "melampaui" in r.condition]
    assert rule.consequence.endswith("harus dipindahkan dari Zona Pengawasan")
    assert piece_pages(rule.provenance) == [2, 3]
    # the offline span ends with the consequence, a model's may take the full stop too
    assert " ".join(rule.provenance.span.split()).rstrip(".") == RULE_TEXT.rstrip(".")


def test_offline_a_definition_and_a_rule_cut_by_a_page_break_are_found_whole(tmp_path):
    with pytest.MonkeyPatch.context() as env:
        env.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
        store, doc_id, outcome = run_pdf(tmp_path, env, "zona.pdf", PAGES)
    assert outcome.success
    _assert_found_whole(store, doc_id)


def _chunk_with(text: str, needle: str) -> str | None:
    chunks = re.findall(r'<chunk id="([^"]+)"[^>]*>\n(.*?)\n</chunk>', text, flags=re.S)
    return next((cid for cid, body in chunks if needle in body), None)


def model(body: dict) -> dict:
    """A model that quotes each crossing sentence whole, on one line, citing its first chunk."""
    text = prompt_text(body).rsplit("<document>", 1)[-1]
    title = schema_title(body)
    if title == "GlossaryResponse":
        terms = [{"cluster": int(number), "term": canonical, "full_name": None,
                  "definition": DEFINITION if canonical == "Zona Pengawasan" else None, "subdomain_tags": [],
                  "span": DEFINITION if canonical == "Zona Pengawasan" else None,
                  "chunk_id": _chunk_with(text, FIRST_HALF) if canonical == "Zona Pengawasan" else None}
                 for number, canonical in re.findall(r'\[term (\d+)\] canonical: "([^"]+)"', text)]
        return {"terms": terms}
    if title == "DomainContextResponse":
        return {"title": None, "purpose_verbatim": None, "key_parameters": [], "span": None, "chunk_id": None}
    if title == "FormulaResponse":
        return {"formulas": []}
    chunk_id = _chunk_with(text, "Apabila dosis seorang pekerja")
    rules = [] if chunk_id is None else [{
        "rule_type": "interpretation", "statement": RULE_TEXT,
        "condition": "Apabila dosis seorang pekerja melampaui batas yang ditetapkan",
        "consequence": "pekerja tersebut harus dipindahkan dari Zona Pengawasan", "span": RULE_TEXT,
        "chunk_id": chunk_id}]
    return {"rules": rules}


def test_a_models_quote_of_a_sentence_crossing_a_page_break_is_kept_with_bothpiece_pages(tmp_path):
    with OpenAIServer(model) as server, pytest.MonkeyPatch.context() as env:
        env.setenv("OPENAI_API_KEY", "sk-test-crossing")
        env.setenv("OPENAI_BASE_URL", server.base_url)
        env.setenv("KNOWLEDGE_LLM_MODEL", "loopback-nano")
        env.delenv("KNOWLEDGE_LLM_BACKEND", raising=False)
        store, doc_id, outcome = run_pdf(tmp_path, env, "zona.pdf", PAGES)
    assert outcome.success
    _assert_found_whole(store, doc_id)
