"""Export puts a document's folder in place whole: never a mix of two exports, never a part of one,
never no folder; as JSON, as CSV files or as a workbook, with an index of the documents at the root.

The unit tests drive `write_folder` on payloads of our own; the kill tests run real exports of
documents of our own and kill them with SIGKILL: one while it writes, twice, over an earlier
export; and a loop of exports 30 times at random moments, looking at the folder all the while.
Both compare every file's digest with the exports it may be. The format tests run the real
command on documents of our own and read what it wrote with the csv module and openpyxl."""

import csv
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import openpyxl
import pytest
from pydantic import BaseModel

from knowledge_assets import contracts as c
from knowledge_assets.export import ExportError, write_folder
from tests.conftest import PROJECT_ROOT


class Row(BaseModel):
    n: int


def digests(folder: Path) -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(folder.iterdir())}


def beside(target: Path) -> list[str]:
    return sorted(path.name for path in target.parent.iterdir() if path != target)


def test_a_folder_is_written_whole_and_replaces_an_earlier_export(tmp_path):
    target = tmp_path / "out" / "DOC"
    write_folder(target, {"a.json": [Row(n=1)], "b.json": Row(n=2)})
    written = write_folder(target, {"a.json": [Row(n=3), Row(n=4)], "b.json": Row(n=5)})
    assert written == [target / "a.json", target / "b.json"]
    assert (target / "a.json").read_text(encoding="utf-8") == '[\n  {\n    "n": 3\n  },\n  {\n    "n": 4\n  }\n]\n'
    assert beside(target) == []
    assert target.stat().st_mode & 0o777 == 0o777 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_failure_while_writing_leaves_the_earlier_export_untouched(tmp_path):
    target = tmp_path / "DOC"
    write_folder(target, {"a.json": [Row(n=1)], "b.json": [Row(n=2)]})
    before = digests(target)
    with pytest.raises(TypeError):
        write_folder(target, {"a.json": [Row(n=3)], "b.json": [object()]})
    assert digests(target) == before and beside(target) == []


# The exchange is Linux's renameat2 and macOS's renamex_np; elsewhere an export takes two renames.
EXCHANGES = pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="no exchange of two folders here")


@EXCHANGES
def test_an_earlier_export_is_exchanged_with_the_new_one_never_moved_away_first(tmp_path, monkeypatch):
    target = tmp_path / "DOC"
    write_folder(target, {"a.json": [Row(n=1)]})

    def no_rename(source, destination):
        raise AssertionError(f"{source} renamed to {destination}: the target is gone until the next rename")

    monkeypatch.setattr("knowledge_assets.export.os.rename", no_rename)
    write_folder(target, {"a.json": [Row(n=2)]})
    assert (target / "a.json").read_text(encoding="utf-8").count('"n": 2') == 1 and beside(target) == []


def test_without_an_exchange_a_kill_between_the_renames_leaves_no_mix_and_the_next_export_cleans_up(
        tmp_path, monkeypatch):
    target = tmp_path / "DOC"
    write_folder(target, {"a.json": [Row(n=1)]})
    monkeypatch.setattr("knowledge_assets.export._exchange", lambda first, second: False)  # NFS, say
    renames = []

    def rename_then_die(source, destination):
        if renames:
            raise KeyboardInterrupt  # the process stops after moving the earlier export aside
        renames.append(destination)
        os.replace(source, destination)

    monkeypatch.setattr("knowledge_assets.export.os.rename", rename_then_die)
    with pytest.raises(KeyboardInterrupt):
        write_folder(target, {"a.json": [Row(n=2)]})
    monkeypatch.undo()
    # A reader finds no export, not half of one; the earlier one is beside it, whole.
    assert not target.exists()
    [aside] = beside(target)
    assert aside.startswith(".DOC.replaced-")
    assert digests(tmp_path / aside) == {"a.json": hashlib.sha256(b'[\n  {\n    "n": 1\n  }\n]\n').hexdigest()}
    write_folder(target, {"a.json": [Row(n=3)]})
    assert beside(target) == [] and (target / "a.json").read_text(encoding="utf-8").count('"n": 3') == 1


