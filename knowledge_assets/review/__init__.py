"""Expert review: append-only decisions, continuity across re-runs, approved-only knowledge."""
