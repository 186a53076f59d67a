"""The general recogniser of defining sentences on text written for these tests: each cue, in
English and Indonesian, the sentence it takes whole, and the features the scorer reads."""

from __future__ import annotations

import pytest

from knowledge_assets.candidates.conventions import REGISTRY
from knowledge_assets.candidates.defining_sentences import (
    APPOSITION,
    COLUMN,
    CUES,
    LABEL,
    MARKED,
    NAMING,
    SUBJECT,
    Context,
    entries,
    find_in_sentence,
    introduces_its_term,
    is_defining_heading,
    sentences,
)


def found(sentence: str, defining_section: bool = False) -> dict[str, tuple[str, dict[str, str], dict]]:
    """cue -> (candidate text, its parts, its features), each part a verbatim slice."""
    out = {}
    for f in find_in_sentence("D::0001", sentence, 0, len(sentence), Context(defining_section)):
        candidate = f.candidate
        assert sentence[candidate.start : candidate.end] == candidate.text
        assert all(sentence[p.start : p.end] == p.text for p in candidate.parts)
        out[candidate.cue] = (candidate.text, {p.role: p.text for p in candidate.parts}, f.features)
    return out


@pytest.mark.parametrize(("sentence", "cue", "term"), [
    ("The Probe Timeout is the period a sender waits before it probes.", SUBJECT, "Probe Timeout"),
    ("Round-Trip Time (RTT) is the time from sending to acknowledgement.", SUBJECT, "Round-Trip Time"),
    ("A torque wrench measures the twisting force applied to a fastener.", SUBJECT, "torque wrench"),
    ("Lampu Rotari adalah lampu isyarat yang berputar di atas kabin.", SUBJECT, "Lampu Rotari"),
    ("C(i,t) adalah konsentrasi pada waktu t.", SUBJECT, "C(i,t)"),
    ("A counter that only grows is known as a monotonic counter.", NAMING, "monotonic counter"),
    ("Each reading goes into a bucket called _bin_, where it is counted.", NAMING, "bin"),
    ("The engine keeps a clock that we call the \"service clock\".", NAMING, "service clock"),
    ("Alat itu disebut dengan \"penakar hujan\".", NAMING, "penakar hujan"),
    ("This \"queue depth\" measures how many jobs wait.", MARKED, "queue depth"),
    ("hold.cnt:   Number of held packets in the queue.", LABEL, "hold.cnt"),
    ("gauge                A dial that shows a pressure.", COLUMN, "gauge"),
    ("Debit rerata tahunan, Qa, pada suatu titik adalah sebagai berikut:", APPOSITION, "Debit rerata tahunan"),
])
def test_each_cue_finds_its_term_and_takes_the_whole_sentence(sentence, cue, term):
    by_cue = found(sentence)
    assert cue in by_cue, by_cue.keys()
    text, parts, _ = by_cue[cue]
    assert parts["term"] == term and text == sentence and parts["definition"] == sentence


def test_a_short_form_in_parentheses_and_an_apposed_symbol_are_the_term_s_short_names():
    _, parts, _ = found("Round-Trip Time (RTT) is the time from sending to acknowledgement.")[SUBJECT]
    assert (parts["abbreviation"], parts["expansion"]) == ("RTT", "Round-Trip Time")
    _, parts, _ = found("Debit rerata tahunan, Qa, pada suatu titik adalah sebagai berikut:")[APPOSITION]
    assert (parts["abbreviation"], parts["expansion"]) == ("Qa", "Debit rerata tahunan")
    _, parts, _ = found("Round-Trip Time (in ms) is long.")[SUBJECT]
    assert "abbreviation" not in parts  # a unit in parentheses is no short form


