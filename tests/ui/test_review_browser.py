"""Review in the browser as an expert does it: Debian's Chromium headless, driven over the
DevTools protocol (keys pressed, not forms posted), against the real review server and a
store the real pipeline wrote. The span's highlight is checked against PDFium's own character
boxes, and the approval is checked again after the pipeline runs a second time.
Screenshots land in test-output/review/."""

from __future__ import annotations

import base64
import json
import subprocess
import time
import unicodedata
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pypdfium2 as pdfium
import pytest
from websockets.sync.client import connect

from knowledge_assets.review.decisions import history
from knowledge_assets.review.status import review_statuses
from knowledge_assets.review.worklist import worklist
from tests.conftest import PROJECT_ROOT, SAMPLE_PDF
from tests.review.conftest import KPI, PRM
from tests.review.web.server import review_server
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
    assert browser.evaluate("document.querySelectorAll('tr[data-href]').length") == len(
        [s for s in review_statuses(store, PRM)])
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
    approved = f"[...document.querySelectorAll('tr')].find(r => r.textContent.includes('{PRM}'))" \
               ".querySelector('td.state-approved').textContent"
    assert browser.evaluate(approved) == "1"
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