@pytest.mark.parametrize("made", ["a file", "a folder of other files", "the current folder"])
def test_a_target_that_is_not_an_export_is_refused_untouched(tmp_path, monkeypatch, made):
    target = tmp_path / "DOC"
    if made == "a file":
        target.write_text("mine", encoding="utf-8")
    elif made == "a folder of other files":
        target.mkdir()
        (target / "notes.txt").write_text("mine", encoding="utf-8")
    else:
        target.mkdir()
        monkeypatch.chdir(target)
    with pytest.raises(ExportError):
        write_folder(target, {"a.json": [Row(n=1)]})
    assert beside(target) == [] and (made != "a folder of other files" or digests(target).keys() == {"notes.txt"})


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "KNOWLEDGE_DB": str(home / "knowledge.duckdb"), "DAGSTER_HOME": str(home),
            "KNOWLEDGE_LLM_BACKEND": "offline"}


def _command(*args) -> list[str]:
    return [sys.executable, "-m", "knowledge_assets.command", *map(str, args)]


def _export(env, doc_id: str, out: Path) -> subprocess.CompletedProcess:
    """`export --doc-id DOC --out OUT`, which writes OUT/DOC/."""
    return subprocess.run(_command("export", "--doc-id", doc_id, "--out", out), cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def _killed_while_writing(env, doc_id: str, out: Path, files_written: int) -> bool:
    """Starts the export of OUT/DOC and kills it with SIGKILL once its folder beside the target
    holds `files_written` files; whether the kill came while that folder was being written."""
    process = subprocess.Popen(_command("export", "--doc-id", doc_id, "--out", out), cwd=PROJECT_ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    prefix = f".{doc_id}.writing-"
    # Folders an earlier kill left beside the target are not this export's: only a new one counts.
    left_before = {name for name in os.listdir(out) if name.startswith(prefix)}

    def staging_folders() -> list[str]:
        return [entry.path for entry in os.scandir(out)
                if entry.name.startswith(prefix) and entry.name not in left_before]

    try:
        while process.poll() is None:
            staging = staging_folders()
            if staging and len(os.listdir(staging[0])) >= files_written:
                process.send_signal(signal.SIGKILL)
                break
            time.sleep(0.0002)
    except FileNotFoundError:
        process.send_signal(signal.SIGKILL)  # renamed into place under the poll: too late, kill anyway
    return process.wait(timeout=60) == -signal.SIGKILL and bool(staging_folders())


def station_rules(count: int) -> str:
    lines = ["# Pump station operating rules", ""]
    for n in range(count):
        if n % 10 == 0:
            lines += [f"## {n // 10 + 1}. Station {n // 10 + 1}", ""]
        lines += [f"If the pressure of pump P{n} exceeds {40 + n % 7} bar, the operator must stop pump P{n} "
                  f"within {n % 5 + 1} minutes.", f"Flow F{n} = Rate R{n} x Hours H{n}", ""]
    return "\n".join(lines)


def test_an_export_killed_while_it_writes_leaves_the_earlier_export_whole(tmp_path):
    home, docs = tmp_path / "home", tmp_path / "docs"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    docs.mkdir()
    # Long enough that writing its files takes a while (some 10 ms): 400 rules, 400 formulas.
    (docs / "station.md").write_text(station_rules(400), encoding="utf-8")
    (docs / "station.md.meta.json").write_text('{"doc_id": "LONG"}', encoding="utf-8")
    env = _env(home)

    def run() -> None:
        ran = subprocess.run(_command("run", docs), cwd=PROJECT_ROOT, env=env, capture_output=True, text=True,
                             timeout=300)
        assert ran.returncode == 0, ran.stdout + ran.stderr

    run()
    out, saved, reference = tmp_path / "out", tmp_path / "saved", tmp_path / "reference"
    target = out / "LONG"
    assert _export(env, "LONG", out).returncode == 0
    shutil.copytree(target, saved / "LONG")
    # A new revision of the document: the next export of LONG replaces an earlier one.
    (docs / "station.md").write_text(station_rules(401), encoding="utf-8")
    run()
    assert _export(env, "LONG", reference).returncode == 0
    old, new = digests(target), digests(reference / "LONG")
    rules = "interpretation_pack.json"
    assert old.keys() == new.keys() and len(old) == 7 and old[rules] != new[rules]

    moments = [0, 2]  # files written when killed: as the folder appears; during the rules file
    for _ in range(6):
        if not moments:
            break
        if _killed_while_writing(env, "LONG", out, moments[0]):
            # The earlier export stands, whole; what the kill left is only beside it.
            assert digests(target) == old
            moments.pop(0)
        else:
            # On a busy machine the kill can come after the rename: then it is the new one, whole.
            assert digests(target) == new
            shutil.rmtree(target)
            shutil.copytree(saved / "LONG", target)
    assert moments == []

    assert _export(env, "LONG", out).returncode == 0
    assert digests(target) == new and beside(target) == ["index.json"]


# Exports the document again and again (argv: store, root, doc_id, how many or 0 for ever, formats
# in turn), as `export` does: a folder put in place, then the index.
EXPORT_LOOP = """
import itertools, sys
from pathlib import Path
from knowledge_assets.export import export_into
from knowledge_assets.store.database import DuckDBStore

path, root, doc_id, count, *formats = sys.argv[1:]
with DuckDBStore(path).session() as store:
    print("exporting", flush=True)
    for fmt in itertools.islice(itertools.cycle(formats), int(count) or None):
        export_into(store, Path(root), doc_id, fmt)
"""


def _export_loop(store: Path, root: Path, count: int, *formats: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", EXPORT_LOOP, store, root, "NORTH", str(count), *formats],
                            cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _exported(store: Path, root: Path, fmt: str) -> dict[str, str]:
    process = _export_loop(store, root, 1, fmt)
    assert process.wait(timeout=60) == 0, process.stderr.read()
    return digests(root / "NORTH")


@EXCHANGES
def test_exports_killed_at_random_moments_leave_a_whole_export_that_the_index_names(stations, tmp_path):
    """30 times: a loop of exports, JSON and CSV in turn, killed with SIGKILL at a random moment
    while the folder is looked at; then the folder is one of the two exports, whole."""
    env, _, _ = stations
    store = tmp_path / "knowledge.duckdb"  # a copy: a killed process holds no store of another test
    shutil.copyfile(env["KNOWLEDGE_DB"], store)
    as_json, as_csv = _exported(store, tmp_path / "json", "json"), _exported(store, tmp_path / "csv", "csv")
    assert as_json.keys() != as_csv.keys() and len(as_json) == len(as_csv) == 7
    out = tmp_path / "out"
    target = out / "NORTH"
    _exported(store, out, "csv")
    looks = 0
    for _ in range(30):
        moment = random.uniform(0, 0.1)  # an export takes some 25 ms: the moment falls in any part of one
        process = _export_loop(store, out, 0, "json", "csv")
        try:
            assert process.stdout.readline() == "exporting\n", process.stderr.read()
            deadline = time.monotonic() + moment
            while time.monotonic() < deadline:
                # Each look resolves the name once: the folder is never absent, whatever the export does.
                assert target.is_dir(), f"no folder {looks} looks in"
                looks += 1
        finally:
            process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=60) == -signal.SIGKILL, process.stderr.read()
        found = digests(target)
        assert found in (as_json, as_csv), f"killed {moment * 1000:.1f} ms in: {sorted(found)}"
        for path in target.iterdir():
            if path.suffix == ".json":
                json.loads(path.read_text(encoding="utf-8"))
        index = json.loads((out / "index.json").read_text(encoding="utf-8"))["documents"]
        assert list(index) == ["NORTH"] and all((out / doc_id).is_dir() for doc_id in index)
    assert looks > 10_000  # some 1.5 s of looking, over some 60 exports
    # What the kills left beside the folder, the next export removes.
    assert _exported(store, out, "json") == as_json and beside(target) == ["index.json"]


# --- formats ------------------------------------------------------------------------------------

# Text a spreadsheet would run as a formula, each but the last: a document's text is data.
FORMULA_LOOKING = ['=HYPERLINK("http://example.test/x","open")', "+41 bar at the inlet", "-3 dB below the limit",
                   "@SUM(A1:A9)", "\tindented note", "plain definition"]


def glossary(definitions: list[str]) -> list[c.GlossaryEntry]:
    return [c.GlossaryEntry(term_id=f"t_{n}", term=f"Term {n}", definition=text,
                            subdomain_tags=["maintenance", "safety"],
                            provenance=c.Provenance(doc_id="DOC", span=text, page=n, section_no="2.1"))
            for n, text in enumerate(definitions)]


DOMAIN = c.DomainContext(
    domain_id="d_1", title="Pump station operating rules", outline=["1. Scope", "2. Rules"],
    key_parameters=[c.KeyParameter(surface="Pump pressure", term_id="t_0"), c.KeyParameter(surface="Flow")],
    provenance=c.Provenance(doc_id="DOC", span="Pump station operating rules", page=0))


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as file:
        return list(csv.DictReader(file))


def test_csv_is_a_file_per_payload_a_row_per_entity_lists_joined_and_formula_looking_cells_escaped(tmp_path):
    written = write_folder(tmp_path / "DOC", {"glossary.json": glossary(FORMULA_LOOKING), "formulas.json": [],
                                              "domain_context.json": DOMAIN}, "csv")
    assert [p.name for p in written] == ["glossary.csv", "formulas.csv", "domain_context.csv"]
    rows = read_csv(tmp_path / "DOC" / "glossary.csv")
    assert [row["definition"] for row in rows] == ["'" + text for text in FORMULA_LOOKING[:-1]] + ["plain definition"]
    assert [row["provenance.span"] for row in rows] == [row["definition"] for row in rows]
    first = rows[0]
    assert (first["subdomain_tags"], first["provenance.page"], first["provenance.page_no"]) == ("maintenance; safety",
                                                                                                  "0", "1")
    assert (first["full_name"], first["definition_conflict"], first["mention_count"]) == ("", "false", "0")
    # An empty payload is its header: a reader sees the columns, and that nothing is there.
    with (tmp_path / "DOC" / "formulas.csv").open(encoding="utf-8-sig", newline="") as file:
        assert list(csv.reader(file)) == [list(c.FormulaEntry.model_fields)[:-1] + [
            f"provenance.{name}" for name in c.Provenance.model_fields]]
    [domain] = read_csv(tmp_path / "DOC" / "domain_context.csv")
    assert domain["key_parameters"] == "Pump pressure (term_id: t_0); Flow"
    assert domain["outline"] == "1. Scope; 2. Rules"


def test_a_workbook_holds_a_sheet_per_payload_its_text_verbatim_and_typed_never_a_formula(tmp_path):
    # What XML cannot hold, and what would read as its escape, are written in OOXML's _xHHHH_.
    definitions = [*FORMULA_LOOKING, "#N/A", "page\x0cbreak", "_x0041_ as written"]
    [written] = write_folder(tmp_path / "DOC", {"glossary.json": glossary(definitions),
                                                "domain_context.json": DOMAIN}, "xlsx")
    assert written == tmp_path / "DOC" / "DOC.xlsx"
    workbook = openpyxl.load_workbook(written)
    assert workbook.sheetnames == ["glossary", "domain_context"]
    sheet = workbook["glossary"]
    column = [cell.value for cell in sheet[1]].index("definition")
    cells = [row[column] for row in sheet.iter_rows(min_row=2)]
    assert [cell.value for cell in cells] == [*FORMULA_LOOKING, "#N/A", "page_x000C_break", "_x005F_x0041_ as written"]
    assert {cell.data_type for cell in cells} == {"s"}
    assert [bool(cell.quotePrefix) for cell in cells] == [True] * 5 + [False] * 4
    with zipfile.ZipFile(written) as archive:
        sheets = [archive.read(name) for name in archive.namelist() if name.startswith("xl/worksheets/")]
    assert sheets and not any(b"<f>" in xml or b"<f " in xml for xml in sheets)
    assert [cell.value for cell in workbook["domain_context"][2]][:2] == ["d_1", "Pump station operating rules"]


def test_an_export_in_one_format_replaces_an_earlier_one_in_another(tmp_path):
    target = tmp_path / "DOC"
    write_folder(target, {"glossary.json": glossary(["one"]), "domain_context.json": DOMAIN})
    write_folder(target, {"glossary.json": glossary(["one"]), "domain_context.json": DOMAIN}, "csv")
    assert sorted(p.name for p in target.iterdir()) == ["domain_context.csv", "glossary.csv"]
    write_folder(target, {"glossary.json": glossary(["one"])}, "xlsx")
    assert [p.name for p in target.iterdir()] == ["DOC.xlsx"] and beside(target) == []


@pytest.fixture(scope="module")
def stations(tmp_path_factory) -> tuple[dict[str, str], Path, Path]:
    """Two documents of our own run into `runs/` (`run --out`): the environment, the documents'
    folder and the export root."""
    root = tmp_path_factory.mktemp("stations")
    home, docs = root / "home", root / "docs"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    docs.mkdir()
    for name, count in (("north", 12), ("south", 7)):
        (docs / f"{name}.md").write_text(station_rules(count).replace("Pump station", f"{name.title()} pump station"),
                                         encoding="utf-8")
        (docs / f"{name}.md.meta.json").write_text(json.dumps({"doc_id": name.upper()}), encoding="utf-8")
    env = _env(home)
    ran = subprocess.run(_command("run", docs, "--out", root / "runs"), cwd=PROJECT_ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return env, docs, root / "runs"


def _export_as(env, doc_id: str, out: Path, fmt: str) -> None:
    done = subprocess.run(_command("export", "--doc-id", doc_id, "--out", out, "--format", fmt), cwd=PROJECT_ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_csv_files_and_workbook_sheets_hold_a_row_per_entity_of_the_json_files(stations, tmp_path):
    env, _, runs = stations
    _export_as(env, "NORTH", tmp_path / "csv", "csv")
    _export_as(env, "NORTH", tmp_path / "xlsx", "xlsx")
    workbook = openpyxl.load_workbook(tmp_path / "xlsx" / "NORTH" / "NORTH.xlsx")
    counts = {}
    for path in sorted((runs / "NORTH").iterdir()):
        payload = json.loads(path.read_text(encoding="utf-8"))
        entities = payload if isinstance(payload, list) else [payload]
        rows = read_csv(tmp_path / "csv" / "NORTH" / f"{path.stem}.csv")
        sheet = list(workbook[path.stem].iter_rows(values_only=True))
        assert len(rows) == len(sheet) - 1 == len(entities), path.name
        # Row by row the same entities: the first field (an id, a rank, a name) in the same order.
        first = next(iter(entities[0]), None) if entities else None
        assert [row[first] for row in rows] == [str(entity[first]) for entity in entities]
        assert [row[0] for row in sheet[1:]] == [entity[first] for entity in entities]
        counts[path.stem] = len(entities)
    assert workbook.sheetnames == ["glossary", "formulas", "interpretation_pack", "domain_context", "review_queue",
                                   "rejected", "usage"]
    assert counts["interpretation_pack"] == 12 and counts["formulas"] == 12 and counts["domain_context"] == 1


def test_the_index_names_each_document_of_a_root_and_merges_an_export_of_one(stations):
    env, _, runs = stations
    index = json.loads((runs / "index.json").read_text(encoding="utf-8"))["documents"]
    assert sorted(index) == ["NORTH", "SOUTH"]
    for doc_id, source in (("NORTH", "north.md"), ("SOUTH", "south.md")):
        title = json.loads((runs / doc_id / "domain_context.json").read_text(encoding="utf-8"))["title"]
        assert title and index[doc_id]["title"] == title
        assert index[doc_id]["files"] == sorted(f"{doc_id}/{p.name}" for p in (runs / doc_id).iterdir())
        assert (index[doc_id]["revision"], index[doc_id]["source_file"], index[doc_id]["format"]) == (1, source, "json")
    _export_as(env, "SOUTH", runs, "xlsx")
    merged = json.loads((runs / "index.json").read_text(encoding="utf-8"))["documents"]
    assert merged["NORTH"] == index["NORTH"]
    assert (merged["SOUTH"]["files"], merged["SOUTH"]["format"]) == (["SOUTH/SOUTH.xlsx"], "xlsx")
    assert sorted(p.name for p in runs.iterdir()) == ["NORTH", "SOUTH", "index.json"]


def test_an_index_that_is_not_an_exports_is_refused_untouched(stations, tmp_path):
    env, _, _ = stations
    (tmp_path / "index.json").write_text("my notes", encoding="utf-8")
    done = subprocess.run(_command("export", "--doc-id", "NORTH", "--out", tmp_path), cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "is not an export's index" in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["index.json"]
    assert (tmp_path / "index.json").read_text(encoding="utf-8") == "my notes"


def test_only_a_workbook_export_imports_openpyxl():
    loaded = subprocess.run([sys.executable, "-c", "import sys, knowledge_assets.command, "
                             "knowledge_assets.definitions; print('openpyxl' in sys.modules)"],
                            cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    assert loaded.stdout.strip() == "False", loaded.stderr


def test_an_unknown_document_is_named_as_unknown_and_a_registered_one_not_yet_run_as_such(store, tmp_path):
    from knowledge_assets.export import export_document
    from knowledge_assets.ingest.registration import register_file

    with pytest.raises(ExportError, match=r"^NO-SUCH: no such document in .*`knowledge-assets documents`"):
        export_document(store, "NO-SUCH", tmp_path / "out")
    document = tmp_path / "kpi.md"
    document.write_text("# 1. Purpose\n\nMTTR is the mean time to repair.\n", encoding="utf-8")
    doc_id = register_file(store, document).source.doc_id
    with pytest.raises(ExportError, match=rf"^{doc_id}: no domain context in .*materialise the document first"):
        export_document(store, doc_id, tmp_path / "out")
    assert not (tmp_path / "out").exists()
