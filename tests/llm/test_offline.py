"""The offline extractor on the sample documents' real chunks: what it finds, and that every
string it returns is an exact substring of its input."""

from __future__ import annotations

import pytest

from knowledge_assets.candidates.definitions import find_definitions
from knowledge_assets.candidates.domain import find_domain
from knowledge_assets.candidates.formulas import find_formulas
from knowledge_assets.candidates.rules import find_rules
from knowledge_assets.llm.extractor import Extractor
from knowledge_assets.llm.model_settings import resolve_settings
from knowledge_assets.llm.offline import OfflineBackend
from knowledge_assets.llm.offline.abbreviation_pairs import abbreviation_pairs
from knowledge_assets.llm.requests import (
    DomainContextRequest,
    FormulaRequest,
    GlossaryRequest,
    RuleRequest,
    SourceChunk,
    TermBlock,
)
from knowledge_assets.terms.tokens import term_key

offline = OfflineBackend()


def heading_clusters(chunks: list[SourceChunk]) -> list[TermBlock]:
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
                                    and any(term_key(p.text) in names
                                            for p in c.parts if p.role in ("term", "abbreviation"))]
    return [TermBlock(**entry) for entry in clusters.values()]


def formula_request(chunks: list[SourceChunk]) -> FormulaRequest:
    """A formula request as the stage builds it: the chunks and their formula candidates."""
    return FormulaRequest(chunks=chunks, candidates=find_formulas(chunks))


def glossary_by_term(chunks):
    request = GlossaryRequest(clusters=heading_clusters(chunks))
    response = offline.answer(request).answer
    return {entry.term: entry for entry in response.terms}


def rule_request(chunks: list[SourceChunk]) -> RuleRequest:
    """A rule request as the stage builds it: the chunks with the rule candidates found in them."""
    return RuleRequest(chunks=chunks, candidates=find_rules(chunks))


def outline(chunks: list[SourceChunk]) -> list[str]:
    return list(dict.fromkeys(h for c in chunks for h in c.heading_path))


def test_finds_the_definition_under_the_terms_heading(pdf_chunks):
    qty = glossary_by_term(pdf_chunks)["Qty"]
    assert qty.definition == ("Adalah jumlah equipment/unit yang digunakan untuk menghasilkan produksi "
                              "dalam suatu periode.")
    assert qty.full_name == "Quantity"
    assert qty.chunk_id == "SKT-STD-PRM-001::0008" and qty.span == qty.definition
    assert "production" in qty.subdomain_tags and "equipment" in qty.subdomain_tags


def test_a_long_form_stays_in_its_table_cell():
    table = ("|Service-level indicator (SLI) | A metric emitted by a service that quantifies an SLO value. |\n"
             "|Service-level agreement (SLA) | A contractual agreement. |")
    pairs = {abbreviation: table[start:end] for (start, end), abbreviation in abbreviation_pairs(table)}
    assert pairs == {"SLI": "Service-level indicator", "SLA": "Service-level agreement"}


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
    cluster = TermBlock(key="t_tc", canonical="truck count",
                          chunks=[c for c in pdf_chunks if "truck count" in c.text])
    entry = offline.answer(GlossaryRequest(clusters=[cluster])).answer.terms[0]
    assert entry.definition is None and entry.full_name is None
    assert entry.span == "truck count" and entry.chunk_id is not None


def _selected(text: str, canonical: str, abbreviation: str | None = None):
    chunk = SourceChunk(chunk_id="D::0001", text=text)
    names = {term_key(n) for n in (canonical, abbreviation) if n}
    candidates = [c for c in find_definitions([chunk])
                  if any(term_key(p.text) in names for p in c.parts if p.role in ("term", "abbreviation"))]
    cluster = TermBlock(key="t_x", canonical=canonical, abbreviation=abbreviation, chunks=[chunk],
                          candidates=candidates)
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
    cluster = TermBlock(key="t_m", canonical="Menetapkan", chunks=[chunk])
    assert offline.answer(GlossaryRequest(clusters=[cluster])).answer.terms[0].definition is None


