"""Semantic output review (seed 002): frozen plans, itemwise receipts, conservative reports."""
