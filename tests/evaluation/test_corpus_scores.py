"""The corpus scorer ported into the package: each metric's edge cases on outputs we write
ourselves, pinned, and the same figures (and misses) as the corpus's own score.py."""

import contextlib
import io
import json

import pytest

from knowledge_assets.evaluation.corpus_scores import (
    Outputs,
    formula_tokens,
    norm_name,
    read_outputs,
    score_outputs,
    windowed_f1,
    word_tokens,
)

GOLD = {
    "doc": "queue.md",
    "language": "en",
    "terms": [
        {"canonical": "Round-Trip Time", "abbreviation": "RTT",
         "definition_verbatim": "Round-Trip Time (RTT): the time from sending a packet to receiving "
                                "its acknowledgement."},
        {"canonical": "Congestion Window", "abbreviation": None,
         "definition_verbatim": "Congestion Window: the amount of data a sender may have in flight."},
        {"canonical": "Jendela Kemacetan", "abbreviation": None, "definition_verbatim": None,
         "aliases": ["Jendela  Kemacetan", "congestion-window"]},
        {"canonical": "Probe Timeout", "abbreviation": "PTO", "definition_verbatim": None},
    ],
    "formulas": [
        {"name": "smoothed", "verbatim": "srtt = 7/8 * srtt + 1/8 * sample_rtt"},
        {"name": "short", "verbatim": "SRTT <- R"},
        {"name": "fraction", "verbatim": "W = C × (t − K)³ ÷ 2,5"},
        {"name": "camel", "verbatim": "maxFlightSize = 2 x initialWindow"},
    ],
    "rules": [
        {"condition_verbatim": "If the RTT exceeds 100 ms",
         "consequence_verbatim": "the sender MUST halve the congestion window"},
        {"condition_verbatim": "Apabila kadar melebihi batas",
         "consequence_verbatim": "maka pengusaha wajib menghentikan kegiatan penambangan"},
    ],
}

PADDING = "the sender keeps its state in a table and updates it every round of the protocol".split()


def write_outputs(directory, **files):
    directory.mkdir(parents=True, exist_ok=True)
    for name, rows in files.items():
        (directory / f"{name}.json").write_text(json.dumps(rows), encoding="utf-8")
    return directory


GLOSSARY = [
    {"term": "**RTT**:", "full_name": "Round–Trip Time",
     "definition": "Round-Trip Time (RTT): the time from sending a packet to receiving its acknowledgement.",
     "mention_count": 2},
    {"term": "Congestion Windows", "full_name": None, "definition": "the window", "mention_count": 9},
    {"term": "Congestion-Window", "full_name": None, "definition": None, "mention_count": 1},
    {"term": "Probe Timeout (PTO)", "full_name": None, "definition": None, "mention_count": 5},
    "not an entry",
]
FORMULAS = [
    # the long provenance quotes a whole paragraph around the formula: windowed F1
    {"formula_latex": "", "name": "smoothed",
     "provenance": {"span": " ".join(PADDING + "srtt = 7/8 * srtt + 1/8 * sample_rtt".split() + PADDING)}},
    # a short gold counts only inside n+1 consecutive tokens
    {"formula_latex": "x", "provenance": [{"text": " ".join(PADDING[:4] + ["SRTT", "=", "R"] + PADDING)}]},
    {"formula_latex": r"\mathrm{W} = C \times \frac{(t - K)^3}{2.5}", "name": "W"},
    {"formula_latex": r"2 \cdot initial\_window", "name": "max_flight_size"},
]
RULES = [
    {"condition": "If the RTT exceeds 100 ms", "consequence": "the sender MUST halve the congestion window",
     "statement": None,
     "provenance": {"span": "If the RTT exceeds 100 ms, the sender MUST halve the congestion window."}},
    {"condition": None, "consequence": None, "statement": "Apabila kadar melebihi batas maka pengusaha wajib "
     "menghentikan kegiatan penambangan dan melapor", "provenance": None},
]
QUEUE = [
    {"row_kind": "term", "rank": 2, "term": "Probe Timeout (PTO)"},
    {"row_kind": "formula", "rank": 1, "term": "RTT"},
    {"row_kind": "term", "rank": 1, "term": "RTT"},
]

