"""Column-laid and prose definitions of specifications, on text written for these tests: one
convention each, with what must not be read as one."""

from __future__ import annotations

import pytest

from knowledge_assets.candidates.definitions import defining_first, find_definitions
from knowledge_assets.candidates.source import SourceChunk


def found(*texts: str, heading_path: list[str] | None = None) -> list:
    chunks = [SourceChunk(chunk_id=f"D::{n:04d}", text=t, heading_path=heading_path or [])
              for n, t in enumerate(texts)]
    candidates = find_definitions(chunks)
    by_id = {c.chunk_id: c.text for c in chunks}
    for candidate in candidates:
        text = by_id[candidate.chunk_id]
        assert text[candidate.start : candidate.end] == candidate.text
        assert all(text[p.start : p.end] == p.text for p in candidate.parts)
    return candidates


def found_by(cue: str, text: str) -> list:
    return [c for c in found(text) if c.cue == cue]


def entries(*texts: str, heading_path: list[str] | None = None) -> list[tuple[str, str, str]]:
    return [(c.cue, c.part("term").text, c.text) for c in found(*texts, heading_path=heading_path)]


# ---------------------------------------------------------------------------------- hanging


def test_a_hanging_term_list_entry_is_its_whole_paragraph():
    text = (
        "   Flow label:  A tag carried by each packet of a flow.  The tag\n"
        "      stays fixed for the flow's life; routers never rewrite it.\n\n"
        "   Pacing section:  The part of a sender that spaces packets out\n      over time.\n"
    )
    assert entries(text) == [
        ("hanging", "Flow label", "Flow label:  A tag carried by each packet of a flow.  The tag\n"
                                  "      stays fixed for the flow's life; routers never rewrite it."),
        ("hanging", "Pacing section",
         "Pacing section:  The part of a sender that spaces packets out\n      over time."),
    ]


def test_a_constant_entry_ends_before_the_sentence_giving_its_recommended_value():
    text = "   kBurstLimit:  Largest number of packets sent back to back.  The\n      value recommended here is 10.\n"
    assert entries(text) == [("hanging", "kBurstLimit", "kBurstLimit:  Largest number of packets sent back to back.")]


@pytest.mark.parametrize("text", [
    # The lines under the label are not indented deeper: an example dump, not an entry.
    "   Stream: Sender\n   0a41 | Open Window (size=4)\n",
    # A sentence ending in a colon, then an indented code block.
    "   The window then grows as follows:  fast\n      cwnd = cwnd + 1\n",
    "   Note:  the timers below are\n      illustrative only.\n",
])
def test_examples_sentences_and_notes_are_not_hanging_entries(text):
    assert found_by("hanging", text) == []


# ---------------------------------------------------------------------------------- column


def test_a_two_column_glossary_with_the_gap_kept_or_lost_to_one_space():
    text = (
        "Glossary of Symbols \n \n"
        "Nibble      A group of four bits. \n \n"
        "Rt A rotation amount used in round t of the mixing step. \n \n"
        "SWAP n(x) The exchange of the two halves of x, where x is a word \nof n bits. \n \n"
        "q Number of rounds in one block. \n \n"
        "LSB                Least Significant Bit. \n"
    )
    assert [(term, definition) for _, term, definition in entries(text, heading_path=["Glossary of Symbols"])] == [
        ("Nibble", "Nibble      A group of four bits."),
        ("Rt", "Rt A rotation amount used in round t of the mixing step."),
        ("SWAP n(x)", "SWAP n(x) The exchange of the two halves of x, where x is a word \nof n bits."),
        ("q", "q Number of rounds in one block."),
    ]


def test_a_column_entry_is_ranked_as_a_glossarys_own():
    text = "Parameters\n\nSpan   Length of one window in seconds.\n"
    (candidate,) = found(text, heading_path=["Parameters"])
    assert candidate.cue == "column" and defining_first([candidate]) == [candidate]


