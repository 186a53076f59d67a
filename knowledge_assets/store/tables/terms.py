"""Tables of the terms stage."""

TABLES: dict[str, dict[str, str]] = {}
