"""The `knowledge-assets review` commands against a real DuckDB file holding a real extraction."""

import itertools
import json
import os
import subprocess
import sys

import pytest

from knowledge_assets import contracts as c
from knowledge_assets.ids import domain_id, term_id
from knowledge_assets.review.entities import find
from knowledge_assets.review.fingerprint import fingerprint, reviewed_content
from tests.conftest import PROJECT_ROOT
from tests.review.conftest import KPI, one, run_cli, seen, snapshot

MTTR = term_id(KPI, "Mean Time To Repair")
MTBF = term_id(KPI, "Mean Time Between Failures")
DOMAIN = domain_id(KPI)
SKT = f"{DOMAIN}:Samudra Karya Tambang (SKT)"  # the key parameter no extracted term corroborates


def _reviews(store):
    return store.fetch("SELECT * FROM knowledge_reviews ORDER BY reviewed_at")


def _pending(capsys, doc_id=KPI):
    code, out, err = run_cli(capsys, "review", "list", "--doc-id", doc_id, "--json")
    assert code == 0, err
    return json.loads(out)


def _entry_file(capsys, tmp_path, ref, **changes):
    code, out, _ = run_cli(capsys, "review", "show", ref)
    assert code == 0
    path = tmp_path / "edited.json"
    path.write_text(json.dumps({**json.loads(out)["entry"], **changes}), encoding="utf-8")
    return path


def test_list_is_the_queue_in_rank_order_with_span_and_page_no(extracted, capsys):
    items = _pending(capsys)
    assert [i["rank"] for i in items] == list(range(1, len(items) + 1))
    assert items[0]["id"] == SKT and items[0]["reason"] == c.REVIEW_REASON_UNRESOLVED_KEY_PARAMETER
    queue = extracted.fetch("SELECT term_id FROM review_queue WHERE doc_id = ? AND row_kind = 'term' ORDER BY rank",
                            [KPI])
    assert [i["id"] for i in items if i["kind"] == "term"] == [r["term_id"] for r in queue]
    kinds = [i["kind"] for i in items]
    assert kinds.index("domain") < kinds.index("formula") < kinds.index("rule")
    assert kinds.index("domain") > max(n for n, kind in enumerate(kinds) if kind == "term")
    mttr = next(i for i in items if i["id"] == MTTR)
    assert mttr["span"] == "MTTR means the average time needed to return a unit to service after a breakdown."
    assert mttr["page_no"] == 1 and mttr["section_no"] == "3.2" and mttr["state"] == "unreviewed"
    code, out, _ = run_cli(capsys, "review", "list", "--doc-id", KPI)
    assert code == 0 and f"{MTTR}  unreviewed  p.1 §3.2  MTTR" in out and f"{len(items)} pending in {KPI}" in out
    # What a decision passes back as --seen: the content's fingerprint, whole in JSON, its first 16 digits here.
    assert mttr["fingerprint"] == fingerprint(reviewed_content("term", find(extracted, MTTR).entity))
    assert f"      seen:   {mttr['fingerprint'][:23]}\n" in out


def test_approve_appends_one_row_holding_what_the_reviewer_saw(extracted, capsys):
    shown = seen(capsys, MTTR)
    code, out, err = run_cli(capsys, "review", "approve", MTTR, "--reviewer", "alice", "--note", "checked p.1",
                             "--seen", shown)
    assert code == 0, err
    assert f"approved term {MTTR} (MTTR) in {KPI}" in out
    code, listed, _ = run_cli(capsys, "review", "list", "--doc-id", KPI)
    tally = listed.splitlines()[-1]
    terms = sum(i["kind"] == "term" for i in _pending(capsys)) + 1
    assert code == 0 and tally.startswith(f"{len(_pending(capsys))} pending in {KPI}; decided 1/")
    assert f", 1/{terms} term" in tally
    [row] = _reviews(extracted)
    assert {k: row[k] for k in ("doc_id", "entity_kind", "entity_id", "surface", "decision", "reviewer", "note",
                                "edited_payload")} == {
        "doc_id": KPI, "entity_kind": "term", "entity_id": MTTR, "surface": None, "decision": "approved",
        "reviewer": "alice", "note": "checked p.1", "edited_payload": None}
    recorded = json.loads(row["reviewed_content"])
    assert recorded["definition"] == "MTTR means the average time needed to return a unit to service after a breakdown."
    assert row["fingerprint"] == fingerprint(recorded) == shown
    assert MTTR not in [i["id"] for i in _pending(capsys)]


