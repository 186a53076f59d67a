"""Counting every occurrence of the candidate surfaces."""

import random

from knowledge_assets.terms.mentions import Mention, find_occurrences, in_reading_order
from tests.terms.conftest import chunk


def test_words_match_up_to_case_and_plural_and_acronyms_match_exactly():
    piece = chunk("Delay dicatat. Delays and a delay. PA naik, pa bukan PA-nya; MA turun.")
    seeds = [Mention.at(piece, 0, 5, "defined"), Mention.at(piece, 35, 37, "acronym")]
    found = find_occurrences([piece], seeds)
    assert [(m.surface, m.kind) for m in found] == [
        ("Delay", "defined"),
        ("Delays", "occurrence"),
        ("delay", "occurrence"),
        ("PA", "acronym"),
    ]


def test_a_candidates_kind_names_its_own_chunks_span_only():
    first, second = chunk("PA naik. Delay dicatat.", seq=0), chunk("PA turun. Delay lagi.", seq=1)
    seeds = [Mention.at(first, 0, 2, "short_form"), Mention.at(first, 0, 2, "acronym"),
             Mention.at(second, 10, 15, "defined"), Mention.at(second, 10, 15, "phrase")]
    found = find_occurrences([first, second], seeds)
    assert [(m.chunk_id, m.surface, m.kind) for m in found] == [
        (first.chunk_id, "PA", "short_form"),
        (first.chunk_id, "Delay", "occurrence"),
        (second.chunk_id, "PA", "occurrence"),
        (second.chunk_id, "Delay", "defined"),
    ]


def test_the_longest_surface_wins_and_occurrences_never_overlap():
    piece = chunk("Breakdown Hours termasuk Breakdown. Scheduled Breakdown Hours juga.")
    seeds = [Mention.at(piece, 0, 15, "phrase"), Mention.at(piece, 25, 34, "defined")]
    found = find_occurrences([piece], seeds)
    assert [m.surface for m in found] == ["Breakdown Hours", "Breakdown", "Breakdown Hours"]
    assert all(a.end <= b.start for a, b in zip(found, found[1:]))


def test_a_known_surface_is_found_across_one_line_break_but_not_across_a_blank_line():
    piece = chunk("Equipment Capacity Analysis (ECA).\nSTANDARD Equipment\nCapacity Analysis\n\n"
                  "Equipment\n\nCapacity Analysis")
    found = find_occurrences([piece], [Mention.at(piece, 0, 27, "long_form")])
    assert [m.surface for m in found] == ["Equipment Capacity Analysis", "Equipment\nCapacity Analysis"]


def test_every_surface_is_the_verbatim_chunk_text():
    piece = chunk("Physical of Availability (PA) dan Physical  of\nAvailability")
    for m in find_occurrences([piece], [Mention.at(piece, 0, 24, "long_form")]):
        assert piece.text[m.start : m.end] == m.surface


def test_reading_order_is_the_sort_by_chunk_place_then_start_ties_kept_in_the_order_given():
    order = {"c-late": 2, "c-early": 0, "c-mid": 1}
    mentions = [Mention(chunk_id, start, start + 3, f"w{n}", "occurrence")
                for n, (chunk_id, start) in enumerate((c, s) for c in order for s in (40, 7, 7, 0, 19))]
    random.Random(31).shuffle(mentions)
    by_key = sorted(mentions, key=lambda m: (order[m.chunk_id], m.start))
    assert in_reading_order(mentions, order) == by_key
    assert [(m.chunk_id, m.start) for m in by_key[:5]] == [("c-early", 0), ("c-early", 7), ("c-early", 7),
                                                          ("c-early", 19), ("c-early", 40)]


def test_mentions_at_one_offset_share_one_int_object():
    text = "x" * 1000 + " Delay dicatat. Delay lagi."
    first, second = chunk(text, seq=0), chunk(text, seq=1)
    starts = [Mention.at(piece, int("1001"), int("1006"), "occurrence") for piece in (first, second)]
    assert starts[0].start is starts[1].start and starts[0].end is starts[1].end
    assert starts[0].surface == "Delay"
