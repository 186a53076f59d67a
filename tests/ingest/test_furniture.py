import pytest

from knowledge_assets.ingest.furniture import is_page_furniture


@pytest.mark.parametrize("line", [
    "Widget & Gadget            Standards Track                    [Page 7]",
    "Smith, et al.             Expires 3 March 2031                [Page 12]",
    "RFC 9999                  Widget Transport                   June 2030",
    "Internet-Draft            Widget Transport                   4 June 2030",
    "- 3 -", "                    -12-", "Pasal 8 ...", "BAB III …", "b. bahwa …", "Pasal 4 \x85", "\f",
])
def test_headers_footers_page_numbers_and_catchwords_are_furniture(line):
    assert is_page_furniture(line)


@pytest.mark.parametrize("line", [
    "", "1.  Introduction", "RFC 9999 describes widgets in May 2030.", "Nama pemohon : ..............",
    "The sender then waits for the timer to expire and so on ...", "x = 3 - 2 - 1", "Pasal 8",
])
def test_text_is_not_furniture(line):
    assert not is_page_furniture(line)
