from knowledge_assets.extract.guard import guard

SOURCES = ["2.1.2. Quantity (Qty)\nAdalah jumlah equipment/unit yang digunakan.", "Qty dipakai di 2.1.1."]


def test_a_fabricated_definition_is_nulled_and_logged_not_repaired():
    kept, rejected = guard(
        "glossary", "Qty",
        {"definition": "Quantity is the number of units.", "full_name": "Quantity", "source_wording": None},
        SOURCES,
    )
    assert kept == {"definition": None, "full_name": "Quantity", "source_wording": None}
    assert [(r.field, r.offending_value, r.branch) for r in rejected] == [
        ("definition", "Quantity is the number of units.", "glossary")]
    assert rejected[0].reason == "definition is not a verbatim transcription of the source"


def test_a_fabricated_purpose_is_refused():
    kept, rejected = guard("summary", "doc", {"title": "2.1.2. Quantity (Qty)", "purpose_verbatim": "This document explains Qty."}, SOURCES)
    assert kept["title"] == "2.1.2. Quantity (Qty)" and kept["purpose_verbatim"] is None
    assert rejected[0].reason == "purpose_verbatim is not a verbatim transcription of the source"


def test_a_quote_stitched_across_two_chunks_is_refused():
    _, rejected = guard("rule", "r", {"statement": "yang digunakan. Qty dipakai"}, SOURCES)
    assert [r.field for r in rejected] == ["statement"]
