"""Export puts a document's folder in place whole: never a mix of two exports, never a part of one.

The unit tests drive `write_folder` on payloads of our own; the kill test runs the real
command on a long document of our own and kills it with SIGKILL while it writes, twice, over
an earlier export, then compares every file's digest with the two exports it may be."""

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

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


def test_a_kill_between_the_renames_leaves_no_mix_and_the_next_export_cleans_up(tmp_path, monkeypatch):
    target = tmp_path / "DOC"
    write_folder(target, {"a.json": [Row(n=1)]})
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
    return [sys.executable, "-m", "knowledge_assets.cli", *map(str, args)]


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
    try:
        while process.poll() is None:
            staging = [entry.path for entry in os.scandir(out) if entry.name.startswith(prefix)]
            if staging and len(os.listdir(staging[0])) >= files_written:
                process.send_signal(signal.SIGKILL)
                break
            time.sleep(0.0002)
    except FileNotFoundError:
        process.send_signal(signal.SIGKILL)  # renamed into place under the poll: too late, kill anyway
    return process.wait(timeout=60) == -signal.SIGKILL and any(n.startswith(prefix) for n in os.listdir(out))


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
    assert digests(target) == new and beside(target) == []