def test_reject_takes_the_entry_out_of_the_queue_with_its_note(extracted, capsys):
    code, _, err = run_cli(capsys, "review", "reject", MTBF, "--reviewer", "bob", "--note", "definition is incomplete",
                           "--seen", seen(capsys, MTBF))
    assert code == 0, err
    assert one(extracted, "SELECT decision, note FROM knowledge_reviews WHERE entity_id = ?", MTBF) == {
        "decision": "rejected", "note": "definition is incomplete"}
    assert MTBF not in [i["id"] for i in _pending(capsys)]


def test_edit_stores_the_corrected_entry_validated_against_its_contract_model(extracted, capsys, tmp_path):
    payload = _entry_file(capsys, tmp_path, MTTR, definition="MTTR is the mean time to bring a unit back into service.")
    code, _, err = run_cli(capsys, "review", "edit", MTTR, "--payload", str(payload), "--reviewer", "carol",
                           "--seen", seen(capsys, MTTR))
    assert code == 0, err
    row = one(extracted, "SELECT decision, edited_payload FROM knowledge_reviews WHERE entity_id = ?", MTTR)
    edited = c.GlossaryEntry.model_validate_json(row["edited_payload"])
    assert (row["decision"] == "edited"
            and edited.definition == "MTTR is the mean time to bring a unit back into service.")


def test_a_key_parameter_is_reviewed_by_domain_id_and_surface(extracted, capsys):
    code, _, err = run_cli(capsys, "review", "approve", SKT, "--reviewer", "alice", "--seen", seen(capsys, SKT))
    assert code == 0, err
    row = one(extracted, "SELECT entity_kind, entity_id, surface FROM knowledge_reviews")
    assert row == {"entity_kind": "key_parameter", "entity_id": DOMAIN, "surface": "Samudra Karya Tambang (SKT)"}
    assert SKT not in [i["id"] for i in _pending(capsys)]


def test_show_gives_the_entry_its_state_and_every_decision_on_it(extracted, capsys):
    assert run_cli(capsys, "review", "reject", MTTR, "--reviewer", "bob", "--note", "too vague",
                   "--seen", seen(capsys, MTTR))[0] == 0
    assert run_cli(capsys, "review", "approve", MTTR, "--reviewer", "alice", "--seen", seen(capsys, MTTR))[0] == 0
    code, out, _ = run_cli(capsys, "review", "show", MTTR)
    shown = json.loads(out)
    assert code == 0 and shown["state"] == "approved" and shown["kind"] == "term" and shown["doc_id"] == KPI
    assert shown["entry"]["term_id"] == MTTR and shown["stale_reason"] is None
    assert [(h["decision"], h["reviewer"]) for h in shown["history"]] == [("rejected", "bob"), ("approved", "alice")]


def test_decisions_are_only_ever_appended(extracted, capsys, tmp_path):
    payload = _entry_file(capsys, tmp_path, MTTR, definition="MTTR: mean time to repair.")
    mttr, skt = seen(capsys, MTTR), seen(capsys, SKT)
    commands = [
        ("approve", MTTR, "--reviewer", "alice", "--seen", mttr),
        ("reject", MTTR, "--reviewer", "bob", "--note", "not the document's wording", "--seen", mttr),
        ("edit", MTTR, "--payload", str(payload), "--reviewer", "carol", "--seen", mttr),
        ("approve", SKT, "--reviewer", "alice", "--seen", skt),
    ]
    before: list[dict] = []
    for command in commands:
        code, _, err = run_cli(capsys, "review", *command)
        assert code == 0, err
        after = _reviews(extracted)
        assert after[: len(before)] == before and len(after) == len(before) + 1
        before = after


# Stands for the fingerprint `review show` prints for MTTR: a decision names content it was shown,
# so a case that tests another error passes one that would be accepted.
SEEN = "<the fingerprint review show printed>"

