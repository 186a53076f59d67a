"""Tables of the review stage."""

TABLES: dict[str, dict[str, str]] = {}
