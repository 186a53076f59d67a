"""Semantic output review (docs/semantic_review.md): frozen plans, itemwise receipts,
conservative reports."""
