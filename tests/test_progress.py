"""Progress of a run: stages and calls reported to the installed sink, nothing without one, and
the terminal's lines."""

from __future__ import annotations

import io
import time

import pytest

from knowledge_assets import progress
from knowledge_assets.progress import StageProgress, TerminalProgress
from tests.support.progress import Recorded


def test_a_stage_and_its_calls_reach_the_installed_sink():
    heard = Recorded()
    with progress.reporting(heard), progress.stage("D1", "glossary"):
        progress.calls_planned(2)
        progress.call_answered()
        progress.calls_planned(0)  # nothing planned is no news
        progress.call_answered()
    assert heard.events == [("started", "glossary", 0, 0), ("advanced", "glossary", 0, 2),
                            ("advanced", "glossary", 1, 2), ("advanced", "glossary", 2, 2),
                            ("ended", "glossary", 2, 2)]


def test_without_a_sink_nothing_is_reported_and_calls_outside_a_stage_are_ignored():
    heard = Recorded()
    with progress.stage("D1", "rules"):
        progress.calls_planned(3)
    with progress.reporting(heard):
        progress.call_answered()
    assert heard.events == []


def test_the_eta_is_the_calls_left_at_the_mean_wall_time_per_answered_call():
    stage = StageProgress("D1", "rules", started=0.0, calls_total=6, calls_done=2, calls_started=10.0)
    assert stage.eta(now=14.0) == 8.0
    assert StageProgress("D1", "rules", started=0.0, calls_total=6).eta(now=14.0) is None


def test_the_terminal_rewrites_a_running_line_and_leaves_each_finished_stage_with_its_time():
    out = io.StringIO()
    terminal = TerminalProgress(out, {"D1": "one.md", "D2": "two.pdf"})
    with progress.reporting(terminal), progress.stage("D2", "glossary"):
        progress.calls_planned(3)
        progress.call_answered()
    lines = out.getvalue().split("\n")
    assert lines[-1] == ""
    shown = [state.removesuffix("\x1b[K") for state in lines[0].split("\r")[1:]]
    assert shown[0].startswith("[2/2] D2  glossary  0.0s")
    assert shown[2].startswith("[2/2] D2  glossary  1/3 calls  ") and " ETA " in shown[2]
    assert shown[-1].startswith("[2/2] D2  glossary  1 call  ") and shown[-1].endswith("s  two.pdf")


def test_calls_asked_ahead_are_shown_beside_the_stages_own_and_a_wait_on_them_alone_has_their_eta():
    out = io.StringIO()
    with progress.reporting(TerminalProgress(out, {"D1": "one.md"})):
        with progress.stage("D1", "formulas"):
            progress.calls_planned(2)
            progress.calls_planned(4, ahead=True)
            asked_in = progress.current_line()
            progress.call_answered()
            progress.call_answered(ahead=True, line=asked_in)
        with progress.stage("D1", "later_stages"):  # the step's wait on calls asked ahead alone
            progress.call_answered(ahead=True, line=asked_in)  # asked in the stage before: not this one's
            progress.calls_planned(3, ahead=True)
            progress.call_answered(ahead=True, line=progress.current_line())
    lines = out.getvalue().split("\n")
    formulas = [state.removesuffix("\x1b[K") for state in lines[0].split("\r")[1:]]
    assert formulas[2].startswith("[1/1] D1  formulas  0/2 calls  +0/4 asked ahead  ")
    assert formulas[4].startswith("[1/1] D1  formulas  1/2 calls  +1/4 asked ahead  ") and " ETA " in formulas[4]
    assert formulas[-1].startswith("[1/1] D1  formulas  1 call  +1 asked ahead  ")
    later = [state.removesuffix("\x1b[K") for state in lines[1].split("\r")[1:]]
    assert later[1].startswith("[1/1] D1  later_stages  0/3 asked ahead  ")
    assert later[2].startswith("[1/1] D1  later_stages  1/3 asked ahead  ") and " ETA " in later[2]
    assert later[-1].startswith("[1/1] D1  later_stages  1 asked ahead  ") and later[-1].endswith("s  one.md")


def test_the_eta_is_of_the_stages_own_calls_and_of_those_asked_ahead_only_when_it_has_none():
    own_answered = StageProgress("D1", "formulas", started=0.0, calls_total=1, calls_done=1, ahead_total=5,
                                 ahead_done=1, calls_started=10.0)
    assert own_answered.calls_left() == 0  # its line ends without waiting on the calls asked ahead
    waiting = StageProgress("D1", "later_stages", started=0.0, ahead_total=6, ahead_done=2, calls_started=10.0)
    assert waiting.eta(now=14.0) == 8.0


def test_a_stage_that_raises_ends_failed_with_its_time():
    out = io.StringIO()
    with progress.reporting(TerminalProgress(out, {"D1": "one.md"})), pytest.raises(ValueError):
        with progress.stage("D1", "parsed_chunks"):
            raise ValueError("bad input")
    final = out.getvalue().rstrip("\n").split("\r")[-1]
    assert final.startswith("[1/1] D1  parsed_chunks  FAILED after ") and final.endswith("s  one.md\x1b[K")


def test_the_running_line_is_rewritten_while_a_long_call_is_out_and_not_after_the_stage():
    out = io.StringIO()
    with TerminalProgress(out, {"D1": "one.md"}, refresh_s=0.05) as terminal, progress.reporting(terminal):
        with progress.stage("D1", "domain_context"):
            progress.calls_planned(1)
            time.sleep(0.4)
            progress.call_answered()
        after = out.getvalue()
        time.sleep(0.2)
    line, rest = out.getvalue().split("\n", 1)
    states = line.split("\r")[1:]
    waiting = [state for state in states if state.startswith("[1/1] D1  domain_context  0/1 calls  ")]
    assert len(waiting) >= 4 and len(set(waiting)) >= 2  # the elapsed time moved
    assert rest == "" and out.getvalue() == after


class _Stages(list):
    """A sink keeping the stages it heard end, whole."""

    def started(self, stage: StageProgress) -> None:
        self.append(("started", stage))

    def advanced(self, stage: StageProgress) -> None:
        self.append(("advanced", stage))

    def ended(self, stage: StageProgress) -> None:
        self.append(("ended", stage))


def test_a_stage_seen_in_another_process_s_events_reaches_the_sink_once_ended():
    heard = _Stages()
    progress.stage_seen("D1", "glossary", 10.0, 12.5)  # no sink: nothing, and no error
    with progress.reporting(heard):
        progress.stage_seen("D1", "glossary", 10.0, 12.5)
        progress.stage_seen("D2", "rules", 11.0, 11.5, failed=True)
    assert [(event, p.doc_id, p.stage, p.elapsed(), p.failed) for event, p in heard] == [
        ("ended", "D1", "glossary", 2.5, False), ("ended", "D2", "rules", 0.5, True)]
