"""store/redaction.py: what a message may say about a store."""

from knowledge_assets.store.redaction import redact


def test_redaction_hides_url_and_keyword_passwords():
    redacted = redact("postgresql://u:p4ss@h/db and host=h password=p4ss")
    assert redacted == "postgresql://u:***@h/db and host=h password=***"
    assert redact("postgresql://u@h/db") == "postgresql://u@h/db"
