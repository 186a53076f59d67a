"""Ingest: document identity, the parsers (PDF, Markdown, text, MinerU) and section-aware chunking."""
