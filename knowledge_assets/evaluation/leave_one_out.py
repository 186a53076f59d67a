"""The generalisation figure: `eval --corpus DIR --leave-one-out` scores each document with the
defining-sentence scorer trained on the other documents only, so what it measures is how the
learned part of the extractor does on a document it never saw, not how well it remembers.

One fold a document: its scorer is trained on the samples of every other document of the
corpus (`scorer_training`), written to WORK/scorers/<stem>.json, and the document is run
with it (`KNOWLEDGE_DEFINITION_SCORER`). The hand-written finders are the same in every fold:
they were written with the corpus in view, which is why each convention must fire on gold of
at least three documents (the conventions table) before it counts as general.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from knowledge_assets.evaluation.scorer_training import Sample, corpus_digest, document_samples, train, write_scorer
from knowledge_assets.settings import DEFINITION_SCORER_SETTING


def corpus_samples(documents: Sequence) -> dict[str, list[Sample]]:
    """Each corpus document's labelled samples, by stem."""
    return {d.stem: document_samples(d.path, d.stem, d.gold) for d in documents}


def training_files(documents: Sequence, corpus: Path) -> list[Path]:
    return [*(d.path for d in documents), *(corpus / "gold" / f"{d.stem}.json" for d in documents)]


def train_corpus_scorer(documents: Sequence, corpus: Path, path: Path) -> int:
    """The scorer of every document of the corpus, written to `path`; its number of samples."""
    samples = corpus_samples(documents)
    count = sum(map(len, samples.values()))
    write_scorer(path, train(samples), sorted(samples), corpus_digest(training_files(documents, corpus)), count)
    return count


def fold_scorers(documents: Sequence, corpus: Path, directory: Path) -> dict[str, Path]:
    """Per document stem, the scorer trained without it, written under `directory`."""
    samples = corpus_samples(documents)
    folds = {}
    for document in documents:
        others = {stem: rows for stem, rows in samples.items() if stem != document.stem}
        path = directory / f"{document.stem}.json"
        kept = [d for d in documents if d.stem != document.stem]
        write_scorer(path, train(others), sorted(others), corpus_digest(training_files(kept, corpus)),
                     sum(map(len, others.values())))
        folds[document.stem] = path
    return folds


@contextmanager
def scorer_in_use(path: Path | None) -> Iterator[None]:
    """`KNOWLEDGE_DEFINITION_SCORER` set to `path` while the block runs (unchanged for None)."""
    if path is None:
        yield
        return
    before = os.environ.get(DEFINITION_SCORER_SETTING)
    os.environ[DEFINITION_SCORER_SETTING] = str(path)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(DEFINITION_SCORER_SETTING, None)
        else:
            os.environ[DEFINITION_SCORER_SETTING] = before
