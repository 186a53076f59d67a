"""Tables of the evaluation stage."""

TABLES: dict[str, dict[str, str]] = {}
