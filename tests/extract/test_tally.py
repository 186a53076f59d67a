"""What a stage reports of the entities it writes (extract/tally.py)."""

from knowledge_assets.extract.tally import PREVIEW_ROWS, Tally


def test_a_tally_counts_every_entity_drawn_and_keeps_a_preview_row_of_the_first_few_only():
    tally = Tally(iter(range(100)), lambda n: {"n": n}, even=lambda n: n % 2 == 0, total=lambda n: n)
    assert tally.rows == 0 and tally.preview == []  # nothing drawn yet
    assert list(tally) == list(range(100))
    assert tally.rows == 100 and tally.figures == {"even": 50, "total": 4950}
    assert tally.preview == [{"n": n} for n in range(PREVIEW_ROWS)]