def test_finds_the_production_formula_with_its_legend(pdf_chunks):
    formulas = offline.answer(formula_request(pdf_chunks)).answer.formulas
    production = next(f for f in formulas if f.name == "Production")
    assert production.span == production.formula_latex == "Production = MOHH x Qty x PA x UA x Pty"
    assert production.unit == "BCM"
    assert [v.symbol for v in production.variables] == ["MOHH", "Qty", "PA", "UA", "Pty"]
    assert production.variables[0].meaning.startswith("Machine on Hand Hours")


def test_formulas_skip_worked_examples_and_legend_lines(pdf_chunks):
    spans = [f.span for f in offline.answer(formula_request(pdf_chunks)).answer.formulas]
    assert not any(span[0].isdigit() or span.startswith("x ") for span in spans)
    assert "PA = Physical Availability (%)" not in spans


def test_a_formula_continued_over_a_line_break_is_one_formula(pdf_chunks):
    spans = [f.span for f in offline.answer(formula_request(pdf_chunks)).answer.formulas]
    assert any(span.startswith("CT Hauling = Queuing Time") and span.endswith("Travel Empty Time") for span in spans)


def _formulas_of(text: str):
    return offline.answer(formula_request([SourceChunk(chunk_id="doc::0001", text=text)])).answer.formulas


def test_a_selected_formula_is_transcribed_as_written_with_its_legend_and_unit():
    formula, = _formulas_of("Rate = Volume / Fill Time x 100%\nKeterangan:\n"
                            "Rate = laju isi (%)\nVolume = isi tangki (m3)\n")
    assert formula.name == "Rate" and formula.formula_latex == formula.span == "Rate = Volume / Fill Time x 100%"
    assert [(v.symbol, v.meaning) for v in formula.variables] == [("Volume", "isi tangki (m3)"), ("Fill Time", None)]
    assert formula.unit == "%" and formula.chunk_id == "doc::0001"


def test_identifier_formulas_name_operands_not_functions_or_numbers():
    formula, = _formulas_of("~~~\nwindow = min(window_new, 3*peak) + SMSS*SMSS/window\n~~~\n")
    assert formula.name == "window"
    assert [v.symbol for v in formula.variables] == ["window_new", "peak", "SMSS", "window"]


def test_a_tight_product_names_each_factor():
    formula, = _formulas_of("dihitung dengan formula sebagai berikut:\nDenda Harian = ((P-Q)xRxS)xTK\n")
    assert [v.symbol for v in formula.variables] == ["P", "Q", "R", "S", "TK"]


def test_a_latex_block_keeps_its_markup_and_names_its_symbols():
    formula, = _formulas_of("~~~ math\n"
                            "\\mathrm{W_{est}} = W_{est} + \\alpha * \\frac{acked}{cwnd} \\text{ per ACK}\n~~~\n")
    assert formula.formula_latex == "\\mathrm{W_{est}} = W_{est} + \\alpha * \\frac{acked}{cwnd} \\text{ per ACK}"
    assert formula.name == "\\mathrm{W_{est}}"
    assert [v.symbol for v in formula.variables] == ["W_{est}", "acked", "cwnd"]


def test_environment_names_and_prose_of_a_piecewise_latex_formula_are_not_symbols():
    formula, = _formulas_of("~~~ math\n"
                            "G = \\left\\{\\begin{array}{ll} q & \\text{if } q < r \\end{array}\\right.\n~~~\n")
    assert [v.symbol for v in formula.variables] == ["q", "r"]


def test_a_fraction_layout_is_transcribed_linear_beside_its_verbatim_span_and_its_unit_is_no_variable():
    formula, = _formulas_of("  Ka,d        Kb\n------ + ------  < 1\n  20 mg       35\n")
    assert formula.name is None and formula.span == "Ka,d        Kb\n------ + ------  < 1\n  20 mg       35"
    assert formula.formula_latex == "\\frac{Ka,d}{20 \\mathrm{mg}} + \\frac{Kb}{35} < 1"
    assert [v.symbol for v in formula.variables] == ["Ka,d", "Kb"]


