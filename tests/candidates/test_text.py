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


def test_matches_near_an_anchor_are_what_the_whole_pattern_finds():
    import re

    from knowledge_assets.candidates.text import matches_near

    # `SYM per unit`: a symbol, then the anchor word; a match starts within the word before it.
    pattern = re.compile(r"(?P<sym>[A-Z]\w{0,3})\s+per\s+unit\b")
    anchor = re.compile(r"(?<=\s)per\b")

    def word_before(text: str, position: int) -> int:
        while position and text[position - 1].isspace():
            position -= 1
        while position and not text[position - 1].isspace():
            position -= 1
        return position

    for text in [
        "Biaya BU per unit dan CX per unit, lalu per unit saja.",
        "ABCDEFG per unit: the symbol is its last four letters or none.",
        "no anchor here",
        "Q per per unit Q  per\nunit",
    ]:
        expected = [m.span() for m in pattern.finditer(text)]
        assert [m.span() for m in matches_near(pattern, anchor, text, word_before)] == expected
    assert [m.group("sym") for m in matches_near(pattern, anchor, "Biaya BU per unit.", word_before)] == ["BU"]


def test_line_matches_try_each_line_holding_the_mark_once():
    import re

    from knowledge_assets.candidates.text import line_matches

    pattern = re.compile(r"(?m)^[ \t]*(?P<label>\w[\w ]{0,20}?):[ \t]+(?=\w)")
    text = "Tarif: per jam\nno colon here\n  Biaya tetap: dua: tiga\n: empty label\nakhir:\nBatas:x"
    expected = [(m.span(), m.group("label")) for m in pattern.finditer(text)]
    assert [(m.span(), m.group("label")) for m in line_matches(pattern, ":", text)] == expected
    assert [label for _, label in expected] == ["Tarif", "Biaya tetap"]
