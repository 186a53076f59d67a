"""Tables of the llm stage."""

TABLES: dict[str, dict[str, str]] = {}
