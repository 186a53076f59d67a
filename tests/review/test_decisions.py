"""A decision binds to the content that was shown (review/decisions.py, D82): a decision naming
other content than the entry's content stored now is refused, nothing is written, and the
refusal carries the content now and what changed. Real extracted store; the content a reviewer
saw before a run changed it is an earlier wording of the entry's own content."""

import re
from dataclasses import replace

import pytest

from knowledge_assets.ids import term_id
from knowledge_assets.review.decisions import ContentChanged, Shown, history, record_decision, restore_decision
from knowledge_assets.review.entities import ReviewError, find
from knowledge_assets.review.fingerprint import fingerprint, reviewed_content
from tests.review.conftest import KPI, snapshot

MTTR = term_id(KPI, "Mean Time To Repair")
MTTR_DEFINITION = "MTTR means the average time needed to return a unit to service after a breakdown."
EARLIER = "MTTR is the mean time to repair."


def _contents(store):
    """The entry, its content stored now, and the content a page showed before a run changed it."""
    item = find(store, MTTR)
    now = reviewed_content("term", item.entity)
    return item, now, {**now, "definition": EARLIER}


def test_a_decision_on_the_content_shown_is_recorded_and_one_on_content_a_run_changed_is_refused(extracted):
    item, now, earlier = _contents(extracted)
    before = snapshot(extracted)
    with pytest.raises(ContentChanged) as refused:
        record_decision(extracted, item, "approved", "alice", shown=Shown(fingerprint(earlier), earlier))
    assert snapshot(extracted) == before
    exc = refused.value
    assert (exc.changed, exc.content_now, exc.content_shown) == (["definition"], now, earlier)
    assert (exc.shown, exc.now) == (fingerprint(earlier), fingerprint(now))
    summary, *details = str(exc).splitlines()
    assert summary == (f"not recorded: {MTTR} (MTTR) changed since it was shown: definition (shown "
                       f"{fingerprint(earlier)[:23]}, stored now {fingerprint(now)[:23]}); look at it again and "
                       "decide on what is stored now")
    assert details == [f'  definition: "{EARLIER}" → "{MTTR_DEFINITION}"']

    recorded = record_decision(extracted, item, "approved", "alice", shown=Shown(fingerprint(now), now))
    assert [r.review_id for r in history(extracted, KPI)] == [recorded.review_id]
    assert recorded.fingerprint == fingerprint(now)


def test_content_a_form_claims_is_believed_only_when_it_hashes_to_the_fingerprint_shown(extracted):
    item, now, earlier = _contents(extracted)
    forged = {**now, "definition": "whatever the form likes"}
    with pytest.raises(ContentChanged) as refused:
        record_decision(extracted, item, "approved", "alice", shown=Shown(fingerprint(earlier), forged))
    assert refused.value.content_shown is None and refused.value.changed is None
    assert str(refused.value).splitlines()[1:3] == ["  what was shown is not known; stored now:", '  term: "MTTR"']
    # A forged content cannot make other content pass either: the fingerprint decides.
    with pytest.raises(ContentChanged):
        record_decision(extracted, item, "approved", "alice", shown=Shown(fingerprint(earlier), now))
    assert history(extracted, KPI) == []


@pytest.mark.parametrize("typed", [
    lambda fp: fp, lambda fp: fp[:19], lambda fp: fp[7:19], lambda fp: fp[:30].upper().replace("SHA256", "sha256"),
    lambda fp: f"  {fp[:23]} ",
], ids=["whole", "sha256-and-12", "12-digits", "upper-case", "spaces"])
def test_a_fingerprint_is_accepted_whole_or_by_its_first_12_hex_digits(extracted, typed):
    item, now, _ = _contents(extracted)
    record_decision(extracted, item, "approved", "alice", shown=Shown(typed(fingerprint(now))))
    assert [r.decision for r in history(extracted, KPI)] == ["approved"]


@pytest.mark.parametrize("typed", ["sha256:0123456789a", "0123456789a", "md5:0123456789abcdef", "sha256:", "",
                                   "0123456789abcdeg"])
def test_anything_but_a_fingerprint_or_12_of_its_digits_is_refused_and_writes_nothing(extracted, typed):
    item, _, _ = _contents(extracted)
    with pytest.raises(ReviewError, match=re.escape(f"{typed!r} is not a content fingerprint: give sha256:<hex>, "
                                                     "or at least its first 12 hex digits")):
        record_decision(extracted, item, "approved", "alice", shown=Shown(typed))
    assert history(extracted, KPI) == []


def test_a_fingerprint_alone_names_the_difference_when_an_earlier_decision_recorded_its_content(extracted):
    item, now, earlier = _contents(extracted)
    recorded = record_decision(extracted, item, "approved", "bob")
    # bob's approval as it was recorded before a run changed the definition
    extracted.append("knowledge_reviews", [replace(recorded, review_id="rv_earlier", reviewed_content=earlier,
                                                   fingerprint=fingerprint(earlier)).row()])
    with pytest.raises(ContentChanged) as refused:
        record_decision(extracted, item, "approved", "alice", shown=Shown(fingerprint(earlier)[7:19]))
    assert refused.value.shown == fingerprint(earlier)  # the prefix, resolved to the one content it starts
    assert refused.value.changed == ["definition"] and refused.value.content_shown == earlier
    assert len(history(extracted, KPI)) == 2


def test_an_undo_restoring_an_earlier_decision_is_bound_to_the_content_its_page_showed(extracted):
    item, now, earlier = _contents(extracted)
    rejected = record_decision(extracted, item, "rejected", "bob", "too vague")
    with pytest.raises(ContentChanged):
        restore_decision(extracted, item, rejected, "alice", "undo", shown=Shown(fingerprint(earlier)))
    restored = restore_decision(extracted, item, rejected, "alice", "undo", shown=Shown(fingerprint(now)))
    assert [r.decision for r in history(extracted, KPI)] == ["rejected", "rejected"]
    assert restored.reviewer == "alice"