def test_a_fraction_layout_with_a_left_side_and_a_factor_reads_as_its_linear_form():
    layout = "          Jam Efektif\n   Efisiensi = ------------ x 100%\n          Jam Tersedia\n"
    formula, = _formulas_of(f"Rumus:\n\n{layout}")
    assert formula.name == "Efisiensi"
    assert formula.formula_latex == "Efisiensi = \\frac{Jam Efektif}{Jam Tersedia} \\times 100\\%"
    assert [v.symbol for v in formula.variables] == ["Jam Efektif", "Jam Tersedia"]


def test_a_layout_whose_rows_do_not_pair_with_its_bars_is_kept_as_it_stands():
    formula, = _formulas_of("  Ka   Kb   Kc\n------ + ------  < 1\n  20       35\n")
    assert formula.formula_latex == formula.span


def test_a_formula_the_text_layer_damaged_has_no_variables():
    formula, = _formulas_of("ditetapkan berdasarkan persamaan:\n1)(1 ≤∑ = j j\nm\nj nilaiAbatas\nR\n\nKeterangan:\n")
    assert formula.variables == []


def test_a_displayed_equation_without_a_named_left_side_is_named_by_its_number():
    formula, = _formulas_of("Functions:\n )(}64{ 1 yτ  = ROTX 4(y) ⊕  SHX 2(y) (5.3) \n")
    assert formula.name == "(5.3)" and formula.span == ")(}64{ 1 yτ  = ROTX 4(y) ⊕  SHX 2(y)"


def test_symbols_side_by_side_are_each_a_variable_and_units_are_none():
    product, = _formulas_of("     H = D Q N\n")
    assert [v.symbol for v in product.variables] == ["D", "Q", "N"]
    budget, = _formulas_of("~~~\nBudget = 100 percent - Target\n~~~\n")
    assert [v.symbol for v in budget.variables] == ["Target"]


def test_a_tariff_cell_multiplies_the_quantities_the_table_words():
    text = "C. Denda per ton Rp[Harga Jual x\nvolume\nterjual x\n3O% (tiga\npuluh persen)D. Lain\n"
    formula, = _formulas_of(text)
    assert [v.symbol for v in formula.variables] == ["Harga Jual", "volume terjual"]


def test_a_formula_stated_twice_is_returned_once():
    assert len(_formulas_of("Rate = Volume / Time\n\nAgain:\n\nRate = Volume / Time\n")) == 1


def test_no_candidates_no_formulas(pdf_chunks):
    assert offline.answer(FormulaRequest(chunks=pdf_chunks)).answer.formulas == []


def test_splits_the_joint_survey_rule(pdf_chunks):
    rules = offline.answer(rule_request(pdf_chunks)).answer.rules
    rule = next(r for r in rules if "joint\nsurvey belum tersedia" in r.span)
    assert rule.condition == "Apabila data joint\nsurvey belum tersedia"
    assert rule.consequence == "maka digunakan data produksi berdasarkan truck count sebagai dasar\nperhitungan"
    assert rule.rule_type == "calculation" and rule.chunk_id == "SKT-STD-PRM-001::0015"


def test_english_rules_keep_an_or_inside_the_condition(markdown_chunks):
    rules = offline.answer(rule_request(markdown_chunks)).answer.rules
    backlog = next(r for r in rules if "Backlog Ratio" in r.span)
    assert backlog.condition == ("If the Backlog Ratio is greater than 2 weeks, "
                                 "or if any P1 backlog item is older than 3 days")
    assert backlog.consequence == "the backlog is escalated to the Site Manager"
    assert backlog.rule_type == "interpretation"


def test_rules_cut_by_the_chunk_end_are_not_returned(pdf_chunks):
    rules = offline.answer(rule_request(pdf_chunks)).answer.rules
    assert not any("Halaman" in r.span for r in rules)


def domain_request(chunks: list[SourceChunk], leading: int | None = None) -> DomainContextRequest:
    """The document's outline, its first `leading` chunks and their candidates."""
    shown = chunks[:leading]
    return DomainContextRequest(outline=outline(chunks), chunks=shown, candidates=find_domain(shown))


