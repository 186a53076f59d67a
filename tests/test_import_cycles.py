"""No package of knowledge_assets has an import circle among its modules and subpackages.

Issue 32 found one that nothing caught: store/open.py imported store/postgres.py inside a
function, and store/postgres.py imported open.py at the top. The graph here is read from the
source files with `ast`: every import statement wherever it stands (a deferred import inside a
function is still an import, and so is `importlib.import_module("…")` with a literal name), from
the files of this checkout rather than from whatever `knowledge_assets` the interpreter would
find (a namespace package, whose portions in another checkout would merge in).

A package's nodes are its direct children and its own `__init__`; an import between two
modules is an arrow between the children of their nearest common package that hold them, so
`a/x.py → b/y.py → a/z.py` is the circle a → b → a inside the parent. The second test makes two
circles in a copy of the package and sees each named.
"""

from __future__ import annotations

import ast
import shutil
from collections import defaultdict
from pathlib import Path

from tests.conftest import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "knowledge_assets"
# The node of a package's own __init__.py among its children.
INIT = "__init__"


def module_files(package: Path) -> dict[str, Path]:
    """Every module under `package`, by dotted name; a package is named by its __init__.py."""
    modules = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == INIT else parts)] = path
    return modules


def _import_names(tree: ast.Module, name: str, is_package: bool) -> list[tuple[str, int]]:
    """Every name the code imports, with its line: `import a.b`, `from a import b` as `a.b` (a
    module, or a name in module `a`), `importlib.import_module("a")`."""
    here = name if is_package else name.rpartition(".")[0]
    named = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            named += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here.rsplit(".", node.level - 1)[0] if node.level else ""
            base = ".".join(part for part in (base, node.module or "") if part)
            named += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            named.append((node.args[0].value, node.lineno))
    return named


def _module_of(imported: str, modules: dict[str, Path]) -> str | None:
    """The package's module an imported name is or is in: the longest of `a`, `a.b`, `a.b.c` we
    have for `a.b.c` (the packages above it, which Python also runs, are left out as they are
    for every import); None outside the package."""
    parts = imported.split(".")
    return next((".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in modules), None)


def imports(modules: dict[str, Path]) -> dict[str, dict[str, int]]:
    """Each module's imports of the package's own modules: imported module → the first line."""
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found: dict[str, int] = {}
        for imported, line in _import_names(tree, name, path.name == f"{INIT}.py"):
            known = _module_of(imported, modules)
            if known is not None and known != name:
                found.setdefault(known, line)
        graph[name] = found
    return graph


def _arrow(importer: str, imported: str) -> tuple[str, str, str]:
    """(package, child that imports, child imported): the two modules' nearest common package."""
    a, b = importer.split("."), imported.split(".")
    common = next((n for n, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return ".".join(a[:common]), a[common] if len(a) > common else INIT, b[common] if len(b) > common else INIT


def _reachable(arrows: dict[str, set[str]], start: str) -> dict[str, str | None]:
    """Every child `start` reaches, each with the child before it on a shortest path."""
    before: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier:
        reached = []
        for node in frontier:
            for child in sorted(arrows[node]):
                if child not in before:
                    before[child] = node
                    reached.append(child)
        frontier = reached
    return before


def circles(package: Path) -> list[str]:
    """Each circle of each package under `package`, once, as `package: a → b → a` with the import
    that makes each arrow (`file:line`)."""
    modules = module_files(package)
    arrows: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    witness: dict[tuple[str, str, str], str] = {}
    for importer, imported_lines in imports(modules).items():
        for imported, line in imported_lines.items():
            where, source, target = _arrow(importer, imported)
            arrows[where][source].add(target)
            witness.setdefault((where, source, target),
                               f"{modules[importer].relative_to(package.parent).as_posix()}:{line}")
    found = []
    for where, children in sorted(arrows.items()):
        seen: set[str] = set()
        for start in sorted(children):
            if start in seen:
                continue
            back = [child for child in sorted(children[start]) if start in _reachable(children, child)]
            if not back:
                continue
            # The shortest way back to `start` from the first child it imports that leads there.
            before = _reachable(children, back[0])
            path, node = [start], start
            while node != back[0]:
                node = before[node]
                path.append(node)
            loop = [start, *reversed(path[1:]), start]
            seen.update(loop)
            steps = ", ".join(witness[(where, a, b)] for a, b in zip(loop, loop[1:], strict=False))
            found.append(f"{where}: {' → '.join(loop)} ({steps})")
    return found


def test_no_package_has_an_import_circle():
    assert circles(PACKAGE) == []


def test_a_circle_within_a_package_and_one_across_subpackages_are_both_named(tmp_path):
    package = tmp_path / "knowledge_assets"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    # The circle of issue 32 again (store/open.py then, backends.py now), deferred inside a
    # function as it was there; and a stage asset importing the launcher, which imports the
    # wiring's jobs: a circle between two subpackages, named in their parent.
    with (package / "store" / "postgres.py").open("a", encoding="utf-8") as source:
        source.write("\n\ndef _deferred():\n    from knowledge_assets.store.backends import open_store\n")
    with (package / "defs" / "assets" / "ingest.py").open("a", encoding="utf-8") as source:
        source.write("\nimport knowledge_assets.run_control.launch\n")
    found = circles(package)
    assert {circle.partition(":")[0] for circle in found} == {"knowledge_assets", "knowledge_assets.store"}
    assert ("knowledge_assets: defs → run_control → defs (knowledge_assets/defs/assets/ingest.py:"
            in "\n".join(found)), found
    assert ("knowledge_assets.store: backends → postgres → backends (knowledge_assets/store/backends.py:"
            in "\n".join(found)), found
