"""The offline extractor on the sample documents' real chunks: what it finds, and that every
string it returns is an exact substring of its input."""

from __future__ import annotations

import pytest

from knowledge_assets.candidates.definitions import find_definitions
from knowledge_assets.llm.extractor import Extractor
from knowledge_assets.llm.offline import OfflineBackend
from knowledge_assets.llm.offline.text import abbreviation_pairs
from knowledge_assets.llm.requests import (
    DomainContextRequest,
    FormulaRequest,
    GlossaryRequest,
    RuleRequest,
    SourceChunk,
    TermCluster,
)
from knowledge_assets.llm.settings import resolve_settings
from knowledge_assets.terms.tokens import term_key

offline = OfflineBackend()


def heading_clusters(chunks: list[SourceChunk]) -> list[TermCluster]:
    """A cluster per `Long Form (ABBR)` heading, with the chunks under it and the definition
    candidates of those chunks that name it: the shape the glossary stage hands over."""
    clusters: dict[str, dict] = {}
    candidates = find_definitions(chunks)
    for chunk in chunks:
        heading = chunk.heading_path[-1] if chunk.heading_path else ""
        for (start, end), abbreviation in abbreviation_pairs(heading):
            entry = clusters.setdefault(abbreviation, {"key": f"t_{abbreviation}", "canonical": heading[start:end],
                                                       "abbreviation": abbreviation, "long_forms": [heading[start:end]],
                                                       "chunks": [], "candidates": []})
            entry["chunks"].append(chunk)
            names = {term_key(abbreviation), term_key(heading[start:end])}
            entry["candidates"] += [c for c in candidates if c.chunk_id == chunk.chunk_id
                                    and any(term_key(p.text) in names for p in c.parts if p.role in ("term", "abbreviation"))]
    return [TermCluster(**entry) for entry in clusters.values()]


def glossary_by_term(chunks):
    request = GlossaryRequest(clusters=heading_clusters(chunks))
    response = offline.answer(request).answer
    return {entry.term: entry for entry in response.terms}


def outline(chunks: list[SourceChunk]) -> list[str]:
    return list(dict.fromkeys(h for c in chunks for h in c.heading_path))


def test_finds_the_definition_under_the_terms_heading(pdf_chunks):
    qty = glossary_by_term(pdf_chunks)["Qty"]
    assert qty.definition == "Adalah jumlah equipment/unit yang digunakan untuk menghasilkan produksi dalam suatu periode."
    assert qty.full_name == "Quantity"
    assert qty.chunk_id == "SKT-STD-PRM-001::0008" and qty.span == qty.definition
    assert "production" in qty.subdomain_tags and "equipment" in qty.subdomain_tags


def test_keeps_the_documents_own_long_form(pdf_chunks):
    assert glossary_by_term(pdf_chunks)["PA"].full_name == "Physical of Availability"


@pytest.mark.parametrize(("term", "opening"), [
    ("WH", "Working Hours (WH) adalah jumlah jam unit"),
    ("CT", "Cycle Time (CT) adalah waktu yang diperlukan"),
])
def test_finds_x_adalah_definitions(pdf_chunks, term, opening):
    assert glossary_by_term(pdf_chunks)[term].definition.startswith(opening)


@pytest.mark.parametrize(("term", "opening"), [
    ("MTBF", "MTBF is defined as the average operating time"),
    ("MTTR", "MTTR means the average time"),
    ("MA", "Mechanical Availability (MA) refers to the percentage"),
    ("PM", "Planned Maintenance (PM): maintenance work"),
])
def test_finds_english_definitions(markdown_chunks, term, opening):
    assert glossary_by_term(markdown_chunks)[term].definition.startswith(opening)


def test_abstains_when_nothing_defines_the_term(pdf_chunks):
    cluster = TermCluster(key="t_tc", canonical="truck count", chunks=[c for c in pdf_chunks if "truck count" in c.text])
    entry = offline.answer(GlossaryRequest(clusters=[cluster])).answer.terms[0]
    assert entry.definition is None and entry.full_name is None
    assert entry.span == "truck count" and entry.chunk_id is not None


