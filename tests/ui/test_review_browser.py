"""Review in the browser as an expert does it: Debian's Chromium headless, driven over the
DevTools protocol (keys pressed, not forms posted), against the real review server and a
store the real pipeline wrote. The span's highlight is checked against PDFium's own character
boxes, and the approval is checked again after the pipeline runs a second time; an approval of
an entry a run changed while its page was open is refused, on the page and on the command line.
Screenshots land in test-output/review/."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import time
import unicodedata
import urllib.request
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import pypdfium2 as pdfium
import pytest
from websockets.sync.client import connect

from knowledge_assets.ids import term_id
from knowledge_assets.ingest.documents import identify
from knowledge_assets.review.decisions import history, record_decision
from knowledge_assets.review.document_queues import queue_entries, worklist
from knowledge_assets.review.status import review_statuses
from knowledge_assets.review.web.pages import QUEUE_PAGE_SIZE
from knowledge_assets.store.registry import register
from tests.conftest import PROJECT_ROOT, SAMPLE_MARKDOWN, SAMPLE_PDF
from tests.review.conftest import KPI, PRM
from tests.review.web.server import review_server
from tests.support.command_process import cli_process
from tests.support.materialised import materialised_samples, run_document
from tests.ui.servers import free_port

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = PROJECT_ROOT / "test-output" / "review"
DEADLINE_S = 60.0
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian's Chromium is not installed at /usr/bin/chromium: .ci/run installs it with "
        "`apt-get install chromium`, which needs the Debian mirrors to be reachable",
    ),
]
_KEYS = {"Enter": ("Enter", 13), "Escape": ("Escape", 27)}


class Browser:
    """One Chromium tab over the DevTools protocol: navigate, evaluate, press keys, screenshot."""

    def __init__(self, socket):
        self.socket = socket
        self.next_id = 0

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=DEADLINE_S))
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message["result"]

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, what: str):
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
            except AssertionError:  # the page is being replaced
                value = None
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"{what}: not reached; the page shows {self.evaluate('location.href')}")

    def open(self, url: str) -> None:
        self.call("Page.navigate", url=url)
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'", f"{url} loaded")

    def press(self, key: str) -> None:
        name, code = _KEYS[key] if key in _KEYS else (key, ord(key.upper()))
        text = {"text": key} if len(key) == 1 else {}
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=name, windowsVirtualKeyCode=code,
                      **(text if kind == "keyDown" else {}))

    def type(self, text: str) -> None:
        self.call("Input.insertText", text=text)

    def screenshot(self, name: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / name
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))
        return path


def _page_target(port: int) -> str | None:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as response:
        pages = [t for t in json.load(response) if t["type"] == "page"]
    return pages[0]["webSocketDebuggerUrl"] if pages else None


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    root = tmp_path_factory.mktemp("review-browser")
    with pytest.MonkeyPatch.context() as env, materialised_samples(root, env) as samples:
        assert all(result.success for result in samples.results.values())
        with review_server(samples.store, root / "review-server.log") as server:
            port = free_port()
            chromium = subprocess.Popen(
                [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 f"--user-data-dir={root / 'chromium'}", f"--remote-debugging-port={port}", "--window-size=1400,1000",
                 "about:blank"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            try:
                deadline = time.monotonic() + DEADLINE_S
                target = None
                while target is None and time.monotonic() < deadline:
                    try:
                        target = _page_target(port)
                    except OSError:
                        time.sleep(0.2)
                assert target, "Chromium's DevTools endpoint did not answer"
                with connect(target, max_size=None, open_timeout=DEADLINE_S) as socket:
                    browser = Browser(socket)
                    browser.call("Page.enable")
                    yield samples, server, browser
            finally:
                chromium.terminate()
                chromium.wait(timeout=30)


def _flat(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", text) if not ch.isspace())


def _text_under(page: int, boxes_in_points: list[dict]) -> str:
    """What PDFium reads inside the boxes (top-left origin, points), box after box."""
    document = pdfium.PdfDocument(str(SAMPLE_PDF))
    try:
        pdf_page = document[page]
        _, _, _, top = pdf_page.get_bbox()
        textpage = pdf_page.get_textpage()
        return "".join(textpage.get_text_bounded(b["left"], top - b["bottom"], b["right"], top - b["top"])
                       for b in boxes_in_points)
    finally:
        document.close()


def _span_char_boxes(page: int, span: str) -> list[tuple[float, float, float, float]]:
    """PDFium's boxes of the span's characters, found by searching the page for its first line."""
    document = pdfium.PdfDocument(str(SAMPLE_PDF))
    try:
        pdf_page = document[page]
        _, _, _, top = pdf_page.get_bbox()
        textpage = pdf_page.get_textpage()
        first_line = span.splitlines()[0]
        searcher = textpage.search(first_line, match_case=True)
        found = searcher.get_next()
        assert found, f"{first_line!r} not on page {page + 1}"
        index, count = found
        boxes = [textpage.get_charbox(i) for i in range(index, index + count)]
        return [(x0, top - y1, x1, top - y0) for x0, y0, x1, y1 in boxes if x1 > x0]  # to top-left origin
    finally:
        document.close()


_GEOMETRY = """(() => {
  const image = document.getElementById('page-image').getBoundingClientRect();
  const figure = document.getElementById('page-figure');
  const width = parseFloat(figure.dataset.pageWidth), height = parseFloat(figure.dataset.pageHeight);
  return [...document.querySelectorAll('rect.span-box')].map(rect => {
    const box = rect.getBoundingClientRect();
    return {left: (box.left - image.left) / image.width * width,
            right: (box.right - image.left) / image.width * width,
            top: (box.top - image.top) / image.height * height,
            bottom: (box.bottom - image.top) / image.height * height};
  });
})()"""


def test_an_expert_opens_the_pdf_queue_checks_the_highlight_approves_with_a_key_and_the_approval_survives_a_rerun(
    session,
):
    samples, server, browser = session
    store = server.store
    browser.open(f"{server.url}/documents/{PRM}")
    # The queue's first page (D88: 100 entries a page, the document has more).
    assert browser.evaluate("document.querySelectorAll('tr[data-href]').length") == min(
        QUEUE_PAGE_SIZE, len(review_statuses(store, PRM)))
    first, second = worklist(store, PRM)[:2]
    browser.press("j")  # select the first row
    browser.press("Enter")
    browser.wait_for(f"location.pathname === '/entries/{first.id}' && document.readyState === 'complete'",
                     "the first entry")
    browser.wait_for("document.getElementById('page-image').complete && "
                     "document.getElementById('page-image').naturalWidth > 0", "the page image")

    # The highlight, as the browser draws it over the page image, covers exactly the span's words.
    drawn = browser.evaluate(_GEOMETRY)
    entry = store.fetch("SELECT provenance FROM glossary WHERE doc_id = ? AND term_id = ?", [PRM, first.id])[0]
    span, page = entry["provenance"]["span"], entry["provenance"]["page"]
    assert drawn, "no highlight box on the page image"
    assert _flat(_text_under(page, drawn)) == _flat(span)
    for left, top, right, bottom in _span_char_boxes(page, span):
        centre_x, centre_y = (left + right) / 2, (top + bottom) / 2
        assert any(b["left"] <= centre_x <= b["right"] and b["top"] <= centre_y <= b["bottom"] for b in drawn)
    browser.screenshot("pdf_entry.png")

    # `a` without a name asks for it; with one, the entry is approved and the next one opens.
    browser.press("a")
    assert browser.evaluate("document.activeElement.name") == "reviewer"
    browser.type("Ayu Lestari")
    browser.press("Escape")
    browser.press("a")
    browser.wait_for(f"location.pathname === '/entries/{second.id}' && location.search.includes('done=approved')",
                     "the next unreviewed entry")
    assert [(r.key.ref, r.decision, r.reviewer) for r in history(store, PRM)] == [(first.id, "approved", "Ayu Lestari")]
    assert browser.evaluate("document.querySelector('#approve-form input[name=reviewer]').value") == "Ayu Lestari"

    # The pipeline runs again; the approval still applies to the unchanged content.
    rerun = run_document(samples.instance, PRM)
    assert rerun.success
    browser.open(f"{server.url}/entries/{first.id}?doc_id={PRM}")
    assert browser.evaluate("document.getElementById('entry-state').dataset.state") == "approved"
    assert "Ayu Lestari" in browser.evaluate("document.querySelector('section.history').innerText")
    browser.open(f"{server.url}/documents/{PRM}?state=approved")
    assert browser.evaluate("[...document.querySelectorAll('tr[data-href]')].map(r => r.dataset.href)") == [
        f"/entries/{first.id}?doc_id={PRM}"]
    browser.open(f"{server.url}/")
    approved = f"document.querySelector('tr[data-doc-id=\"{PRM}\"] [data-state=approved]').textContent"
    assert browser.evaluate(approved) == "1 approved"
    browser.screenshot("documents.png")


def test_a_markdown_entry_shows_the_span_marked_in_its_text(session):
    samples, server, browser = session
    term = server.store.fetch("SELECT term_id, provenance FROM glossary WHERE doc_id = ? AND definition IS NOT NULL "
                              "ORDER BY mention_count DESC, term_id LIMIT 1", [KPI])[0]
    browser.open(f"{server.url}/entries/{quote(term['term_id'])}?doc_id={KPI}")
    assert browser.evaluate("document.getElementById('span-mark').textContent") == term["provenance"]["span"]
    assert browser.evaluate("document.getElementById('page-image')") is None
    browser.press("?")
    assert browser.evaluate("document.getElementById('help').hidden") is False
    browser.press("?")
    browser.press("e")
    assert browser.evaluate("document.getElementById('edit-panel').open") is True
    browser.press("Escape")
    browser.screenshot("markdown_entry.png")


def _queue_rows(browser) -> list[dict]:
    return browser.evaluate("[...document.querySelectorAll('tr[data-ref]')].map(r => ({ref: r.dataset.ref, "
                            "preview: r.querySelector('.preview').textContent.trim()}))")


def _progress(browser) -> dict[str, list[int]]:
    return browser.evaluate("Object.fromEntries([...document.querySelectorAll('#progress li')].map(li => "
                            "[li.dataset.kind, [Number(li.dataset.decided), Number(li.dataset.total)]]))")


def test_a_filtered_selection_is_rejected_with_one_note_per_entry_undone_and_approved_after_a_count(session):
    samples, server, browser = session
    store = server.store
    entries = queue_entries(store, KPI)
    reason = Counter(e.reason for e in entries if e.status.pending).most_common(1)[0][0]
    chosen = [e for e in entries if e.reason == reason]
    browser.open(f"{server.url}/documents/{KPI}?reason={quote(reason)}")
    rows = _queue_rows(browser)
    assert [r["ref"] for r in rows] == [e.ref for e in chosen]
    # Each row previews what is judged: the definition, the LaTeX, condition → consequence.
    for row, entry in zip(rows, chosen):
        preview = entry.status.item.preview
        if not preview:
            assert row["preview"] in ("no definition found", "—")
        elif row["preview"].endswith("..."):  # a long one, cut at a word
            assert preview.startswith(row["preview"].removesuffix("...").strip())
        else:
            assert row["preview"] == preview.strip()
    assert any(e.status.item.preview for e in chosen)
    before = _progress(browser)
    assert before["all"] == [sum(not e.status.pending for e in entries), len(entries)]
    assert "Maintenance KPI Procedure" in browser.evaluate("document.querySelector('header.top').innerText")

    decided_before = len(history(store, KPI))
    browser.evaluate("document.getElementById('select-shown').click()")
    assert browser.evaluate("document.getElementById('selected-count').textContent") == str(len(chosen))
    browser.evaluate("document.querySelector('#bulk-form input[name=reviewer]').value = 'Budi Santoso'")
    browser.evaluate("document.querySelector('#bulk-form input[name=note]').value = 'not defined by this procedure'")
    browser.evaluate("document.getElementById('bulk-reject').click()")
    # Rejecting asks first too, naming how many, with the note carried to the confirmation.
    browser.wait_for("!!document.getElementById('confirm-title')", "the confirmation of the rejection")
    assert browser.evaluate("document.getElementById('confirm-title').textContent") == \
        f"Reject these {len(chosen)} entr{'y' if len(chosen) == 1 else 'ies'}?"
    assert browser.evaluate("document.querySelector('#confirm-form input[name=note]').value") == \
        "not defined by this procedure"
    assert len(history(store, KPI)) == decided_before  # nothing recorded before the confirmation
    browser.evaluate("document.getElementById('confirm-reject').click()")
    browser.wait_for("location.search.includes('batch=') && document.readyState === 'complete'", "the rejected batch")
    recorded = history(store, KPI)[decided_before:]
    assert sorted((r.key.ref, r.decision, r.reviewer, r.note) for r in recorded) == sorted(
        (e.ref, "rejected", "Budi Santoso", "not defined by this procedure") for e in chosen)
    after = _progress(browser)
    assert after["all"][0] == before["all"][0] + len(chosen)
    browser.screenshot("queue_batch_rejected.png")

    browser.evaluate("document.getElementById('undo-batch').click()")
    browser.wait_for("location.search.includes('undone=') && document.readyState === 'complete'", "the undo")
    assert _progress(browser)["all"] == before["all"]
    undone = history(store, KPI)[decided_before + len(chosen):]
    assert sorted((r.key.ref, r.decision, r.reviewer) for r in undone) == sorted(
        (e.ref, "withdrawn", "Budi Santoso") for e in chosen)

    # Approving asks first, naming how many.
    browser.evaluate("[...document.querySelectorAll('input[form=bulk-form]')].slice(0, 2).forEach(b => b.click())")
    browser.evaluate("document.getElementById('bulk-approve').click()")
    browser.wait_for("!!document.getElementById('confirm-title')", "the confirmation")
    assert browser.evaluate("document.getElementById('confirm-title').textContent") == "Approve these 2 entries?"
    assert history(store, KPI)[-1].decision == "withdrawn"  # nothing recorded before the confirmation
    browser.evaluate("document.getElementById('confirm-approve').click()")
    browser.wait_for("location.search.includes('batch=') && document.readyState === 'complete'", "the approval")
    assert [r.decision for r in history(store, KPI)[-2:]] == ["approved", "approved"]
    assert _progress(browser)["all"][0] == before["all"][0] + 2


def test_the_queue_shown_again_by_back_after_a_decision_shows_the_new_counts_and_state(session):
    # Back shows the queue with the decision counted (a page restored from the back-forward cache
    # reads its tallies and badges again from the server, without a reload).
    _, server, browser = session
    pending = next(e for e in queue_entries(server.store, PRM) if e.status.pending)
    browser.open(f"{server.url}/documents/{PRM}")
    before = _progress(browser)
    row = f"[...document.querySelectorAll('tr[data-ref]')].find(r => r.dataset.ref === {json.dumps(pending.ref)})"
    browser.evaluate(f"{row}.querySelector('a').click()")
    browser.wait_for("location.pathname.startsWith('/entries/') && document.readyState === 'complete'", "the entry")
    browser.evaluate("document.querySelector('#approve-form input[name=reviewer]').value = 'Ayu Lestari'")
    browser.press("a")
    browser.wait_for("location.search.includes('done=approved') && document.readyState === 'complete'", "the approval")
    browser.evaluate("history.go(-2)")
    browser.wait_for(f"location.pathname === '/documents/{PRM}' && location.search === ''", "the queue again")
    browser.wait_for(f"document.querySelector('#progress li.all').dataset.decided === '{before['all'][0] + 1}'",
                     "the new count")
    assert _progress(browser)["all"] == [before["all"][0] + 1, before["all"][1]]
    assert browser.evaluate(f"{row}.querySelector('.badge').textContent") == "approved"
    assert browser.evaluate("document.querySelector('#progress li.all .decided').textContent") == \
        str(before["all"][0] + 1)

    # A tab left open while someone else decides: shown again, it reads the tallies and states anew.
    other = next(e for e in queue_entries(server.store, PRM) if e.status.pending)
    record_decision(server.store, other.status.item, "rejected", "Budi Santoso", "not a term")
    browser.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    browser.wait_for(f"document.querySelector('#progress li.all').dataset.decided === '{before['all'][0] + 2}'",
                     "the count of a decision taken elsewhere")
    other_row = f"[...document.querySelectorAll('tr[data-ref]')].find(r => r.dataset.ref === {json.dumps(other.ref)})"
    assert browser.evaluate(f"{other_row}.querySelector('.badge').textContent") == "rejected"


def _overflow(browser) -> int:
    return browser.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


@pytest.mark.parametrize("width", [1280, 800])
def test_the_pages_fit_the_window_without_horizontal_scrolling(session, width):
    samples, server, browser = session
    browser.call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=False)
    try:
        first = queue_entries(server.store, PRM)[0]
        for path, shot in (("/", "documents"), (f"/documents/{PRM}", "queue"), (f"/documents/{KPI}", None),
                           (f"/entries/{quote(first.ref)}?doc_id={PRM}", "entry")):
            browser.open(server.url + path)
            assert _overflow(browser) <= 0, f"{path} is wider than {width} px"
            if shot:
                browser.screenshot(f"{shot}_{width}.png")
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride")


def _deepest(store, doc_id: str):
    """The entry whose span lies deepest in its chunk: the one its source must scroll to."""
    chunks = {row["chunk_id"]: row["text"] for row in
              store.fetch("SELECT chunk_id, text FROM parsed_chunks WHERE doc_id = ?", [doc_id])}

    def depth(entry) -> int:
        provenance = entry.status.item.provenance
        return chunks.get(provenance.chunk_id, "").find(provenance.span)

    return max(queue_entries(store, doc_id), key=depth)


def test_the_markdown_source_is_scrolled_so_the_marked_span_is_visible(session):
    samples, server, browser = session
    deepest = _deepest(server.store, KPI)
    browser.call("Emulation.setDeviceMetricsOverride", width=1280, height=420, deviceScaleFactor=1, mobile=False)
    try:
        browser.open(f"{server.url}/entries/{quote(deepest.ref)}?doc_id={KPI}")
        seen = browser.evaluate("""(() => {
          const mark = document.getElementById('span-mark').getBoundingClientRect();
          const column = document.querySelector('section.source').getBoundingClientRect();
          return mark.top >= Math.max(0, column.top) && mark.top < Math.min(window.innerHeight, column.bottom);
        })()""")
        assert seen, "the marked span is outside the visible source"
        browser.screenshot("markdown_scrolled.png")
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride")


# The marked span (the mark in a text excerpt, the first box on a page image) on the first screen, inside
# the source's box, with the page itself not scrolled: seen without scrolling, under or beside the fields.
_SPAN_ON_FIRST_SCREEN = """(() => {
  const marked = document.querySelector('rect.span-box') || document.getElementById('span-mark');
  const at = marked.getBoundingClientRect(), box = document.querySelector('section.source').getBoundingClientRect();
  const fields = document.querySelector('dl.fields').getBoundingClientRect();
  return window.scrollY === 0 && at.height > 0 && at.top >= Math.max(0, box.top) && at.bottom <= box.bottom
    && at.bottom <= window.innerHeight && (box.top >= fields.bottom || box.left >= fields.right);
})()"""


@pytest.mark.parametrize("width", [1280, 800])
def test_the_entry_page_shows_the_marked_span_on_the_first_screen_beside_or_under_the_fields(session, width):
    _, server, browser = session
    browser.call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=False)
    try:
        for doc_id in (KPI, PRM):
            entry = _deepest(server.store, doc_id)
            browser.open(f"{server.url}/entries/{quote(entry.ref)}?doc_id={doc_id}")
            browser.wait_for("!document.getElementById('page-image') || "
                             "document.getElementById('page-image').complete", "the page image")
            browser.wait_for(_SPAN_ON_FIRST_SCREEN, f"the marked span of {entry.ref} on the first screen at {width} px")
            browser.screenshot(f"{'markdown' if doc_id == KPI else 'pdf'}_entry_{width}.png")
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride")


# Each word of every table cell's text (a word: between spaces, hyphens and slashes, where a line may
# break) on one line, and each number cell's whole text on one line; what is not returns the words broken.
_BROKEN_WORDS = r"""(() => {
  const lines = range => new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top))).size;
  const broken = [];
  for (const cell of document.querySelectorAll('table td')) {
    if (/^\d+$/.test(cell.textContent.trim())) {
      const range = document.createRange();
      range.selectNodeContents(cell);
      if (lines(range) > 1) broken.push(cell.textContent.trim());
    }
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('code')) continue;  // ids break anywhere, by design
      for (const word of node.data.matchAll(/[^\s\-‐-—\/]+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        if (lines(range) > 1) broken.push(word[0]);
      }
    }
  }
  return broken;
})()"""


@pytest.mark.parametrize("width", [1280, 800])
def test_no_table_cell_breaks_a_number_or_a_word(session, width):
    _, server, browser = session
    assert len(queue_entries(server.store, PRM)) > QUEUE_PAGE_SIZE  # its second page counts past 100
    browser.call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=False)
    try:
        for path in (f"/documents/{PRM}?page=2", f"/documents/{PRM}", f"/documents/{KPI}", "/"):
            browser.open(server.url + path)
            assert browser.evaluate("document.querySelectorAll('table td').length") > 0
            assert browser.evaluate(_BROKEN_WORDS) == [], f"{path} at {width} px"
        browser.open(f"{server.url}/documents/{PRM}?page=2")
        assert browser.evaluate("Math.max(...[...document.querySelectorAll('td.position')].map(td => "
                                "Number(td.textContent)))") > QUEUE_PAGE_SIZE
        browser.screenshot(f"queue_page_2_{width}.png")
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride")


def test_a_document_whose_run_failed_says_failed_and_why(session, tmp_path):
    samples, server, browser = session
    broken = tmp_path / "broken_standard.pdf"
    broken.write_bytes(b"%PDF-1.4\nthis is not a PDF body\n")
    doc_id = register(server.store, identify(broken)).source.doc_id
    assert not run_document(samples.instance, doc_id).success
    browser.open(f"{server.url}/")
    state = browser.evaluate(f"document.querySelector('tr[data-doc-id=\"{doc_id}\"] .run-state').innerText")
    assert state.startswith("failed: ") and len(state) > len("failed: ")
    cause = state.removeprefix("failed: ")
    assert "not extracted yet" not in browser.evaluate("document.body.innerText")

    # The documents page says it in one line, linked to its page; no long banner tells it again.
    assert browser.evaluate("document.getElementById('failed-documents').innerText") == \
        f"1 failed: {broken.name} — {cause}"
    assert browser.evaluate("document.querySelector('#failed-documents a').getAttribute('href')") == \
        f"/documents/{doc_id}"
    assert doc_id not in browser.evaluate("document.getElementById('not-current')?.innerText ?? ''")
    for width in (1280, 800):
        browser.call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=False)
        try:
            browser.open(f"{server.url}/")
            browser.screenshot(f"home_failed_{width}.png")
            browser.open(f"{server.url}/documents/{doc_id}")
            browser.screenshot(f"failed_document_{width}.png")
        finally:
            browser.call("Emulation.clearDeviceMetricsOverride")

    # Its own page says why and how to run it again or remove it; the other documents' pages say nothing of it.
    with urllib.request.urlopen(f"{server.url}/documents/{doc_id}", timeout=30) as answer:
        assert answer.status == 200
    assert browser.evaluate("document.title") == f"{broken.name} · knowledge review"
    assert browser.evaluate("document.getElementById('failure').innerText").endswith(f": {cause}")
    assert browser.evaluate("document.getElementById('run-command').innerText") == f"knowledge-assets run {broken}"
    assert browser.evaluate("document.getElementById('remove-command').innerText") == \
        f"knowledge-assets documents remove {doc_id}"
    for other in (PRM, KPI):
        browser.open(f"{server.url}/documents/{other}")
        assert broken.name not in browser.evaluate("document.body.innerText")
        assert browser.evaluate("document.getElementById('failed-documents')") is None


MTTR_DEFINITION = "MTTR means the average time needed to return a unit to service after a breakdown."
MTTR_REWORDED = "MTTR means the average time needed to bring a unit back into service after a breakdown."
_DIFFERENCE = ("[...document.querySelectorAll('table.difference tr[data-field]')].map(r => "
               "[r.dataset.field, r.querySelector('.was').innerText, r.querySelector('.now').innerText])")


def test_an_approval_of_an_entry_a_run_changed_while_its_page_was_open_is_refused_on_the_page_and_the_command_line(
    session, tmp_path
):
    _, _, browser = session
    documents = tmp_path / "documents"
    documents.mkdir()
    for source in (SAMPLE_MARKDOWN, SAMPLE_MARKDOWN.with_name(SAMPLE_MARKDOWN.name + ".meta.json")):
        shutil.copy(source, documents / source.name)
    document = documents / SAMPLE_MARKDOWN.name
    mttr = term_id(KPI, "Mean Time To Repair")
    (tmp_path / "run").mkdir()
    with (pytest.MonkeyPatch.context() as env,
          materialised_samples(tmp_path / "run", env, paths=(document,)) as samples,
          review_server(samples.store, tmp_path / "review-server.log") as server):
        store = server.store
        browser.open(f"{server.url}/entries/{mttr}?doc_id={KPI}")
        shown = browser.evaluate("document.querySelector('#approve-form input[name=seen]').value")
        assert browser.evaluate("document.getElementById('entry-fingerprint').textContent") == shown[:23]
        browser.evaluate("document.querySelector('#approve-form input[name=reviewer]').value = 'Ayu Lestari'")

        # While the page is open, the document is edited and run again: the definition changes.
        document.write_text(document.read_text(encoding="utf-8").replace(MTTR_DEFINITION, MTTR_REWORDED), "utf-8")
        assert register(store, identify(document)).revision == 2
        assert run_document(samples.instance, KPI).success
        browser.press("a")
        browser.wait_for("!!document.getElementById('refused')", "the refusal")
        assert browser.evaluate(_DIFFERENCE) == [["definition", MTTR_DEFINITION, MTTR_REWORDED]]
        assert browser.evaluate("document.querySelector('dl.content-now dd[data-field=definition]').innerText") \
            == MTTR_REWORDED
        assert "Not recorded" in browser.evaluate("document.querySelector('h1').innerText")
        browser.screenshot("refused_changed_entry.png")
        assert history(store, KPI) == []

        # The command line, in its own process, refuses the fingerprint the page showed, by its first 12 digits.
        refused = cli_process(["review", "approve", mttr, "--reviewer", "Ayu Lestari", "--seen", shown[:19]],
                              PROJECT_ROOT, tmp_path, KNOWLEDGE_DB=str(store.path))
        assert refused.returncode == 1 and refused.stdout == "" and "Traceback" not in refused.stderr
        first, *details = refused.stderr.splitlines()
        assert first.startswith(f"error: not recorded: {mttr} (MTTR) changed since it was shown (shown {shown[:19]}, ")
        assert f'  definition: "{MTTR_REWORDED}"' in details
        assert history(store, KPI) == []

        # Opened again, the page shows what is stored now; the approval of that is recorded.
        browser.evaluate("document.querySelector('a.review-again').click()")
        # The refusal was answered at the entry's own path: wait for the entry page's form, not the path.
        browser.wait_for(f"location.pathname === '/entries/{mttr}' && document.readyState === 'complete' "
                         "&& document.querySelector('#approve-form') !== null", "the entry as it is now")
        browser.evaluate("document.querySelector('#approve-form input[name=reviewer]').value = 'Ayu Lestari'")
        browser.press("a")
        browser.wait_for("location.search.includes('done=approved')", "the approval")
        [approval] = history(store, KPI)
        assert (approval.decision, approval.reviewed_content["definition"]) == ("approved", MTTR_REWORDED)
