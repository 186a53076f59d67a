"""SQL is written only in knowledge_assets/store/ (issue 21, decisions D64 and D69), nothing
outside it imports duckdb, and the counter that says where else SQL is written."""

import ast
from pathlib import Path

import pytest

from tests.support.sql_outside_store import PACKAGE, STORE, sql_outside_store, sql_strings


def test_no_file_outside_the_store_writes_sql():
    found = sql_outside_store()
    assert not found, (
        f"SQL outside knowledge_assets/store/: {dict(found)}; add a named function to a store module and call it "
        "(`python -m tests.support.sql_outside_store` lists every file)"
    )


def _imports_duckdb(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        if any(name == "duckdb" or name.startswith("duckdb.") for name in names):
            return True
    return False


def test_no_module_outside_the_store_imports_duckdb():
    # The engine is the store's business: a second backend (D63) then touches one package.
    importing = [str(path.relative_to(PACKAGE.parent)) for path in sorted(PACKAGE.rglob("*.py"))
                 if STORE not in path.parents and _imports_duckdb(path)]
    assert not importing, f"these modules import duckdb outside knowledge_assets/store/: {importing}"


def test_the_import_check_finds_an_import_of_duckdb_in_either_form(tmp_path):
    plain = _python_file(tmp_path, "plain.py", "import duckdb\n")
    named = _python_file(tmp_path, "named.py", "from duckdb import DuckDBPyConnection\n")
    other = _python_file(tmp_path, "other.py", "import duckdb_helpers\nNAME = 'duckdb'\n")
    assert [_imports_duckdb(path) for path in (plain, named, other)] == [True, True, False]


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
    "a transaction's control statements are SQL, prose that starts with their word is not": (
        "def move(con):\n"
        "    con.execute(\"BEGIN TRANSACTION\")\n"
        "    con.execute('COMMIT')\n"
        "    con.execute(\"ROLLBACK;\")\n"
        "LABEL = \"COMMIT the changes before leaving\"\n",
        [2, 3, 4],
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
