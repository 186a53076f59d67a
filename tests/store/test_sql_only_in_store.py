"""SQL is written only in knowledge_assets/store/ (issue 21, decision D64), and the counter
that says where else it is written."""

from pathlib import Path

import pytest

from tests.support.sql_outside_store import sql_outside_store, sql_strings

# The files whose SQL has still to move into store/, with the SQL strings each holds today.
# The list only shrinks: lower a count when SQL moves out, drop a file when it reaches 0.
# The seam is done when the list is empty (issue 21); nothing may be added to it.
STILL_TO_MOVE = {
    "knowledge_assets/review/documents.py": 7,
    "knowledge_assets/review/entities.py": 3,
    "knowledge_assets/review/web/source.py": 3,
    "knowledge_assets/review/web/app.py": 1,
    "knowledge_assets/review/approved.py": 1,
    "knowledge_assets/review/decisions.py": 1,
    "knowledge_assets/review/worklist.py": 1,
    "knowledge_assets/export.py": 1,
    "knowledge_assets/ingest/revisions.py": 1,
    "knowledge_assets/defs/assets/metadata.py": 1,
}


def test_no_file_outside_the_store_writes_more_sql_than_the_list_of_files_still_to_move_allows():
    over = {
        path: f"{count} SQL strings, allowed {STILL_TO_MOVE.get(path, 0)}"
        for path, count in sql_outside_store().items()
        if count > STILL_TO_MOVE.get(path, 0)
    }
    assert not over, (
        f"SQL outside knowledge_assets/store/: {over}; add a named function to a store module and call it "
        "(`python -m tests.support.sql_outside_store` lists every file)"
    )


def test_the_list_of_files_still_to_move_holds_each_files_count_exactly():
    # A count left above what its file holds would let SQL creep back up to it unseen.
    found = sql_outside_store()
    loose = {path: f"allowed {allowed}, holds {found.get(path, 0)}"
             for path, allowed in STILL_TO_MOVE.items() if found.get(path, 0) < allowed}
    assert not loose, f"lower these counts in STILL_TO_MOVE (drop a file at 0): {loose}"


def _python_file(directory: Path, name: str, source: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source, encoding="utf-8")
    return path


# (source, the lines the counter reports), on code we wrote.
COUNTER_CASES = {
    "a SQL literal is found on its line": (
        "def books(con, shelf):\n"
        "    return con.execute(\n"
        "        \"SELECT title FROM books WHERE shelf = ?\", [shelf])\n",
        [3],
    ),
    "adjacent literals are one string, prose and a bare keyword are not SQL": (
        "QUERY = (\"SELECT title FROM books \"\n"
        "         \"WHERE shelf = ?\")\n"
        "LABEL = \"Select a shelf to see its books\"\n"
        "WORD = \"SELECT\"\n",
        [1],
    ),
    "a docstring that mentions SELECT is not SQL": (
        "\"\"\"SELECT the books of a shelf, through the store.\"\"\"\n"
        "\n"
        "class Shelf:\n"
        "    \"\"\"DELETE FROM is never written here.\"\"\"\n"
        "\n"
        "    def books(self):\n"
        "        \"\"\"SELECT title FROM books, in the store module.\"\"\"\n"
        "        return []\n",
        [],
    ),
    "an f-string is found by its leading text": (
        "def empty(con, table):\n"
        "    con.execute(f'DELETE FROM \"{table}\" WHERE shelf = ?', [1])\n",
        [2],
    ),
}


@pytest.mark.parametrize(("source", "lines"), COUNTER_CASES.values(), ids=COUNTER_CASES.keys())
def test_the_counter_finds_sql_strings_and_leaves_out_prose_and_docstrings(tmp_path, source, lines):
    assert sql_strings(_python_file(tmp_path, "shelves.py", source)) == lines


def test_sql_inside_the_store_folder_is_not_counted(tmp_path):
    package = tmp_path / "library"
    _python_file(package, "store/books.py", "BOOKS = \"SELECT title FROM books\"\n")
    _python_file(package, "shelves.py", "ONE = \"SELECT 1 FROM books\"\nTWO = \"UPDATE books SET shelf = 2\"\n")
    assert sql_outside_store(package, package / "store") == {"library/shelves.py": 2}
