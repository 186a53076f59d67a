"""DuckDB store: the schema, partition-replacing writes, and the document registry."""