def _selected(text: str, canonical: str, abbreviation: str | None = None):
    chunk = SourceChunk(chunk_id="D::0001", text=text)
    names = {term_key(n) for n in (canonical, abbreviation) if n}
    candidates = [c for c in find_definitions([chunk])
                  if any(term_key(p.text) in names for p in c.parts if p.role in ("term", "abbreviation"))]
    cluster = TermCluster(key="t_x", canonical=canonical, abbreviation=abbreviation, chunks=[chunk], candidates=candidates)
    return offline.answer(GlossaryRequest(clusters=[cluster])).answer.terms[0]


def test_selects_the_glossary_entry_over_a_running_sentence_and_a_legend():
    text = ("Keterangan:\nRK = rasio kas daerah\n\nRasio Kas adalah angka di laporan.\n\n"
            "Rasio Kas (RK): perbandingan kas dengan utang jangka pendek.\n")
    entry = _selected(text, "Rasio Kas", "RK")
    assert entry.definition == "Rasio Kas (RK): perbandingan kas dengan utang jangka pendek."
    assert entry.span == entry.definition and entry.chunk_id == "D::0001"


def test_a_legend_defines_a_symbol_nothing_else_defines():
    entry = _selected("Keterangan:\nRK = rasio kas daerah pada akhir tahun\n", "RK")
    assert entry.definition == "RK = rasio kas daerah pada akhir tahun"


def test_the_expansion_a_definition_introduces_is_the_full_name():
    entry = _selected("Dana Cadangan Desa yang selanjutnya disingkat DCD adalah dana yang disisihkan.\n",
                      "Dana Cadangan Desa", "DCD")
    assert (entry.term, entry.full_name) == ("DCD", "Dana Cadangan Desa")


def test_a_colon_line_without_a_candidate_is_no_definition():
    chunk = SourceChunk(chunk_id="D::0001", text="Menetapkan : PERATURAN MENTERI TENTANG TARIF.\n")
    cluster = TermCluster(key="t_m", canonical="Menetapkan", chunks=[chunk])
    assert offline.answer(GlossaryRequest(clusters=[cluster])).answer.terms[0].definition is None


def test_finds_the_production_formula_with_its_legend(pdf_chunks):
    formulas = offline.answer(FormulaRequest(chunks=pdf_chunks)).answer.formulas
    production = next(f for f in formulas if f.name == "Production")
    assert production.span == production.formula_latex == "Production = MOHH x Qty x PA x UA x Pty"
    assert production.unit == "BCM"
    assert [v.symbol for v in production.variables] == ["MOHH", "Qty", "PA", "UA", "Pty"]
    assert production.variables[0].meaning.startswith("Machine on Hand Hours")


def test_formulas_skip_worked_examples_and_legend_lines(pdf_chunks):
    spans = [f.span for f in offline.answer(FormulaRequest(chunks=pdf_chunks)).answer.formulas]
    assert not any(span[0].isdigit() or span.startswith("x ") for span in spans)
    assert "PA = Physical Availability (%)" not in spans


def test_a_formula_continued_over_a_line_break_is_one_formula(pdf_chunks):
    spans = [f.span for f in offline.answer(FormulaRequest(chunks=pdf_chunks)).answer.formulas]
    assert any(span.startswith("CT Hauling = Queuing Time") and span.endswith("Travel Empty Time") for span in spans)


def test_splits_the_joint_survey_rule(pdf_chunks):
    rules = offline.answer(RuleRequest(chunks=pdf_chunks)).answer.rules
    rule = next(r for r in rules if "joint\nsurvey belum tersedia" in r.span)
    assert rule.condition == "Apabila data joint\nsurvey belum tersedia"
    assert rule.consequence == "maka digunakan data produksi berdasarkan truck count sebagai dasar\nperhitungan"
    assert rule.rule_type == "calculation" and rule.chunk_id == "SKT-STD-PRM-001::0015"


