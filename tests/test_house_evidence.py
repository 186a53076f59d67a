"""Evidence of the house anyone can rerun (docs/decisions.md D99): modules over 400 lines,
private Dagster imports, module file names shared across packages (D98), and our own names
renamed on import. Each finding is zero or named in an allow-list below whose entry cites the
docs/decisions.md section that justifies it; an entry nothing needs any more fails too.

    pytest -s tests/test_house_evidence.py      prints the findings, then checks them
    python -m tests.test_house_evidence         prints them only

The detectors are also run on a planted tree, so each is seen to find what it looks for."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

from tests.test_dagster_private import PRIVATE, private_imports

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "knowledge_assets"
DECISIONS = ROOT / "docs" / "decisions.md"
MAX_LINES = 400

# path under knowledge_assets/ -> the section that says why it is still longer
LONG_MODULES: dict[str, str] = {
    "candidates/definitions.py": "D99",
    "candidates/formulas.py": "D99",
    "candidates/rules.py": "D99",
    "candidates/markup_definitions.py": "D99",
    "evaluation/corpus_scores.py": "D99",
    "terms/noise.py": "D99",
}

# file name -> the section that says why several packages hold one
SHARED_NAMES: dict[str, str] = {
    # one module per branch in each layer that handles branches
    "glossary.py": "D98", "formulas.py": "D98", "rules.py": "D98", "domain.py": "D98",
    # defs/assets/<stage>.py wires the stage; the store's holders are left to its rework
    "ingest.py": "D98", "terms.py": "D98", "evaluation.py": "D98", "review.py": "D98",
    "knowledge.py": "D98", "revisions.py": "D98", "llm.py": "D98",
    # candidates/ is left to the conventions registry's rework
    "definitions.py": "D98", "conventions.py": "D98",
}

# files (under the project) allowed to rename our own names on import, beside `contracts as c`
RENAMING_FILES: dict[str, str] = {"knowledge_assets/candidates/": "D99"}
HOUSE_ABBREVIATIONS = {("knowledge_assets", "contracts", "c")}
OWN_PACKAGES = ("knowledge_assets", "tests", "bench")


def long_modules(package: Path, limit: int = MAX_LINES) -> dict[str, int]:
    """path under the package -> its line count, for every module longer than `limit` lines."""
    counted = {path.relative_to(package).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
               for path in package.rglob("*.py")}
    return {path: lines for path, lines in sorted(counted.items()) if lines > limit}


def shared_module_names(package: Path) -> dict[str, list[str]]:
    """file name -> the paths that hold it, for every name more than one package holds."""
    holders: dict[str, list[str]] = defaultdict(list)
    for path in sorted(package.rglob("*.py")):
        if path.name != "__init__.py":
            holders[path.name].append(path.relative_to(package).as_posix())
    return {name: paths for name, paths in sorted(holders.items()) if len(paths) > 1}


def renamed_imports(root: Path, own: tuple[str, ...] = OWN_PACKAGES) -> list[str]:
    """`path:line from module import name as alias` (or `import module as alias`) for every
    import that gives one of our own modules or names another name, relative imports included."""
    found = []
    for folder in own:
        for path in sorted((root / folder).rglob("*.py")):
            where = path.relative_to(root).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] in own):
                    module = "." * node.level + (node.module or "")
                    found += [f"{where}:{node.lineno} from {module} import {a.name} as {a.asname}"
                              for a in node.names if a.asname not in (None, a.name)
                              and (module, a.name, a.asname) not in HOUSE_ABBREVIATIONS]
                elif isinstance(node, ast.Import):
                    found += [f"{where}:{node.lineno} import {a.name} as {a.asname}"
                              for a in node.names if a.asname and a.name.split(".")[0] in own]
    return found


def _allowed_rename(finding: str) -> bool:
    return any(finding.startswith(prefix) for prefix in RENAMING_FILES)


def report() -> str:
    """The findings, as `pytest -s` and `python -m tests.test_house_evidence` print them."""
    lines = [f"modules over {MAX_LINES} lines:"]
    lines += [f"  {lines_:5d}  {path}  ({LONG_MODULES.get(path, 'NOT JUSTIFIED')})"
              for path, lines_ in long_modules(PACKAGE).items()]
    lines.append("private Dagster imports (tests/test_dagster_private.py):")
    lines += [f"  {module}: {name}  ({PRIVATE.get(module, {}).get(name, 'NOT LISTED')})"
              for module, names in sorted(private_imports().items()) for name in sorted(names)]
    lines.append("module names shared across packages:")
    lines += [f"  {name}: {', '.join(paths)}  ({SHARED_NAMES.get(name, 'NOT JUSTIFIED')})"
              for name, paths in shared_module_names(PACKAGE).items()]
    lines.append("own names renamed on import (beside `contracts as c`):")
    lines += [f"  {finding}  ({'D99' if _allowed_rename(finding) else 'NOT JUSTIFIED'})"
              for finding in renamed_imports(ROOT)]
    return "\n".join(lines)


def test_the_findings_are_printed_and_each_is_justified():
    print("\n" + report())
    assert not set(long_modules(PACKAGE)) ^ set(LONG_MODULES), "long modules unjustified, or justified for nothing"
    assert not set(shared_module_names(PACKAGE)) ^ set(SHARED_NAMES), "shared names unjustified, or stale"
    assert not [f for f in renamed_imports(ROOT) if not _allowed_rename(f)]
    assert all(module in PRIVATE and names <= set(PRIVATE[module]) for module, names in private_imports().items())


def test_every_cited_section_is_in_the_decisions():
    headings = set(re.findall(r"^## (D\w+) · ", DECISIONS.read_text(encoding="utf-8"), flags=re.MULTILINE))
    cited = {*LONG_MODULES.values(), *SHARED_NAMES.values(), *RENAMING_FILES.values()}
    assert cited <= headings, f"cited but not in docs/decisions.md: {sorted(cited - headings)}"


def test_each_detector_finds_what_is_planted(tmp_path):
    package = tmp_path / "pkg"
    for folder in ("a", "b"):
        (package / folder).mkdir(parents=True)
        (package / folder / "review.py").write_text("x = 1\n", encoding="utf-8")
    (package / "long.py").write_text("x = 1\n" * (MAX_LINES + 1), encoding="utf-8")
    (package / "exactly.py").write_text("x = 1\n" * MAX_LINES, encoding="utf-8")
    (package / "wiring.py").write_text(
        "from dagster._core.storage.tags import PARTITION_NAME_TAG\nfrom pkg.a import review as queue\n"
        "from pkg.b import review as review\nfrom . import long as short\nimport pkg.long as lengthy\n",
        encoding="utf-8")

    assert long_modules(package) == {"long.py": MAX_LINES + 1}
    assert shared_module_names(package) == {"review.py": ["a/review.py", "b/review.py"]}
    assert private_imports(package) == {"dagster._core.storage.tags": {"PARTITION_NAME_TAG"}}
    assert renamed_imports(tmp_path, ("pkg",)) == ["pkg/wiring.py:2 from pkg.a import review as queue",
                                                   "pkg/wiring.py:4 from . import long as short",
                                                   "pkg/wiring.py:5 import pkg.long as lengthy"]


if __name__ == "__main__":
    print(report())