def own_rules(text: str, heading: str = "Aturan"):
    chunks = [SourceChunk(chunk_id="D::0001", text=text, heading_path=[heading])]
    return offline.answer(rule_request(chunks)).answer.rules


def test_a_requirement_without_a_conditional_clause_is_stated_whole():
    rule = own_rules("Setiap tamu wajib mengisi buku register.")[0]
    assert rule.statement == rule.span == "Setiap tamu wajib mengisi buku register."
    assert rule.condition is None and rule.consequence is None


def test_a_conditional_rule_spans_its_condition_and_consequence():
    rule = own_rules("The gateway MUST close the session when the token expires.")[0]
    assert rule.consequence == "The gateway MUST close the session" and rule.condition == "when the token expires"
    assert rule.span == "The gateway MUST close the session when the token expires"
    assert rule.statement == "The gateway MUST close the session when the token expires."


def test_a_borrowed_condition_stays_out_of_the_span_so_both_rules_keep_their_own_id():
    rules = own_rules("If the peer is idle, then the link is dormant. In this case, the node SHOULD send a keepalive.")
    anaphoric = next(r for r in rules if r.statement.startswith("In this case"))
    assert anaphoric.condition == "If the peer is idle"
    assert anaphoric.span == "In this case, the node SHOULD send a keepalive"
    assert len({r.span[:10] for r in rules}) == len(rules) == 2


@pytest.mark.parametrize(("sentence", "rule_type"), [
    ("If the error rate exceeds 5% in a day, the line supervisor reviews the shift log.", "interpretation"),
    ("Jika suhu lebih dari 40 derajat, maka operator menghentikan mesin.", "interpretation"),
    ("If the error rate exceeds 5% in a day, the rate is recorded as a fault.", "calculation"),
    ("On entering idle mode, a client MUST set the window to its initial value.", "calculation"),
    ("If the two digests differ, the message is invalid.", "interpretation"),
    # Recording, using or reporting is a calculation only of a value: a number or a unit.
    ("If a unit stops for less than 15 minutes, the stop is recorded as a delay.", "calculation"),
    ("Standby Hours wajib dicatat dengan kode standby.", "calculation"),
    ("Setiap penyinaran abnormal harus dilaporkan pada BAPETEN.", "interpretation"),
    ("Respirator harus digunakan pada waktu keadaan darurat.", "interpretation"),
    ("Harga sesungguhnya digunakan dalam hal transaksi tidak dipengaruhi hubungan istimewa.", "calculation"),
])
def test_rule_type_computing_first_then_judging_or_acting_on_a_threshold(sentence, rule_type):
    assert own_rules(sentence)[0].rule_type == rule_type


@pytest.mark.parametrize(("sentence", "rule_type"), [
    ("Ruang tunggu harus bersih dan terang.", "interpretation"),
    ("The relay MUST NOT forward a frame twice.", "interpretation"),
    ("If the link is idle, the node sends a keepalive.", "interpretation"),
    ("Data yang belum diverifikasi tidak boleh dipakai dalam laporan.", "calculation"),
    ("When two figures disagree, the newer one prevails.", "calculation"),
    ("If the queue is empty, count -= 1.", "calculation"),
    ("Denda:\na. 2% (dua persen) untuk keterlambatan sampai dengan 5 (lima) hari;\nb. 4% (empat persen) untuk "
     "keterlambatan lebih dari 5 (lima) hari.", "calculation"),
])
def test_rule_type_of_a_rule_that_computes_nothing_is_interpretation_unless_it_speaks_of_values(sentence, rule_type):
    """D51: an obligation or a rule of conduct is the norm a behaviour is read against; a rule about
    data, figures or an amount stays a calculation convention."""
    assert own_rules(sentence)[-1].rule_type == rule_type


def test_offline_rules_are_selected_among_the_candidates_only():
    chunks = [SourceChunk(chunk_id="D::0001", text="Jika data kosong, maka gunakan plan.")]
    assert offline.answer(RuleRequest(chunks=chunks)).answer.rules == []