@pytest.mark.parametrize("text", [
    "Symbols\n\nRound      12      24      36\n\nBlock      64      128      256\n",  # a table of numbers
    "Symbols\n\nx   = y + 1\n",  # a code line
    "Symbols\n\nRFC 9999              Pacing for Fast Networks              June 2020\n",  # a page header
    "Symbols\n\nThe following symbols are used in this section.\n",  # the list's lead-in
    "Symbols\n\nTraffic Shaping Policy limits the rate of each flow.\n",  # a name, its gap lost
])
def test_tables_code_and_page_headers_are_not_column_entries(text):
    assert found(text, heading_path=["Symbols"]) == []


def test_column_entries_are_read_only_under_a_glossary_heading():
    assert found("Operation\n\nNibble      A group of four bits.\n", heading_path=["Operation"]) == []


# ---------------------------------------------------------------------------------- prose


def test_a_code_variable_glossed_in_prose():
    code = "   Budget = (WindowSize * Rate) - SpentTokens\n"
    prose = "   Here SpentTokens is the number of tokens used since the window opened.\n"
    assert entries(code, prose) == [
        ("variable", "SpentTokens", "Here SpentTokens is the number of tokens used since the window opened."),
    ]


def test_an_identifier_no_code_line_holds_is_not_a_glossed_variable():
    assert entries("   SpentTokens is the number of tokens used so far.\n") == []


def test_a_sections_opening_sentence_restating_its_heading():
    text = ("2.4.  Retry Queue Depth\n\n"
            "   The depth of the retry queue is the count of requests\n   awaiting a resend.\n")
    assert entries(text, heading_path=["2.4.  Retry Queue Depth"]) == [
        ("opening", "depth of the retry queue",
         "The depth of the retry queue is the count of requests\n   awaiting a resend."),
    ]


def test_an_opening_sentence_about_something_else_defines_nothing():
    text = "2.4.  Retry Queue Depth\n\n   The sender is the party that keeps the queue.\n"
    assert entries(text, heading_path=["2.4.  Retry Queue Depth"]) == []


def test_genus_and_difference_sentences_and_quoted_terms():
    text = (
        "   Two kinds exist:\n\n   *  A probe frame is a frame sent only to test the path.  It is small.\n\n"
        '"Fast-open mode" is the start of a session without a handshake round.\n'
    )
    assert entries(text) == [
        ("generic", "probe frame", "A probe frame is a frame sent only to test the path."),
        ("quoted", "Fast-open mode", '"Fast-open mode" is the start of a session without a handshake round.'),
    ]


def test_a_genus_sentence_must_open_its_sentence():
    assert entries("Each time a probe frame is a frame late, the timer doubles.\n") == []


def test_appositive_definitions_of_a_new_term():
    text = (
        "   To stay safe, the sender keeps a resume marker, which is the lowest\n"
        "   sequence number it may still retransmit.\n\n"
        "   Every request carries a Session Epoch (Section 2), the count of\n   restarts seen so far.\n"
    )
    assert [(cue, term) for cue, term, _ in entries(text)] == [
        ("appositive", "resume marker"), ("appositive", "Session Epoch"),
    ]
    assert found(text)[0].text.startswith("To stay safe, the sender keeps a resume marker")


@pytest.mark.parametrize("text", [
    "   If the peer sends a Session Epoch, the sender resets its timer.\n",
    "   By running a Probe Server, the operator can test its own link.\n",
    "   The range is the four-digit integer range, which is a value easy to read.\n",
])
def test_a_subordinate_clause_or_a_definite_noun_is_no_apposition(text):
    assert found_by("appositive", text) == []


def test_a_glossary_row_that_refers_to_another_entry_defines_nothing():
    text = ("hash value          See digest.\n\n"
            "digest              The output of a cryptographic hash function.\n")
    assert [(cue, term) for cue, term, _ in entries(text, heading_path=["2.1 Terms and Acronyms"])] == [
        ("column", "digest")]