def test_a_sentence_without_a_defining_predicate_or_a_named_term_gives_nothing():
    assert found("The sender waits for the acknowledgement before it sends again.") == {}
    assert found("Pekerja harus meninggalkan daerah kerja.") == {}
    assert found("This is the value the sender keeps.") == {}  # a pronoun names no term
    assert found("These words represent the first bits.") == {}  # nor does an anaphoric phrase
    assert found("and newest lost packets: 8 - 1 = 7.") == {}  # a name opens with no function word
    assert found("Jenis Tarif adalah sebagai berikut:") == {}  # an announced list defines nothing
    assert found("Swell Factor is not applied to coal.") == {}  # nor a negated predicate
    assert found("Contoh perhitungan: sebuah fleet dengan 3 unit.") == {}  # nor a discourse label
    assert found("MF kurang dari 1 berarti unit loading menunggu.") == {}  # nor a comparison
    assert found("Material lunak: 90% sampai 100%;") == {}  # nor a label's value
    assert found("Standby cuaca: hujan, jalan licin, kabut, dan debu tebal;") == {}  # nor its members
    assert LABEL in found("Dosis Ekivalen : hasil kali antara dosis serap, faktor kualitas, dan faktor lain.")
    assert SUBJECT in found('This "queue depth" measures how many jobs wait.')


def test_the_features_say_what_the_scorer_weighs():
    _, _, features = found("The sender is a host that sends.")[SUBJECT]
    assert "language=en" in features and "genus_follows" in features
    _, _, features = found("A torque wrench is a tool that measures twisting force.", defining_section=True)[SUBJECT]
    assert {"genus_follows", "defining_section", "determiner=a", "predicate=is", "ends_full_stop"} <= set(features)
    assert "determiner=the" not in features
    _, _, features = found("Lampu Rotari adalah lampu isyarat yang berputar.")[SUBJECT]
    assert "language=id" in features and "term_capitalised" in features
    assert all(value == 1.0 for value in features.values())


def test_a_sentence_runs_past_abbreviations_and_a_full_stop_before_lowercase():
    text = ("Heading\nA gauge is a tool, e.g. a dial, used on site. It reads No. 4 and so on.\n\n"
            "- Next item is here;\nThe end.")
    bounds = list(sentences(text, len("Heading")))
    assert [(text[s:e], opens) for s, e, opens in bounds] == [
        ("A gauge is a tool, e.g. a dial, used on site.", True), ("It reads No. 4 and so on.", False),
        ("- Next item is here;", True), ("The end.", False)]


def test_a_glossary_entry_s_definition_runs_over_its_later_sentences_to_the_next_entry():
    text = ("bit                  A binary digit. Shown in a fixed font.\n"
            "byte                 A sequence of eight bits.\n"
            "hold.cnt:   Number of held packets. Never negative.\nNext sentence of prose.")
    bounds = list(sentences(text))
    assert [opens for _, _, opens in bounds] == [True, False, True, True, False, False]
    ends = entries(bounds)
    definitions = {}
    for (start, end, opens), entry_end in zip(bounds, ends):
        for f in find_in_sentence("D::0001", text, start, end, Context(), opens, entry_end):
            definitions[f.candidate.part("term").text] = f.candidate.part("definition").text
    assert definitions["bit"] == "bit                  A binary digit. Shown in a fixed font."
    assert definitions["byte"] == "byte                 A sequence of eight bits."
    assert definitions["hold.cnt"] == "hold.cnt:   Number of held packets. Never negative.\nNext sentence of prose."


def test_a_defining_heading_is_a_whole_word_of_a_glossary_heading():
    assert is_defining_heading(["2 Terms and Definitions"]) and is_defining_heading(["BAB I", "KETENTUAN UMUM"])
    assert not is_defining_heading(["Determination of terminals"])


@pytest.mark.parametrize("cue", CUES)
def test_every_cue_is_a_registered_convention(cue):
    assert f"definition/{cue}" in REGISTRY


def test_only_a_term_the_document_marks_is_introduced_by_its_sentence():
    def introduced(sentence: str, cue: str) -> bool:
        (f,) = [f for f in find_in_sentence("D::0001", sentence, 0, len(sentence)) if f.candidate.cue == cue]
        return introduces_its_term(f.candidate, sentence)

    assert introduced("Each reading goes into a bucket called _bin_, where it is counted.", NAMING)
    assert introduced('This "queue depth" measures how many jobs wait.', SUBJECT)
    assert not introduced("A counter that only grows is known as a monotonic counter.", NAMING)
    assert not introduced("hold.cnt:   Number of held packets in the queue.", LABEL)