BAD_INPUTS = [
    (("approve", "t_0000000000", "--reviewer", "alice", "--seen", SEEN), "t_0000000000: no term t_0000000000"),
    (("approve", "PA", "--reviewer", "alice", "--seen", SEEN), "'PA' is not a review id"),
    (("approve", MTTR, "--reviewer", "alice", "--doc-id", "NO-SUCH-DOC", "--seen", SEEN),
     "NO-SUCH-DOC: no extracted knowledge"),
    (("approve", MTTR, "--reviewer", "alice", "--doc-id", "SKT-STD-PRM-001", "--seen", SEEN),
     f"{MTTR}: no term with this id"),
    (("approve", MTTR, "--reviewer", "  ", "--seen", SEEN), "a reviewer name is required"),
    (("approve", MTTR, "--seen", SEEN), "the following arguments are required: --reviewer\n"),
    (("reject", MTTR, "--reviewer", "bob", "--seen", SEEN), "the following arguments are required: --note\n"),
    (("reject", MTTR, "--reviewer", "bob", "--note", " ", "--seen", SEEN), "a rejection needs a note"),
    (("approve", MTTR, "--reviewer", "alice"), "the following arguments are required: --seen\n"),
    (("reject", MTTR, "--reviewer", "bob", "--note", "x"), "the following arguments are required: --seen\n"),
    (("edit", MTTR, "--payload", "edited.json", "--reviewer", "carol"),
     "the following arguments are required: --seen\n"),
    (("approve", f"{DOMAIN}:Mean Time To Repair (MTTR)", "--reviewer", "alice", "--seen", SEEN),
     f"corroborated by term {MTTR}"),
    (("approve", f"{DOMAIN}:Grouping (Composite)", "--reviewer", "alice", "--seen", SEEN),
     "no uncorroborated key parameter 'Grouping (Composite)'"),
    (("list", "--doc-id", "NO-SUCH-DOC"), "NO-SUCH-DOC: no extracted knowledge"),
    (("show", "f_0000000000"), "f_0000000000: no formula f_0000000000"),
    (("approve", MTTR, "--reviewer", "alice", "--seen", "sha256:12ab"), "'sha256:12ab' is not a content fingerprint"),
    (("reject", MTTR, "--reviewer", "bob", "--note", "x", "--seen", "0" * 64),
     f"not recorded: {MTTR} (MTTR) changed since it was shown (shown sha256:{'0' * 16}, stored now sha256:"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_INPUTS,
                         ids=[" ".join(a[:2]) + f" #{n}" for n, (a, _) in enumerate(BAD_INPUTS)])
def test_a_bad_id_document_or_argument_is_refused_and_writes_nothing(extracted, capsys, argv, message):
    argv = [seen(capsys, MTTR) if arg == SEEN else arg for arg in argv]
    before = snapshot(extracted)
    code, out, err = run_cli(capsys, "review", *argv)
    assert code != 0 and message in err and "Traceback" not in err
    assert snapshot(extracted) == before


BAD_PAYLOADS = [
    ("missing.json", None, "cannot read the payload"),
    ("not_json.json", "{definition: oops", "not a UTF-8 JSON file"),
    ("wrong_type.json", {"definition": 5}, "definition: Input should be a valid string"),
    ("unknown_field.json", {"formula_latex": "x"}, "formula_latex: Extra inputs are not permitted"),
    ("other_entry.json", {"term_id": MTBF}, f"term_id is '{MTBF}', but the entry under review is {MTTR}"),
    ("other_document.json", {"provenance": {"doc_id": "SKT-STD-PRM-001", "span": "MTTR"}},
     "provenance.doc_id is 'SKT-STD-PRM-001'"),
    ("bad_enum.json", {"subdomain_tags": ["finance"]}, "subdomain_tags.0: Input should be"),
]


@pytest.mark.parametrize(("name", "change", "message"), BAD_PAYLOADS, ids=[p[0] for p in BAD_PAYLOADS])
def test_an_invalid_edited_payload_is_refused_naming_the_file_and_writes_nothing(
    extracted, capsys, tmp_path, name, change, message
):
    path = tmp_path / name
    if isinstance(change, dict):
        path = _entry_file(capsys, tmp_path, MTTR, **change).rename(path)
    elif change is not None:
        path.write_text(change, encoding="utf-8")
    shown = seen(capsys, MTTR)
    before = snapshot(extracted)
    code, _, err = run_cli(capsys, "review", "edit", MTTR, "--payload", str(path), "--reviewer", "carol",
                           "--seen", shown)
    assert code == 1 and f"error: {path}: " in err and message in err
    assert snapshot(extracted) == before


def test_the_installed_command_lists_approves_and_shows_in_real_processes(extracted):
    env = {**os.environ, "KNOWLEDGE_DB": str(extracted.path)}

    def command(*argv):
        return subprocess.run([sys.executable, "-m", "knowledge_assets.command", "review", *argv],
                              capture_output=True, text=True, env=env, cwd=PROJECT_ROOT, check=False)

    listed = command("list", "--doc-id", KPI, "--json")
    assert listed.returncode == 0, listed.stderr
    first = json.loads(listed.stdout)[0]
    approved = command("approve", first["id"], "--reviewer", "alice", "--note", "confirmed with the plant department",
                       "--seen", first["fingerprint"])
    assert approved.returncode == 0, approved.stderr
    shown = command("show", first["id"])
    assert json.loads(shown.stdout)["state"] == "approved"
    refused = command("approve", "t_0000000000", "--reviewer", "alice", "--seen", first["fingerprint"])
    assert refused.returncode == 1 and refused.stderr.startswith("error: t_0000000000")
    assert len(extracted.fetch("SELECT * FROM knowledge_reviews")) == 1


def test_review_list_computes_the_documents_review_states_once(extracted, capsys, monkeypatch):
    # The pending list and the tally under it are two views of one computation: every entry's
    # state is read from the history and fingerprinted once per command, not once per figure.
    from knowledge_assets.review import status

    real, computed = status.review_statuses, []

    def counted(store, doc_id):
        computed.append(doc_id)
        return real(store, doc_id)

    for name, module in list(sys.modules.items()):
        if name.startswith("knowledge_assets.review.") and getattr(module, "review_statuses", None) is real:
            monkeypatch.setattr(module, "review_statuses", counted)
    code, out, _ = run_cli(capsys, "review", "list", "--doc-id", KPI)
    assert code == 0 and f"pending in {KPI}; decided 0/" in out
    assert computed == [KPI]


MTTR_DEFINITION = "MTTR means the average time needed to return a unit to service after a breakdown."
MTTR_REWORDED = "MTTR means the average time needed to bring a unit back into service after a breakdown."


def test_a_decision_passing_the_fingerprint_seen_before_a_run_changed_the_entry_is_refused_with_the_difference(
    pipeline, capsys
):
    pipeline.extract()
    seen = {i["id"]: i["fingerprint"] for i in _pending(capsys)}
    code, out, err = run_cli(capsys, "review", "approve", MTTR, "--reviewer", "alice", "--seen", seen[MTTR][7:19])
    assert code == 0, err
    assert out.rstrip().endswith(f"(content {seen[MTTR][:23]})")
    text = pipeline.document.read_text(encoding="utf-8")
    pipeline.document.write_text(text.replace(MTTR_DEFINITION, MTTR_REWORDED).replace(
        "MTBF is defined as the average operating time", "MTBF is defined as the mean operating time"), "utf-8")
    pipeline.extract()
    now = {i["id"]: i["fingerprint"] for i in _pending(capsys)}
    before = snapshot(pipeline.store)

    # The approval's own fingerprint, seen before the run: an earlier decision recorded its content.
    code, out, err = run_cli(capsys, "review", "approve", MTTR, "--reviewer", "alice", "--seen", seen[MTTR])
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        f"error: not recorded: {MTTR} (MTTR) changed since it was shown: definition (shown {seen[MTTR][:23]}, "
        f"stored now {now[MTTR][:23]}); look at it again and decide on what is stored now",
        f'  definition: "{MTTR_DEFINITION}" → "{MTTR_REWORDED}"',
    ]
    # Never decided on: what was shown is not recorded anywhere, so the content now is printed whole.
    code, _, err = run_cli(capsys, "review", "reject", MTBF, "--reviewer", "bob", "--note", "vague",
                           "--seen", seen[MTBF][:19])
    assert code == 1 and "Traceback" not in err
    first, unknown, *fields = err.splitlines()
    assert first.startswith(f"error: not recorded: {MTBF} (MTBF) changed since it was shown (shown {seen[MTBF][:19]}, "
                            f"stored now {now[MTBF][:23]})")
    assert unknown == "  what was shown is not known; stored now:"
    assert '  definition: "MTBF is defined as the mean operating time' in "\n".join(fields)
    assert snapshot(pipeline.store) == before

    code, _, err = run_cli(capsys, "review", "approve", MTTR, "--reviewer", "alice", "--seen", now[MTTR][:23])
    assert code == 0, err


def test_list_full_shows_what_an_approval_takes_each_content_field_on_one_line(extracted, capsys):
    code, out, err = run_cli(capsys, "review", "list", "--doc-id", KPI, "--full")
    assert code == 0, err
    lines = out.split(f"{MTTR}  ", 1)[1].splitlines()[1:]
    block = "\n".join(itertools.takewhile(lambda line: line.startswith("      "), lines))  # MTTR's own lines
    content = reviewed_content("term", find(extracted, MTTR).entity)
    assert f'      definition: {json.dumps(content["definition"], ensure_ascii=False)}' in block
    assert '      full_name: "Mean Time To Repair"' in block or "      full_name: -" in block
    # The JSON listing carries the same content the fingerprint hashes.
    (listed,) = [item for item in _pending(capsys) if item["id"] == MTTR]
    assert listed["content"] == content and fingerprint(listed["content"]) == listed["fingerprint"]
    # Without --full, the text listing stays as it was.
    _, short, _ = run_cli(capsys, "review", "list", "--doc-id", KPI)
    assert "      definition:" not in short
