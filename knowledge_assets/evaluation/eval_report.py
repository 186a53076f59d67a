"""Scores and comparisons as the text `knowledge-assets eval` prints."""

from __future__ import annotations

from knowledge_assets.evaluation.result_files import MetricChange
from knowledge_assets.evaluation.scores import METRICS, DocumentScores, KillLine, RunInfo


def _rate(value: float | None) -> str:
    if value is None:
        return "n/a"
    return str(value) if isinstance(value, int) else f"{value:.3f}"


def render_scores(scores: DocumentScores, run: RunInfo, verdicts: list[KillLine]) -> str:
    m, n = scores.metrics, scores.counts
    lines = [
        f"{scores.doc_id}  backend={run.backend} model={run.model} prompts={run.prompt_hash}",
        *(
            f"  {v.metric:<28} {_rate(v.value):>7}  kill line {v.threshold:.2f}  {'PASS' if v.passed else 'FAIL'}"
            for v in verdicts
        ),
        f"  {'e2_compression':<28} {_rate(m['e2_compression']):>7}",
        f"  definitions     precision {_rate(m['definition_precision'])}  recall {_rate(m['definition_recall'])}"
        f"  ({n.get('definitions_found', 0)} found, {n.get('definitions_correct', 0)} correct,"
        f" {n.get('definitions_partial', 0)} partial; {n.get('definitions_gold', 0)} in gold)",
        f"  glossary        {n.get('glossary_entries', 0)} entries: {n.get('definitions_found', 0)} with a definition,"
        f" {n.get('abstentions', 0)} abstained ({n.get('abstentions_where_gold_defines', 0)} where gold has one),"
        f" {n.get('escalated', 0)} escalated",
        f"  formulas        {n.get('formulas_found', 0)} found, {n.get('formulas_gold_found', 0)} of"
        f" {n.get('formulas_gold', 0)} gold  recall {_rate(m['formula_recall'])}"
        f"  precision {_rate(m['formula_precision'])}",
        f"  rules           {n.get('rules_found', 0)} found, {n.get('rules_gold_found', 0)} of"
        f" {n.get('rules_gold', 0)} gold  recall {_rate(m['rule_recall'])}  precision {_rate(m['rule_precision'])}",
        f"  rejected fields {n.get('rejected_fields', 0)}  ("
        + ", ".join(f"{k.removeprefix('rejected_')} {v}" for k, v in n.items()
                    if k.startswith("rejected_") and k != "rejected_fields")
        + ")",
        f"  E3 by field     {n.get('e3_correct', 0)} of {n.get('e3_filled', 0)} filled fields correct: "
        + ", ".join(f"{name} {t.correct}/{t.filled}" for name, t in scores.fields.items()),
    ]
    return "\n".join(lines)


def render_comparison(changes: list[MetricChange], tolerance: float) -> str:
    """Every metric, and the counts that changed."""
    lines = [f"comparison with the baseline (tolerance {tolerance:g} absolute on higher-is-better rates)"]
    unchanged_counts = 0
    for change in changes:
        if change.metric not in METRICS and change.baseline == change.current:
            unchanged_counts += 1
            continue
        delta = "" if change.delta is None else f"{change.delta:+.3f}"
        lines.append(
            f"  {change.doc_id}  {change.metric:<32} {_rate(change.baseline):>7} -> {_rate(change.current):>7}"
            f"  {delta:>7}  {change.verdict.upper() if change.verdict in ('regressed', 'missing') else change.verdict}"
        )
    lines.append(f"  {unchanged_counts} counts unchanged")
    return "\n".join(lines)
