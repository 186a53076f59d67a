"""`knowledge-assets eval --corpus`: the corpus layout, the table and means, the comparison with
a baseline, and the command on a small corpus we write ourselves (run for real, offline, in a
private store and instance)."""

import json

import pytest

from knowledge_assets.command import main
from knowledge_assets.evaluation.corpus import (
    CorpusError,
    DocumentResult,
    compare_with_baseline,
    corpus_documents,
    gold_stem,
    means,
    read_corpus_results,
    table_footer,
    table_row,
)
from knowledge_assets.evaluation.corpus_scores import CorpusScores

QUEUE_DOC = """# Queue sizing

## Terminology

Round-Trip Time (RTT): the time from sending a packet to receiving its acknowledgement.

Congestion Window: the amount of data a sender may have in flight.

## Computation

The sender computes its window as follows:

~~~
cwnd = 2 * mss
~~~

If the RTT exceeds 100 ms, the sender MUST halve the congestion window.
"""
QUEUE_GOLD = {
    "doc": "queue.md", "language": "en",
    "terms": [
        {"canonical": "Round-Trip Time", "abbreviation": "RTT",
         "definition_verbatim": "Round-Trip Time (RTT): the time from sending a packet to receiving "
                                "its acknowledgement."},
        {"canonical": "Congestion Window", "abbreviation": None,
         "definition_verbatim": "Congestion Window: the amount of data a sender may have in flight."},
    ],
    "formulas": [{"name": "cwnd", "verbatim": "cwnd = 2 * mss"}],
    "rules": [{"condition_verbatim": "If the RTT exceeds 100 ms",
               "consequence_verbatim": "the sender MUST halve the congestion window"}],
}
NOTE_DOC = "# Note\n\nThe Probe Timeout (PTO) is a timer.\n"
NOTE_GOLD = {"doc": "note.txt", "language": "en", "formulas": [], "rules": [],
             "terms": [{"canonical": "Probe Timeout", "abbreviation": "PTO", "definition_verbatim": None}]}


def make_corpus(root, documents):
    (root / "docs").mkdir(parents=True)
    (root / "gold").mkdir()
    for name, (text, gold) in documents.items():
        (root / "docs" / name).write_text(text, encoding="utf-8")
        if gold is not None:
            (root / "gold" / f"{gold_stem(root / 'docs' / name)}.json").write_text(json.dumps(gold), encoding="utf-8")
    return root


def scored(stem, **figures):
    rates = dict.fromkeys(("term_recall", "term_recall_top2n", "definition_recall", "definition_precision",
                           "formula_recall", "rule_recall", "rule_pair_recall", "term_recall_strict",
                           "term_recall_lenient"))
    return DocumentResult(stem, f"{stem}.md", CorpusScores({**rates, **figures}))


def test_the_stem_is_the_name_without_its_last_extension(tmp_path):
    assert gold_stem(tmp_path / "rfc9002.txt") == "rfc9002"
    assert gold_stem(tmp_path / "kepka.pdf.txt") == "kepka.pdf"
    assert gold_stem(tmp_path / "README") == "README"


def test_the_text_layer_of_a_pdf_is_skipped_and_documents_without_gold_are_noted(tmp_path):
    corpus = make_corpus(tmp_path, {"scan.pdf": ("%PDF-1.4", {"terms": []}), "scan.pdf.txt": ("layer", None),
                                    "alone.pdf.txt": ("layer", {"terms": []}), "plain.md": ("text", None)})
    documents, notes = corpus_documents(corpus)
    assert [(d.stem, d.path.name) for d in documents] == [("alone.pdf", "alone.pdf.txt"), ("scan", "scan.pdf")]
    assert notes == [f"skipped plain.md: no gold file {corpus / 'gold' / 'plain.json'}"]
    assert [d.stem for d in corpus_documents(corpus, only="scan")[0]] == ["scan"]
    with pytest.raises(CorpusError, match="nope: no document with gold"):
        corpus_documents(corpus, only="nope")


def test_a_folder_without_docs_and_gold_or_a_malformed_gold_is_refused(tmp_path):
    with pytest.raises(CorpusError, match="not a corpus"):
        corpus_documents(tmp_path)
    corpus = make_corpus(tmp_path / "c", {"a.md": ("text", None)})
    (corpus / "gold" / "a.json").write_text("[1]")
    with pytest.raises(CorpusError, match="a.json: not a corpus gold file"):
        corpus_documents(corpus)


def test_undefined_rates_print_as_a_dash_and_means_are_over_the_documents_where_defined():
    results = [scored("a", term_recall=0.5, formula_recall=None), scored("b", term_recall=1.0, formula_recall=0.25),
               DocumentResult("c", "c.md", None, "boom")]
    assert means(results)["term_recall"] == 0.75 and means(results)["formula_recall"] == 0.25
    assert means(results)["rule_recall"] is None
    assert table_row(results[0]).split()[1:6] == ["0.50", "-", "-", "-", "-"]
    assert table_row(results[2]).split()[1:] == ["FAILED", "boom"]
    assert table_footer(results).splitlines()[0].split()[:6] == ["mean", "of", "2", "scored", "0.75", "-"]


