"""Terms named by section headings."""

from knowledge_assets.terms.heading_terms import heading_terms
from tests.terms.conftest import chunk


def surfaces(text: str, heading: str) -> tuple[list[str], list[tuple[str, str]]]:
    mentions, aliases = heading_terms(chunk(text, heading_path=[heading]))
    return [m.surface for m in mentions], aliases


def test_heading_joined_by_a_conjunction_names_each_term_without_numbering_or_abbreviation():
    heading = "2.1.11. Breakdown (BD) dan Delay"
    assert surfaces(heading + "\nBreakdown (BD) adalah kondisi", heading) == (["Breakdown", "Delay"], [])


def test_a_translating_parenthesis_is_an_alias_of_the_heading_term():
    heading = "2.2.5. Efisiensi Kerja (Job Efficiency)"
    found, aliases = surfaces(heading + "\nEfisiensi Kerja adalah", heading)
    assert found == ["Job Efficiency", "Efisiensi Kerja"]
    assert aliases == [("Efisiensi Kerja", "Job Efficiency")]


def test_a_chunk_continuing_its_section_names_no_heading_term():
    assert surfaces("PA is the primary availability figure.", "2.1.3. Physical of Availability (PA)") == ([], [])


def test_offsets_of_heading_terms_are_verbatim():
    text = "3.9. Operating Hours and Repair Hours\n\nOperating Hours: the hours"
    mentions, _ = heading_terms(chunk(text, heading_path=["3.9. Operating Hours and Repair Hours"]))
    assert [(m.surface, text[m.start : m.end]) for m in mentions] == [
        ("Operating Hours", "Operating Hours"),
        ("Repair Hours", "Repair Hours"),
    ]
