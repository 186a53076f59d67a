"""How the scorer's settings were chosen: each corpus document's defining-sentence candidates
scored by a scorer trained on the other documents only, counted as kept right, kept wrong and
gold definitions available among candidates that name a gold term. Faster than
`eval --corpus --leave-one-out` (no pipeline run), so settings can be compared side by side:

    python -m knowledge_assets.evaluation.scorer_choice ../shared/corpus [--regularisation C] [--target P]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from knowledge_assets.evaluation import scorer_training
from knowledge_assets.evaluation.corpus import corpus_documents
from knowledge_assets.evaluation.leave_one_out import corpus_samples
from knowledge_assets.evaluation.scorer_training import Sample


def held_out_counts(by_document: dict[str, list[Sample]], target: float) -> dict[str, tuple[int, int, int]]:
    """Per document: (gold definitions among its candidates, kept right, kept wrong)."""
    counts = {}
    for stem in sorted(by_document):
        scorer = scorer_training.train({k: v for k, v in by_document.items() if k != stem}, target)
        judged = [s for s in by_document[stem] if s.weight >= 1.0]
        kept = [s for s in judged if scorer.probability(s.features) >= scorer.threshold]
        counts[stem] = (sum(s.label for s in judged), sum(s.label for s in kept), sum(1 - s.label for s in kept))
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--regularisation", type=float, default=scorer_training.REGULARISATION)
    parser.add_argument("--target", type=float, default=scorer_training.TARGET_PRECISION)
    args = parser.parse_args(argv)
    documents, _ = corpus_documents(args.corpus)
    scorer_training.REGULARISATION = args.regularisation
    counts = held_out_counts(corpus_samples(documents), args.target)
    for stem, (gold, right, wrong) in counts.items():
        print(f"{stem:42} gold {gold:3}  kept right {right:3}  kept wrong {wrong:3}")
    gold, right, wrong = (sum(column) for column in zip(*counts.values()))
    print(f"all: gold {gold}, kept right {right}, kept wrong {wrong}: "
          f"recall {right / max(gold, 1):.3f}, precision {right / max(right + wrong, 1):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
