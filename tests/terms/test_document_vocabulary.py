"""Which capitals the document uses by choice."""

from knowledge_assets.terms.document_vocabulary import read_vocabulary
from tests.terms.conftest import chunk


def test_a_capital_after_a_lowercase_word_or_an_operator_is_by_choice():
    text = "Delay merupakan bagian dari Working Hours.\nMF = (Jumlah Hauler x Loading Time)"
    known = read_vocabulary([chunk(text)], set())
    assert {"Working", "Jumlah", "Loading"} <= known.capitalised_by_choice
    assert "Delay" not in known.capitalised_by_choice


def test_heading_words_are_no_evidence():
    text = "3.3. Cut-off dan Koreksi Data\nData harian ditutup pada pukul 06.00."
    known = read_vocabulary([chunk(text, heading_path=["3.3. Cut-off dan Koreksi Data"])], set())
    assert "Koreksi" not in known.capitalised_by_choice
    assert not known.may_open_term("Koreksi", at_sentence_start=True)
    assert known.may_open_term("Koreksi", at_sentence_start=False)
    assert known.may_open_term("ECA", at_sentence_start=True)
