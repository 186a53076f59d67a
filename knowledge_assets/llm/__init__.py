"""LLM layer: client, response cache, usage accounting, prompt loading, offline extractor."""
