"""Lines and sentences as offsets into the text they were cut from (text written for this test)."""

from knowledge_assets.candidates.text import lines, sentences

TEXT = ("The pump runs daily. It stops at night when the\ntank is full.\n1. Scope of this note\n"
        "Q = A x v\n\nA closing remark")


def test_lines_are_the_non_empty_lines_as_offsets():
    assert [TEXT[a:b] for a, b in lines(TEXT)] == [
        "The pump runs daily. It stops at night when the", "tank is full.", "1. Scope of this note", "Q = A x v",
        "A closing remark"]


def test_a_sentence_runs_over_a_line_break_but_a_numbered_heading_and_an_equation_stand_alone():
    assert [TEXT[a:b] for a, b in sentences(TEXT)] == [
        "The pump runs daily.", "It stops at night when the\ntank is full.", "1. Scope of this note", "Q = A x v",
        "A closing remark"]
