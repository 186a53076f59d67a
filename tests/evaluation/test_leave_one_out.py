"""The leave-one-document-out evaluation (`evaluation/leave_one_out.py`): one scorer per
document trained on the others only, the scorer setting held for a block and restored, and
`eval --corpus --leave-one-out` and `eval --corpus --train-scorer` on a small corpus of three
documents written here (run for real, offline, in a private store and instance)."""

from __future__ import annotations

import json
import os

import pytest

from knowledge_assets.candidates.definition_scorer import read_scorer
from knowledge_assets.evaluation.corpus import corpus_documents, table_header
from knowledge_assets.evaluation.leave_one_out import corpus_samples, fold_scorers, scorer_in_use
from knowledge_assets.settings import DEFINITION_SCORER_SETTING
from tests.evaluation.test_corpus import eval_corpus, make_corpus


def document(title: str, *sentences: str) -> str:
    return f"# {title}\n\n" + "\n\n".join(sentences) + "\n"


def gold(name: str, *terms: tuple[str, str]) -> dict:
    return {"doc": name, "language": "en", "formulas": [], "rules": [],
            "terms": [{"canonical": term, "abbreviation": None, "definition_verbatim": definition}
                      for term, definition in terms]}


TORQUE = "A torque wrench measures the twisting force applied to a fastener."
PROBE = "The Probe Timeout is the period a sender waits before it probes."
RAIN = "A rain gauge measures the rain that falls on the station."
# Each document: one defining sentence its gold gives, one sentence about a gold term that
# its gold defines otherwise; every fold has both labels to learn from.
THREE_DOCUMENTS = {
    "tools.md": (document("Workshop tools", TORQUE, "The bench vise is heavy and sits in the corner."),
                 gold("tools.md", ("torque wrench", TORQUE),
                      ("bench vise", "A bench vise is a clamp fixed to a bench."))),
    "network.md": (document("Network timers", PROBE, "The idle timer is reset often in practice."),
                   gold("network.md", ("Probe Timeout", PROBE),
                        ("idle timer", "An idle timer closes a connection that carried no packet for a while."))),
    "weather.md": (document("Weather station", RAIN, "The barometer is on the wall of the hut."),
                   gold("weather.md", ("rain gauge", RAIN),
                        ("barometer", "A barometer is an instrument that measures air pressure."))),
}
STEMS = ("network", "tools", "weather")


@pytest.fixture
def corpus(tmp_path):
    return make_corpus(tmp_path / "corpus", THREE_DOCUMENTS)


def test_each_documents_scorer_is_trained_on_the_other_documents_and_not_on_itself(corpus, tmp_path):
    documents, _ = corpus_documents(corpus)
    samples = corpus_samples(documents)
    assert all({s.label for s in samples[stem]} == {0, 1} for stem in STEMS)

    folds = fold_scorers(documents, corpus, tmp_path / "scorers")

    assert folds == {stem: tmp_path / "scorers" / f"{stem}.json" for stem in STEMS}
    digests = set()
    for stem, path in folds.items():
        written = json.loads(path.read_text(encoding="utf-8"))
        others = sorted(set(STEMS) - {stem})
        assert written["trained_on"] == others
        assert written["samples"] == sum(len(samples[other]) for other in others)
        digests.add(written["corpus_digest"])
        read_scorer(path)
    assert len(digests) == len(STEMS)


def test_the_scorer_setting_is_held_for_the_block_and_removed_after_when_it_was_unset(monkeypatch, tmp_path):
    monkeypatch.delenv(DEFINITION_SCORER_SETTING, raising=False)
    with scorer_in_use(tmp_path / "fold.json"):
        assert os.environ[DEFINITION_SCORER_SETTING] == str(tmp_path / "fold.json")
    assert DEFINITION_SCORER_SETTING not in os.environ


def test_the_scorer_setting_is_restored_after_the_block_even_when_it_raises(monkeypatch, tmp_path):
    monkeypatch.setenv(DEFINITION_SCORER_SETTING, "before.json")
    with pytest.raises(RuntimeError, match="boom"), scorer_in_use(tmp_path / "fold.json"):
        assert os.environ[DEFINITION_SCORER_SETTING] == str(tmp_path / "fold.json")
        raise RuntimeError("boom")
    assert os.environ[DEFINITION_SCORER_SETTING] == "before.json"

    monkeypatch.delenv(DEFINITION_SCORER_SETTING)
    with pytest.raises(RuntimeError, match="boom"), scorer_in_use(tmp_path / "fold.json"):
        raise RuntimeError("boom")
    assert DEFINITION_SCORER_SETTING not in os.environ


def test_no_scorer_leaves_the_setting_as_it_was(monkeypatch):
    monkeypatch.setenv(DEFINITION_SCORER_SETTING, "before.json")
    with scorer_in_use(None):
        assert os.environ[DEFINITION_SCORER_SETTING] == "before.json"
    assert os.environ[DEFINITION_SCORER_SETTING] == "before.json"


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """The user's own store and instance, which a corpus run must leave untouched."""
    monkeypatch.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
    monkeypatch.setenv("KNOWLEDGE_DB", str(tmp_path / "user" / "knowledge.duckdb"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "user" / "dagster"))
    monkeypatch.delenv(DEFINITION_SCORER_SETTING, raising=False)
    return tmp_path / "user"


def test_the_leave_one_out_command_writes_one_scorer_a_document_and_scores_them_all(offline, corpus, tmp_path, capsys):
    work = tmp_path / "work"
    code, out, err = eval_corpus(capsys, corpus, tmp_path / "results", "--leave-one-out", "--work", str(work))

    assert code == 0, out + err  # every document scored, no baseline in an empty results directory
    assert "Traceback" not in out + err
    assert f"trained on the other 2 ({work / 'scorers'})" in out
    assert any(line.startswith("leave-one-document-out") for line in out.splitlines())
    rows = {line.split()[0]: line for line in out.splitlines() if line.split()[:1] and line.split()[0] in STEMS}
    assert set(rows) == set(STEMS) and not any("FAILED" in row for row in rows.values())
    for stem in STEMS:
        assert json.loads((work / "scorers" / f"{stem}.json").read_text())["trained_on"] == sorted(set(STEMS) - {stem})
    assert DEFINITION_SCORER_SETTING not in os.environ
    assert not offline.exists()


def test_train_scorer_writes_the_scorer_of_the_whole_corpus_to_the_file_named(offline, corpus, tmp_path, capsys):
    scorer_file = tmp_path / "trained" / "scorer.json"
    code, out, err = eval_corpus(capsys, corpus, tmp_path / "results", "--train-scorer",
                                 "--scorer-file", str(scorer_file))

    assert code == 0, out + err
    assert f"wrote {scorer_file}: trained on 3 documents, 6 samples" in out
    assert json.loads(scorer_file.read_text())["trained_on"] == list(STEMS)
    read_scorer(scorer_file)
    assert table_header() not in out and not offline.exists()  # no pipeline run


def test_train_scorer_on_a_corpus_with_nothing_to_learn_fails_in_one_line(offline, tmp_path, capsys):
    corpus = make_corpus(tmp_path / "corpus", {"tools.md": (document("Tools", TORQUE), gold("tools.md"))})
    scorer_file = tmp_path / "scorer.json"
    code, out, err = eval_corpus(capsys, corpus, tmp_path / "results", "--train-scorer",
                                 "--scorer-file", str(scorer_file))

    assert code == 1
    assert err.startswith("error: ") and "nothing to learn" in err and "Traceback" not in err
    assert not scorer_file.exists()