def test_locates_title_purpose_and_key_parameters(pdf_chunks):
    request = domain_request(pdf_chunks, 4)
    context = offline.answer(request).answer
    assert context.title == "STANDARD PARAMETER Production Parameter and Equipment\nCapacity Analysis (ECA)"
    assert context.purpose_verbatim.startswith("Standard Parameter ini merupakan pedoman "
                                               "dalam perhitungan parameter produksi")
    assert context.purpose_verbatim.endswith("Equipment Capacity Analysis (ECA).")
    assert context.key_parameters[:2] == ["Quantity (Qty)", "Physical Availability (PA)"]
    assert context.chunk_id == "SKT-STD-PRM-001::0001" and context.span == context.purpose_verbatim


def test_locates_the_purpose_of_an_english_procedure(markdown_chunks):
    request = domain_request(markdown_chunks, 4)
    context = offline.answer(request).answer
    assert context.title == "Maintenance KPI Procedure"
    assert context.purpose_verbatim.startswith("This procedure defines the key performance indicators (KPIs)")
    assert "Mean Time Between Failures (MTBF)" in context.key_parameters
    assert "Samudra Karya Tambang (SKT)" not in context.key_parameters  # the company, not a parameter


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
        formula_request(chunks),
        rule_request(chunks),
        domain_request(chunks, 4),
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
    answers = [offline.answer(formula_request(pdf_chunks)).answer.formulas,
               offline.answer(rule_request(pdf_chunks)).answer.rules]
    assert all(item.span in text_of[item.chunk_id] for items in answers for item in items)


def test_offline_usage_is_a_real_zero_token_call(pdf_chunks, monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "KNOWLEDGE_LLM_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    results = Extractor.from_settings(resolve_settings()).run([RuleRequest(chunks=pdf_chunks)])
    usage = results[0].usage
    assert results[0].ok and usage.deployment == "offline" and usage.simulated is False
    assert usage.prompt_tokens == usage.cached_tokens == usage.completion_tokens == 0
    assert usage.structured_output_mode == "offline"


def test_domain_context_selects_the_strongest_cue_and_abstains_without_candidates():
    chunks = [SourceChunk(chunk_id="D::0000", text='title: "Widget Transport"'),
              SourceChunk(chunk_id="D::0001", text="Widget Transport\n\nThis document specifies widgets.",
                          heading_path=["Widget Transport"])]
    context = offline.answer(domain_request(chunks)).answer
    assert (context.title, context.purpose_verbatim) == ("Widget Transport", "This document specifies widgets.")
    assert context.chunk_id == "D::0001"
    bare = offline.answer(DomainContextRequest(chunks=chunks)).answer
    assert (bare.title, bare.purpose_verbatim, bare.span) == (None, None, None)


def test_key_parameters_leave_out_the_issuing_authority():
    # Bodies named by the genre's convention, whatever their name: head word first in
    # Indonesian, last in English; their abbreviations go with them.
    chunks = [SourceChunk(chunk_id="D::0000", text="Peraturan Menteri ini mengatur Tarif Layanan Air (TLA) yang "
                          "ditetapkan oleh Badan Pengatur Sumber Air (BPSA) dan Water Pricing Agency (WPA).")]
    context = offline.answer(domain_request(chunks)).answer
    assert context.key_parameters == ["Tarif Layanan Air (TLA)"]


def test_key_parameters_take_the_defined_terms_the_title_names():
    chunks = [SourceChunk(chunk_id="D::0000",
                          text="PERATURAN MENTERI CONTOH\nNOMOR 7 TAHUN 2030\nTENTANG\nTARIF AIR BERSIH"),
              SourceChunk(chunk_id="D::0001", text="Dalam Peraturan ini yang dimaksud dengan:\n1. Tarif Air Bersih "
                          "yang selanjutnya\ndisebut Tarif adalah harga air.\n2. Menteri adalah menteri contoh.\n"
                          "3. Pipa Induk adalah pipa besar.", heading_path=["Pasal 1"])]
    context = offline.answer(domain_request(chunks)).answer
    assert context.key_parameters == ["Tarif Air Bersih"]  # not Menteri (the authority), not Pipa Induk (not central)