def test_a_fall_beyond_the_tolerance_and_a_document_no_longer_scored_are_regressions():
    baseline = {"documents": {"a": {"metrics": {"rule_recall": 0.5, "formula_recall": None}},
                              "b": {"metrics": {"rule_recall": 0.5}}}}
    current = {"documents": {"a": {"metrics": {"rule_recall": 0.47, "formula_recall": 0.1}}}}
    verdicts = {(c.doc_id, c.metric): c.verdict for c in compare_with_baseline(baseline, current)}
    assert verdicts == {("a", "rule_recall"): "regressed", ("a", "formula_recall"): "new",
                        ("b", "rule_recall"): "missing"}
    assert {c.doc_id for c in compare_with_baseline(baseline, current, tolerance=0.05)
            if c.verdict == "regressed"} == set()
    assert {c.doc_id for c in compare_with_baseline(baseline, current, only="a")} == {"a"}


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """The user's own store and instance, which a corpus run must leave untouched."""
    monkeypatch.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
    monkeypatch.setenv("KNOWLEDGE_DB", str(tmp_path / "user" / "knowledge.duckdb"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "user" / "dagster"))
    return tmp_path / "user"


def eval_corpus(capsys, corpus, results, *args):
    code = main(["eval", "--corpus", str(corpus), "--results-dir", str(results), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_scores_each_document_writes_the_baseline_and_fails_on_a_higher_one(offline, tmp_path, capsys):
    corpus = make_corpus(tmp_path / "corpus", {"queue.md": (QUEUE_DOC, QUEUE_GOLD), "note.txt": (NOTE_DOC, NOTE_GOLD)})
    results = tmp_path / "results"

    code, out, err = eval_corpus(capsys, corpus, results, "--write-baseline", "--work", str(tmp_path / "work"))
    assert code == 0, out + err
    assert "no committed corpus baseline" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.startswith(("queue ", "note "))}
    assert set(rows) == {"queue", "note"} and rows["note"][4] == "-"  # no gold formulas
    baseline = results / "corpus_offline_baseline.json"
    assert f"wrote {baseline}" in out
    assert (tmp_path / "work" / "export" / "queue" / "glossary.json").is_file()
    assert not offline.exists()

    data = read_corpus_results(baseline)
    assert set(data["documents"]) == {"queue", "note"} and data["failed"] == {} and data["backend"] == "offline"
    code, out, err = eval_corpus(capsys, corpus, results)
    assert code == 0 and f"baseline {baseline}" in out and "no regression" in out, out + err

    data["documents"]["queue"]["metrics"]["term_recall"] += 0.1
    raised = tmp_path / "raised.json"
    raised.write_text(json.dumps(data))
    code, out, err = eval_corpus(capsys, corpus, results, "--baseline", str(raised), "--doc-id", "queue")
    assert code == 1
    (line,) = [line for line in out.splitlines() if "REGRESSED" in line]
    assert line.split()[:2] == ["queue", "term_recall"]
    assert "1 regressions beyond the tolerance" in err
    assert eval_corpus(capsys, corpus, results, "--baseline", str(raised), "--doc-id", "queue",
                       "--tolerance", "1")[0] == 0


def test_a_failing_document_is_reported_and_the_others_still_score(offline, tmp_path, capsys):
    corpus = make_corpus(tmp_path / "corpus", {"queue.md": (QUEUE_DOC, QUEUE_GOLD), "empty.md": ("", NOTE_GOLD)})
    results = tmp_path / "results"
    code, out, err = eval_corpus(capsys, corpus, results, "--write", "--write-baseline")
    assert code == 1
    (failed,) = [line for line in out.splitlines() if line.startswith("empty ")]
    assert "FAILED" in failed and "empty file" in failed
    assert any(line.startswith("queue ") and "FAILED" not in line for line in out.splitlines())
    assert "1 of 2 documents failed: empty" in err and "the baseline is not written" in err
    (dated,) = results.glob("corpus_*_offline_*.json")
    assert json.loads(dated.read_text())["failed"].keys() == {"empty"}
    assert not (results / "corpus_offline_baseline.json").exists()


def test_a_result_file_of_another_format_or_scorer_is_refused(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "knowledge-assets-eval/1", "documents": {}}))
    with pytest.raises(CorpusError, match="not a corpus result file"):
        read_corpus_results(path)
    path.write_text(json.dumps({"format": "knowledge-assets-corpus-eval/1", "scoring_version": "0", "documents": {}}))
    with pytest.raises(CorpusError, match="regenerate it with --write-baseline"):
        read_corpus_results(path)