CASES = {
    "everything": dict(glossary=GLOSSARY, formulas=FORMULAS, interpretation_pack=RULES, review_queue=QUEUE),
    "no files at all": {},
    "no review queue: glossary by mention count": dict(glossary=GLOSSARY),
    "objects instead of lists": dict(glossary={"items": GLOSSARY}, formulas={"count": 1, "formulas": FORMULAS},
                                     interpretation_pack={"condition": "If the RTT exceeds 100 ms"}),
    "empty lists": dict(glossary=[], formulas=[], interpretation_pack=[], review_queue=[]),
    "a quote of the entire document is compared whole": dict(
        formulas=[{"formula_latex": "", "provenance": {"span": " ".join(PADDING * 30) + " SRTT = R"}}]),
}


def test_names_fold_case_quotes_dashes_whitespace_emphasis_and_trailing_punctuation():
    assert norm_name("  **Round–Trip\n Time**: ") == "round-trip time"
    assert norm_name("“RTT”.") == '"rtt"'
    assert word_tokens("Ne gara, B3!") == ["ne", "gara", "b3"]


def test_formula_tokens_normalise_latex_and_unicode_operators_and_split_identifiers():
    assert formula_tokens(r"\mathrm{W}_{max} = \frac{a}{b} \times c") == ["w", "max", "=", "a", "/", "b", "*", "c"]
    assert formula_tokens("T ← 2,5 ÷ y") == formula_tokens("T := 2.5 / y") == ["t", "=", "2.5", "/", "y"]
    assert formula_tokens("cwnd = maxFS x 2") == ["cwnd", "=", "max", "fs", "*", "2"]


def test_a_short_gold_counts_only_within_n_plus_one_consecutive_tokens():
    gold = formula_tokens("SRTT <- R")
    assert windowed_f1(PADDING + ["srtt", "=", "x", "r"] + PADDING, gold) == 1.0
    assert windowed_f1(PADDING + ["srtt", "=", "x", "y", "r"] + PADDING, gold) < 0.6


def test_a_long_candidate_is_scored_by_its_best_window_up_to_400_tokens():
    gold = "the sender must halve the congestion window now".split()
    assert windowed_f1(PADDING + gold + PADDING, gold) == 1.0
    assert windowed_f1(PADDING * 30 + gold, gold) < 0.6


def test_pinned_figures_of_our_outputs(tmp_path):
    scores = score_outputs(GOLD, read_outputs(write_outputs(tmp_path, **CASES["everything"])))
    figures = scores.figures
    # RTT by emphasised name, Congestion Window only with the plural folded, Jendela by alias, PTO in parentheses.
    assert (figures["term_recall"], figures["term_recall_strict"], figures["term_recall_lenient"]) == (0.5, 0.25, 1.0)
    assert figures["term_recall_top2n"] == 0.25  # the queue's term rows: "RTT" and "Probe Timeout (PTO)"
    assert (figures["definition_recall"], figures["definition_precision"]) == (0.5, 1.0)
    assert figures["formula_recall"] == 1.0 and figures["rule_recall"] == 1.0 and figures["rule_pair_recall"] == 0.5
    assert figures["outputs"] == {"glossary": 4, "formulas": 4, "interpretation_pack": 2}
    assert "term MISSED: 'Congestion Window' / None" in scores.misses


def test_missing_files_are_empty_and_undefined_rates_are_none(tmp_path):
    figures = score_outputs({"doc": "x", "terms": [], "formulas": []}, Outputs()).figures
    assert (figures["term_recall"] is None and figures["formula_recall"] is None
            and figures["definition_precision"] is None)
    assert figures["outputs"] == {"glossary": None, "formulas": None, "interpretation_pack": None}


@pytest.mark.parametrize("case", CASES)
def test_the_figures_and_misses_equal_the_corpus_score_py(score_py, tmp_path, case):
    directory = write_outputs(tmp_path / "out", **CASES[case])
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        expected = score_py.score(GOLD, str(directory), verbose=True)
    ported = score_outputs(GOLD, read_outputs(directory))
    assert ported.figures == expected
    assert ported.misses == stderr.getvalue().splitlines()