def test_english_rules_keep_an_or_inside_the_condition(markdown_chunks):
    rules = offline.answer(RuleRequest(chunks=markdown_chunks)).answer.rules
    backlog = next(r for r in rules if "Backlog Ratio" in r.span)
    assert backlog.condition == "If the Backlog Ratio is greater than 2 weeks, or if any P1 backlog item is older than 3 days"
    assert backlog.consequence == "the backlog is escalated to the Site Manager"
    assert backlog.rule_type == "interpretation"


def test_rules_cut_by_the_chunk_end_are_not_returned(pdf_chunks):
    rules = offline.answer(RuleRequest(chunks=pdf_chunks)).answer.rules
    assert not any("Halaman" in r.span for r in rules)


def test_locates_title_purpose_and_key_parameters(pdf_chunks):
    request = DomainContextRequest(outline=outline(pdf_chunks), chunks=pdf_chunks[:4])
    context = offline.answer(request).answer
    assert context.title == "STANDARD PARAMETER Production Parameter and Equipment\nCapacity Analysis (ECA)"
    assert context.purpose_verbatim.startswith("Standard Parameter ini merupakan pedoman dalam perhitungan parameter produksi")
    assert context.purpose_verbatim.endswith("Equipment Capacity Analysis (ECA).")
    assert context.key_parameters[:2] == ["Quantity (Qty)", "Physical Availability (PA)"]
    assert context.chunk_id == "SKT-STD-PRM-001::0001" and context.span == context.purpose_verbatim


def test_locates_the_purpose_of_an_english_procedure(markdown_chunks):
    request = DomainContextRequest(outline=outline(markdown_chunks), chunks=markdown_chunks[:4])
    context = offline.answer(request).answer
    assert context.title == "Maintenance KPI Procedure"
    assert context.purpose_verbatim.startswith("This procedure defines the key performance indicators (KPIs)")
    assert "Mean Time Between Failures (MTBF)" in context.key_parameters


ENUM_FIELDS = {"subdomain_tags", "rule_type"}


def _strings(value) -> list[str]:
    """Every string in a dumped model, enum values aside (they come from the contract)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() if key not in ENUM_FIELDS for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


@pytest.mark.parametrize("document", ["pdf_chunks", "markdown_chunks"])
def test_every_offline_string_is_a_substring_of_its_input(document, request):
    chunks = request.getfixturevalue(document)
    requests = [
        GlossaryRequest(clusters=heading_clusters(chunks)),
        FormulaRequest(chunks=chunks),
        RuleRequest(chunks=chunks),
        DomainContextRequest(outline=outline(chunks), chunks=chunks[:4]),
    ]
    checked = 0
    for extraction in requests:
        inputs = _strings(extraction.model_dump())
        answer = offline.answer(extraction).answer.model_dump()
        for text in _strings(answer):
            assert any(text in source for source in inputs), f"{type(extraction).__name__}: {text!r}"
            checked += 1
    assert checked > 100


def test_spans_are_found_in_the_chunk_they_name(pdf_chunks):
    text_of = {c.chunk_id: c.text for c in pdf_chunks}
    answers = [offline.answer(FormulaRequest(chunks=pdf_chunks)).answer.formulas,
               offline.answer(RuleRequest(chunks=pdf_chunks)).answer.rules]
    assert all(item.span in text_of[item.chunk_id] for items in answers for item in items)


def test_offline_usage_is_a_real_zero_token_call(pdf_chunks, monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "KNOWLEDGE_LLM_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    results = Extractor.from_settings(resolve_settings()).run([RuleRequest(chunks=pdf_chunks)])
    usage = results[0].usage
    assert results[0].ok and usage.deployment == "offline" and usage.simulated is False
    assert usage.prompt_tokens == usage.cached_tokens == usage.completion_tokens == 0
    assert usage.structured_output_mode == "offline"
