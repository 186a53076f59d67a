"""Ingest: document identity, the parsers (PDF, Markdown, reStructuredText, text, MinerU) and section-aware chunking."""
