"""A reviewer's name and note are bounded where decisions are recorded (review/decisions.py),
which the command line and the web form (tests/review/web/test_decision_limits.py) both
record through: the command refuses in one line and writes nothing."""

from knowledge_assets.review.decisions import NOTE_MAX_CHARS, REVIEWER_MAX_CHARS
from knowledge_assets.review.document_queues import worklist
from tests.review.conftest import KPI, run_cli, seen, snapshot


def test_the_command_line_refuses_a_name_or_a_note_over_its_limit_and_writes_nothing(extracted, capsys):
    ref = worklist(extracted, KPI)[0].id
    shown = seen(capsys, ref)
    before = snapshot(extracted)
    long_name = ["review", "approve", ref, "--reviewer", "x" * 200_000, "--seen", shown]
    long_note = ["review", "reject", ref, "--reviewer", "bob", "--note", "n" * (NOTE_MAX_CHARS + 1), "--seen", shown]
    assert run_cli(capsys, *long_name) == (
        1, "", f"error: a reviewer name has at most {REVIEWER_MAX_CHARS} characters; this one has 200,000\n")
    assert run_cli(capsys, *long_note) == (
        1, "", f"error: a note has at most {NOTE_MAX_CHARS:,} characters; this one has {NOTE_MAX_CHARS + 1:,}\n")
    assert snapshot(extracted) == before
    at_the_limit = ["review", "reject", ref, "--reviewer", "x" * REVIEWER_MAX_CHARS, "--note", "n" * NOTE_MAX_CHARS,
                    "--seen", shown]
    assert run_cli(capsys, *at_the_limit)[0] == 0

