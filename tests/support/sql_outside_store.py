"""Where SQL is written outside the store package: the measure of the store seam (issue 21).

A SQL string is a string literal (plain or f-string, adjacent literals joined as Python joins
them) whose text starts with an upper-case SQL statement keyword followed by more text, or is a
transaction's control statement whole (`BEGIN TRANSACTION`, `COMMIT`, `ROLLBACK`); docstrings
are not code and are left out. The seam is done: the count outside knowledge_assets/store/ is 0,
and tests/store/test_sql_only_in_store.py keeps it there. Run it as a script to print the count
and the files:

    python -m tests.support.sql_outside_store
"""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PACKAGE = PROJECT_ROOT / "knowledge_assets"
STORE = PACKAGE / "store"
# Not the knowledge store: Dagster's own SQLite instance storage, whose one statement is the
# pragma it commits under (docs/decisions.md D72). The count is of the knowledge store's SQL.
DAGSTER_INSTANCE_STORAGE = PACKAGE / "instance" / "storage.py"

# Upper case only: prose such as "Select a document" is not a statement.
SQL_START = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|WITH|DROP|ALTER|ATTACH|COPY|PRAGMA)\s+\S")
# A transaction's control statements are SQL too, whole on their own: a backend decides how a
# transaction is taken (D64), so `BEGIN`, `COMMIT` or `ROLLBACK` outside the store is a leak.
TRANSACTION_CONTROL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|START\s+TRANSACTION)(\s+(TRANSACTION|WORK))?\s*;?\s*$")


def _not_statements(tree: ast.AST) -> set[int]:
    """Docstrings, and the literal pieces inside f-strings (the f-string itself is looked at)."""
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, owners) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
        if isinstance(node, ast.JoinedStr):
            found.update(id(part) for part in node.values)
    return found


def _leading_text(node: ast.AST) -> str | None:
    """The literal text a string node starts with (an f-string's text before its first field)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        head = node.values[0] if node.values else None
        return head.value if isinstance(head, ast.Constant) else ""
    return None


def sql_strings(path: Path) -> list[int]:
    """The line numbers of the SQL strings in one Python file, one per string."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skipped = _not_statements(tree)
    lines = []
    for node in ast.walk(tree):
        text = None if id(node) in skipped else _leading_text(node)
        if text is not None and (SQL_START.match(text) or TRANSACTION_CONTROL.match(text)):
            lines.append(node.lineno)
    return sorted(lines)


def sql_outside_store(package: Path = PACKAGE, store: Path = STORE) -> Counter[str]:
    """SQL strings per file under `package` but outside `store`, keyed by path relative to the project."""
    counts: Counter[str] = Counter()
    for path in sorted(package.rglob("*.py")):
        if store in path.parents or path == DAGSTER_INSTANCE_STORAGE:
            continue
        found = sql_strings(path)
        if found:
            counts[str(path.relative_to(package.parent))] = len(found)
    return counts


def main() -> None:
    counts = sql_outside_store()
    for path, n in counts.most_common():
        print(f"{n:4d}  {path}")
    print(f"{sum(counts.values())} SQL strings in {len(counts)} files outside {STORE.relative_to(PROJECT_ROOT)}/")


if __name__ == "__main__":
    sys.exit(main())
