"""Every decision form carries what its page showed, and a decision on an entry a run changed
since the page was opened is refused (409) with the content now and the difference, nothing
written (D82). A real pipeline re-runs an edited copy of the Markdown sample between the page
and the form; the real server answers over HTTP."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import quote

from knowledge_assets.ids import term_id
from knowledge_assets.review.decisions import history
from knowledge_assets.review.status import review_statuses
from tests.review.conftest import KPI, snapshot
from tests.review.web.server import review_server
from tests.review.web.test_app import decide, entry_path, hidden, hidden_entries, text_of

MTTR = term_id(KPI, "Mean Time To Repair")
MTBF = term_id(KPI, "Mean Time Between Failures")
MTTR_DEFINITION = "MTTR means the average time needed to return a unit to service after a breakdown."
MTTR_REWORDED = "MTTR means the average time needed to bring a unit back into service after a breakdown."
MTBF_CHANGE = ("MTBF is defined as the average operating time", "MTBF is defined as the mean operating time")


def _rerun_with(pipeline, *changes: tuple[str, str]) -> None:
    text = pipeline.document.read_text(encoding="utf-8")
    for before, after in changes:
        assert before in text
        text = text.replace(before, after)
    pipeline.document.write_text(text, encoding="utf-8")
    pipeline.extract()


def _form(page, decision: str, **fields) -> dict:
    """The entry page's form as the browser would send it, with what the page showed."""
    return {"csrf": page.csrf, "doc_id": KPI, "decision": decision, "seen": hidden(page.text, "seen"),
            "seen_content": hidden(page.text, "seen_content"), **fields}


def _difference(html: str) -> dict[str, tuple[str, str]]:
    rows = re.findall(r'<tr data-field="([^"]+)"><td class="field">[^<]*</td><td class="was">(.*?)</td>'
                      r'<td class="now">(.*?)</td></tr>', html, re.S)
    return {name: (unescape(was), unescape(now)) for name, was, now in rows}


def test_a_decision_on_an_entry_a_run_changed_after_its_page_was_opened_is_refused_showing_what_changed(
    pipeline, tmp_path
):
    pipeline.extract()
    with review_server(pipeline.store, tmp_path / "server.log") as running:
        client = running.client()
        assert decide(client, MTBF, KPI, "approve", reviewer="bob").status == 303
        mttr_page, mtbf_page = client.get(entry_path(MTTR, KPI)), client.get(entry_path(MTBF, KPI))
        _rerun_with(pipeline, (MTTR_DEFINITION, MTTR_REWORDED), MTBF_CHANGE)
        before = snapshot(pipeline.store)
        path = f"/entries/{quote(MTTR, safe='')}"
        approved = client.post(path, _form(mttr_page, "approve", reviewer="alice"))
        edited = client.post(path, _form(mttr_page, "edit", reviewer="alice", **{
            "field.term": "MTTR", "field.definition": "My corrected definition of MTTR."}))
        review_id = re.search(r'name="review_id" value="([^"]+)"', mtbf_page.text)[1]
        undone = client.post(f"/entries/{quote(MTBF, safe='')}",
                             _form(mtbf_page, "undo", reviewer="bob", review_id=review_id))
        forged = client.post(path, _form(mttr_page, "approve", reviewer="alice", seen_content='{"definition": "x"}'))
        unbound = client.post(path, {**_form(mttr_page, "approve", reviewer="alice"), "seen": ""})
        assert snapshot(pipeline.store) == before  # nothing of the five was recorded

        assert approved.status == 409
        shown = text_of(approved.text)
        assert "Not recorded: this entry changed since the page showed it" in shown
        assert _difference(approved.text) == {"definition": (MTTR_DEFINITION, MTTR_REWORDED)}
        assert re.search(r'<dd data-field="definition" class="changed">' + re.escape(MTTR_REWORDED), approved.text)
        assert f'href="{entry_path(MTTR, KPI).replace("&", "&amp;")}"' in approved.text  # review it as it is now
        assert edited.status == 409 and "Your edit, not saved" in text_of(edited.text)
        assert "My corrected definition of MTTR." in text_of(edited.text)
        assert undone.status == 409 and list(_difference(undone.text)) == ["definition"]
        was, now = _difference(undone.text)["definition"]
        assert was.startswith(MTBF_CHANGE[0]) and now.startswith(MTBF_CHANGE[1])
        # A form claiming other content than its fingerprint's is not believed: no difference to show.
        assert forged.status == 409 and _difference(forged.text) == {}
        assert "What the page showed is not recorded anywhere" in text_of(forged.text)
        assert unbound.status == 400 and "does not say which content of the entry it showed" in text_of(unbound.text)

        # Opened again, the page shows the new content, and the decision on it is recorded.
        assert decide(client, MTTR, KPI, "approve", reviewer="alice").status == 303
    [latest] = [r for r in history(pipeline.store, KPI) if r.key.ref == MTTR]
    assert latest.reviewed_content["definition"] == MTTR_REWORDED


def _checkboxes(html: str) -> dict[str, str]:
    """The queue's checkbox values (`<fingerprint> <ref>`), by ref."""
    values = [unescape(v) for v in re.findall(r'<input type="checkbox" name="entry" value="([^"]+)"', html)]
    return {value.split(" ", 1)[1]: value for value in values}


def test_a_bulk_decision_with_an_entry_changed_since_the_queue_was_shown_records_nothing_and_offers_the_others(
    pipeline, tmp_path
):
    pipeline.extract()
    with review_server(pipeline.store, tmp_path / "server.log") as running:
        client = running.client()
        queue = client.get(f"/documents/{KPI}")
        boxes = _checkboxes(queue.text)
        others = [ref for ref in boxes if ref.startswith("t_") and ref not in (MTTR, MTBF)][:2]
        ticked = [("entry", boxes[ref]) for ref in (MTTR, *others)]
        _rerun_with(pipeline, (MTTR_DEFINITION, MTTR_REWORDED))
        before = snapshot(pipeline.store)
        asked = client.post(f"/documents/{KPI}/decide", [("csrf", queue.csrf), ("decision", "approve"),
                                                         ("reviewer", "alice"), *ticked])
        rejected = client.post(f"/documents/{KPI}/decide", [("csrf", queue.csrf), ("decision", "reject"),
                                                            ("reviewer", "alice"), ("note", "not a term"), *ticked])
        assert snapshot(pipeline.store) == before
        # Approving asks first: a changed entry is refused before the count is confirmed.
        assert asked.status == 409 and "Approve these" not in text_of(asked.text)
        assert rejected.status == 409
        assert re.findall(r'<article class="changed-entry" data-ref="([^"]+)"', rejected.text) == [MTTR]
        now = next(s for s in review_statuses(pipeline.store, KPI) if s.key.ref == MTTR)
        assert f"stored now is sha256:{now.fingerprint[7:23]}" in text_of(rejected.text)
        assert re.search(r'<dd data-field="definition">' + re.escape(MTTR_REWORDED), rejected.text)

        # The refusal offers the unchanged ones, bound to what the queue showed of them.
        offered = hidden_entries(rejected.text)
        assert offered == [("entry", boxes[ref]) for ref in others]
        assert "Reject the other 2, unchanged" in text_of(rejected.text)
        done = client.post(f"/documents/{KPI}/decide", [("csrf", queue.csrf), ("decision", "reject"),
                                                        ("reviewer", "alice"), ("note", "not a term"), *offered,
                                                        ("confirm", str(len(offered)))])
        assert done.status == 303
        assert sorted(r.key.ref for r in history(pipeline.store, KPI)) == sorted(others)

        # The queue's undo of that batch is bound to the entries as the queue shows them.
        batch = client.get(done.headers["location"])
        token = re.search(r"batch=([\w-]+)", done.headers["location"])[1]
        bound = hidden_entries(batch.text)
        assert sorted(bound) == sorted(("entry", f"{s.fingerprint} {s.key.ref}")
                                       for s in review_statuses(pipeline.store, KPI) if s.key.ref in others)
        other_content = [("entry", "sha256:" + "0" * 64 + " " + others[0]), bound[1]]
        decided = snapshot(pipeline.store)
        refused = client.post(f"/documents/{KPI}/undo", [("csrf", batch.csrf), ("reviewer", "alice"),
                                                         ("batch", token), *other_content])
        assert refused.status == 409 and snapshot(pipeline.store) == decided
        assert f"?batch={token}" in refused.text  # back to the queue, which offers the undo again
        undone = client.post(f"/documents/{KPI}/undo", [("csrf", batch.csrf), ("reviewer", "alice"),
                                                        ("batch", token), *bound])
        assert undone.status == 303
    assert [r.decision for r in history(pipeline.store, KPI)][-2:] == ["withdrawn", "withdrawn"]
