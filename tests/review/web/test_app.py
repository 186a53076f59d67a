"""Every route of the review app, over HTTP, against the real server on 127.0.0.1."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import zipfile
from html import unescape
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from knowledge_assets.ids import term_id
from knowledge_assets.review.approved import export_approved
from knowledge_assets.review.decisions import history
from knowledge_assets.review.document_queues import queue_entries, worklist
from knowledge_assets.review.status import review_statuses
from knowledge_assets.review.web.app import create_app
from knowledge_assets.review.web.pages import QUEUE_PAGE_SIZE
from knowledge_assets.store.registry import latest_source
from tests.conftest import SAMPLE_PDF
from tests.review.conftest import KPI, PRM, snapshot
from tests.review.web.server import review_server
from tests.support.materialised import materialised_samples

HOSTILE = """# Hostile Glossary <script>alert("title")</script>

## 1. Definitions

**Crusher Feed Rate (CFR)** adalah laju umpan <script>alert("definition")</script> ke crusher dalam ton per jam.

CFR = Tonnage / Operating Hours <img src=x onerror=alert(1)>

Apabila CFR melebihi 500 ton per jam, maka operator wajib menurunkan laju umpan.
"""


def entry_path(ref: str, doc_id: str) -> str:
    return f"/entries/{quote(ref, safe='')}?doc_id={quote(doc_id, safe='')}"


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def state_of(store, doc_id: str, ref: str) -> str:
    return next(s.state for s in review_statuses(store, doc_id) if s.key.ref == ref)


def hidden(html: str, name: str) -> str:
    """The value of the page's (first) hidden field `name`, as a browser would send it."""
    return unescape(re.search(rf'<input type="hidden" name="{name}" value="([^"]*)"', html)[1])


def decide(client, ref: str, doc_id: str, decision: str, **fields):
    """Opens the entry's page and sends its form, carrying what the page showed (D82)."""
    page = client.get(entry_path(ref, doc_id))
    assert page.status == 200, page.text
    data = {"csrf": page.csrf, "doc_id": doc_id, "decision": decision, "seen": hidden(page.text, "seen"),
            "seen_content": hidden(page.text, "seen_content"), **fields}
    return client.post(f"/entries/{quote(ref, safe='')}", data)


def hidden_entries(html: str) -> list[tuple[str, str]]:
    """The hidden `entry` fields of a page (the batch undo's), as a browser would send them."""
    return [("entry", unescape(v)) for v in re.findall(r'<input type="hidden" name="entry" value="([^"]*)"', html)]


def picked(store, doc_id: str, refs) -> list[tuple[str, str]]:
    """A bulk form's `entry` fields for `refs`: each with its fingerprint as the queue shows it now."""
    seen = {s.key.ref: s.fingerprint for s in review_statuses(store, doc_id)}
    return [("entry", f"{seen[ref]} {ref}") for ref in refs]


# --- / -------------------------------------------------------------------------------------


def test_the_documents_page_lists_each_document_with_its_counts_and_review_states(client, server):
    decide(client, worklist(server.store, PRM)[0].id, PRM, "approve", reviewer="alice")
    page = client.get("/")
    assert page.status == 200
    rows = {m.group(1): text_of(m.group(0))
            for m in re.finditer(r'<tr[^>]*data-doc-id="([^"]+)">.*?</tr>', page.text, re.S)}
    assert set(rows) == {PRM, KPI}
    prm = rows[PRM]
    assert prm.startswith("STANDARD PARAMETER Production Parameter")
    terms = server.store.fetch("SELECT count(*) n, count(definition) d FROM glossary WHERE doc_id = ?", [PRM])[0]
    formulas = server.store.fetch("SELECT count(*) n FROM formulas WHERE doc_id = ?", [PRM])[0]["n"]
    rules = server.store.fetch("SELECT count(*) n FROM rules WHERE doc_id = ?", [PRM])[0]["n"]
    statuses = review_statuses(server.store, PRM)
    unreviewed = sum(s.state == "unreviewed" for s in statuses)
    # title, file · doc_id, revision, pages, terms (defined), formulas, rules, decided of all, the states it has
    assert (f"{SAMPLE_PDF.name} · {PRM} 1 9 {terms['n']} ({terms['d']}) {formulas} {rules} "
            f"1 of {len(statuses)} decided {unreviewed} unreviewed · 1 approved") in prm
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d$", prm)  # last run


# --- /documents/{doc_id} ---------------------------------------------------------------------


def _queue_refs(html: str) -> list[str]:
    return [unescape(m) for m in re.findall(r'<tr data-href="/entries/([^"?]+)\?', html)]


def test_the_queue_lists_every_entry_pending_first_in_the_worklist_order(client, server):
    refs = []
    for n in range(1, 1 + -(-len(queue_entries(server.store, PRM)) // QUEUE_PAGE_SIZE)):  # page by page
        page = client.get(f"/documents/{PRM}?page={n}")
        assert page.status == 200
        refs += [ref.replace("%3A", ":") for ref in _queue_refs(page.text)]
    assert refs == [e.ref for e in queue_entries(server.store, PRM)]
    assert refs[:len(worklist(server.store, PRM))] == [item.id for item in worklist(server.store, PRM)]
    kinds = {e.kind for e in queue_entries(server.store, PRM)}
    assert {"term", "formula", "rule", "domain"} <= kinds


def test_the_queue_filters_by_kind_reason_and_state(client, server):
    formulas = _queue_refs(client.get(f"/documents/{PRM}?kind=formula").text)
    assert formulas and all(ref.startswith("f_") for ref in formulas)
    assert len(formulas) == server.store.fetch("SELECT count(*) n FROM formulas WHERE doc_id = ?", [PRM])[0]["n"]
    reason = "routine confirmation"
    routine = _queue_refs(client.get(f"/documents/{PRM}?reason={quote(reason)}").text)
    assert routine == [e.ref for e in queue_entries(server.store, PRM) if e.reason == reason]
    first = worklist(server.store, PRM)[0].id
    decide(client, first, PRM, "approve", reviewer="alice")
    assert _queue_refs(client.get(f"/documents/{PRM}?state=approved").text) == [first]
    assert first not in _queue_refs(client.get(f"/documents/{PRM}?state=unreviewed").text)


def test_an_unknown_document_is_404_everywhere(client):
    assert client.get("/documents/NO-SUCH-DOC").status == 404
    assert client.get("/pages/NO-SUCH-DOC/1.png").status == 404
    page = client.get("/")
    assert client.post("/documents/NO-SUCH-DOC/export", {"csrf": page.csrf}).status == 404


# --- /entries/{entry_id} ---------------------------------------------------------------------


def test_a_pdf_entry_shows_its_fields_reason_and_the_page_with_its_span_boxed(client, server):
    term = server.store.fetch("SELECT term_id, definition, provenance FROM glossary WHERE doc_id = ? AND term = 'MOHH'",
                              [PRM])[0]
    page = client.get(entry_path(term["term_id"], PRM))
    assert page.status == 200
    text = text_of(page.text)
    assert "MOHH" in text and "Machine on Hand Hours" in text and " ".join(term["definition"].split()) in text
    assert "routine confirmation" in text and "Never reviewed." in text
    page_no = term["provenance"]["page_no"]
    assert f'src="/pages/{PRM}/{page_no}.png"' in page.text
    boxes = re.findall(r'<rect class="span-box" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"',
                       page.text)
    assert len(boxes) == 2  # the definition runs over two lines of the page
    assert f'<mark id="span-mark">{term["provenance"]["span"]}</mark>' in unescape(page.text)


def test_a_formula_shows_its_variables_verification_and_linked_terms(client, server):
    formula = server.store.fetch(
        "SELECT formula_id, formula_latex, latex_verification, variables FROM formulas WHERE doc_id = ? "
        "AND len(list_filter(variables, lambda v: v.term_id IS NOT NULL)) > 0 ORDER BY formula_id LIMIT 1", [PRM])[0]
    page = client.get(entry_path(formula["formula_id"], PRM))
    assert page.status == 200
    assert formula["latex_verification"] in page.text
    linked = next(v["term_id"] for v in formula["variables"] if v["term_id"])
    assert f'href="/entries/{linked}?doc_id={PRM}"' in page.text


def test_a_rule_shows_condition_and_consequence(client, server):
    rule = server.store.fetch("SELECT rule_id, condition, consequence FROM rules WHERE doc_id = ? "
                              "AND condition IS NOT NULL ORDER BY rule_id LIMIT 1", [PRM])[0]
    text = text_of(client.get(entry_path(rule["rule_id"], PRM)).text)
    assert f"{' '.join(rule['condition'].split())} → {' '.join(rule['consequence'].split())}" in text


def test_a_markdown_entry_shows_its_chunk_with_the_span_marked_and_its_neighbours(client, server):
    term = server.store.fetch("SELECT term_id, provenance FROM glossary WHERE doc_id = ? AND definition IS NOT NULL "
                              "ORDER BY term_id LIMIT 1", [KPI])[0]
    page = client.get(entry_path(term["term_id"], KPI))
    assert page.status == 200
    assert "/pages/" not in page.text  # no page image for Markdown
    assert f'<mark id="span-mark">{term["provenance"]["span"]}</mark>' in unescape(page.text)
    chunk = server.store.fetch("SELECT seq FROM parsed_chunks WHERE chunk_id = ?", [term["provenance"]["chunk_id"]])[0]
    neighbours = server.store.fetch("SELECT text FROM parsed_chunks WHERE doc_id = ? AND seq IN (?, ?)",
                                    [KPI, chunk["seq"] - 1, chunk["seq"] + 1])
    contexts = [unescape(c) for c in re.findall(r'<p class="context">(.*?)</p>', page.text, re.S)]
    assert sorted(contexts) == sorted(n["text"] for n in neighbours)


def test_a_term_without_a_definition_shows_its_mentions_in_context(client, server):
    term = server.store.fetch("SELECT term_id, term, mention_count FROM glossary WHERE doc_id = ? "
                              "AND definition IS NULL AND mention_count > 1 ORDER BY term_id LIMIT 1", [PRM])[0]
    page = client.get(entry_path(term["term_id"], PRM))
    mentions = re.findall(r"<li><span class=\"muted\">p\.\d+.*?</li>", page.text, re.S)
    count = server.store.fetch("SELECT count(*) n FROM term_mentions WHERE doc_id = ? AND term_id = ?",
                               [PRM, term["term_id"]])[0]["n"]
    assert f"Mentions ({count})" in page.text
    assert 1 < len(mentions) <= 12
    assert all("<mark>" in m for m in mentions)


def test_an_unknown_entry_is_404(client):
    assert client.get(entry_path("t_0000000000", PRM)).status == 404
    assert client.get("/entries/not-an-id").status == 404


# --- decisions -------------------------------------------------------------------------------


def test_approving_records_one_decision_and_opens_the_next_unreviewed_entry(client, server):
    pending = worklist(server.store, PRM)
    answer = decide(client, pending[0].id, PRM, "approve", reviewer="alice", note="checked against p.4")
    assert answer.status == 303
    assert answer.headers["location"].startswith(entry_path(pending[1].id, PRM) + "&done=approved")
    following = text_of(client.get(answer.headers["location"]).text)
    assert f"Approved: {pending[0].label} . This is the next entry to review." in following
    reviews = history(server.store, PRM)
    assert [(r.key.ref, r.decision, r.reviewer, r.note) for r in reviews] == [
        (pending[0].id, "approved", "alice", "checked against p.4")]
    assert state_of(server.store, PRM, pending[0].id) == "approved"
    # The page remembers the reviewer's name and shows the entry's history.
    page = client.get(entry_path(pending[0].id, PRM))
    assert 'name="reviewer" required autocomplete="name" value="alice"' in page.text
    assert re.search(r"<td>alice</td><td>approved</td><td>checked against p.4</td>\s*<td>applies</td>", page.text)


def test_a_rejection_needs_a_note_and_then_is_recorded(client, server):
    ref = worklist(server.store, KPI)[0].id
    before = snapshot(server.store)
    refused = decide(client, ref, KPI, "reject", reviewer="bob", note="  ")
    assert refused.status == 400 and "a rejection needs a note" in refused.text
    assert snapshot(server.store) == before
    assert decide(client, ref, KPI, "reject", reviewer="bob", note="not a term").status == 303
    assert state_of(server.store, KPI, ref) == "rejected"


def test_a_decision_without_a_reviewer_name_is_refused(client, server):
    ref = worklist(server.store, KPI)[0].id
    before = snapshot(server.store)
    answer = decide(client, ref, KPI, "approve", reviewer=" ")
    assert answer.status == 400 and "a reviewer name is required" in answer.text
    assert snapshot(server.store) == before


def test_an_edit_replaces_only_model_written_fields_and_is_validated_by_the_contract(client, server):
    term = server.store.fetch("SELECT term_id, term, defining_formula_id FROM glossary WHERE doc_id = ? AND "
                              "defining_formula_id IS NOT NULL ORDER BY term_id LIMIT 1", [PRM])[0]
    fields = {"reviewer": "carol", "field.term": term["term"], "field.full_name": "Expert Name",
              "field.definition": "The expert's own definition.", "field.subdomain_tags": ["production", "equipment"],
              # Not offered by the form; a forged field must not reach the entry.
              "field.term_id": "t_forged00000", "field.defining_formula_id": "f_forged00000"}
    assert decide(client, term["term_id"], PRM, "edit", **fields).status == 303
    latest = history(server.store, PRM)[-1]
    assert latest.decision == "edited" and latest.reviewer == "carol"
    edited = latest.edited_payload
    assert (edited["full_name"], edited["definition"]) == ("Expert Name", "The expert's own definition.")
    assert edited["subdomain_tags"] == ["production", "equipment"]
    assert (edited["term_id"], edited["defining_formula_id"]) == (term["term_id"], term["defining_formula_id"])
    page = client.get(entry_path(term["term_id"], PRM))
    assert "The expert's version" in page.text and "not verbatim from the document" in page.text
    # An invalid value is refused by the contract model, and nothing is written.
    before = snapshot(server.store)
    refused = decide(client, term["term_id"], PRM, "edit", **{**fields, "field.subdomain_tags": ["astrology"]})
    assert refused.status == 400 and "not a valid GlossaryEntry" in refused.text and "subdomain_tags" in refused.text
    assert snapshot(server.store) == before


def test_a_formula_edit_keeps_each_variables_term_link(client, server):
    formula = server.store.fetch(
        "SELECT formula_id, name, formula_latex, unit, variables FROM formulas WHERE doc_id = ? "
        "AND len(list_filter(variables, lambda v: v.term_id IS NOT NULL)) > 0 ORDER BY formula_id LIMIT 1", [PRM])[0]
    symbols = [v["symbol"] for v in formula["variables"]]
    meanings = [f"meaning {i}" for i in range(len(symbols))]
    fields = {"reviewer": "dan", "field.name": "Corrected name", "field.formula_latex": formula["formula_latex"] or "",
              "field.unit": "%", "field.variables.symbol": symbols + [""], "field.variables.meaning": meanings + [""]}
    assert decide(client, formula["formula_id"], PRM, "edit", **fields).status == 303
    edited = history(server.store, PRM)[-1].edited_payload
    assert edited["name"] == "Corrected name" and edited["unit"] == "%"
    assert [(v["symbol"], v["meaning"], v["term_id"]) for v in edited["variables"]] == [
        (v["symbol"], m, v["term_id"]) for v, m in zip(formula["variables"], meanings)
    ]


def test_a_post_without_or_with_a_wrong_csrf_token_is_refused_and_writes_nothing(client, server):
    ref = worklist(server.store, PRM)[0].id
    page = client.get(entry_path(ref, PRM))  # the session cookie is set
    before = snapshot(server.store)
    data = {"doc_id": PRM, "decision": "approve", "reviewer": "mallory", "seen": hidden(page.text, "seen")}
    for token in ({}, {"csrf": ""}, {"csrf": "0" * 64}):
        answer = client.post(f"/entries/{ref}", {**data, **token})
        assert answer.status == 403 and "security token" in answer.text
    # A token from another browser's session does not fit this one.
    other = server.client()
    assert other.post(f"/entries/{ref}", {**data, "csrf": client.get(entry_path(ref, PRM)).csrf}).status == 403
    assert client.post("/export", {}).status == 403
    assert snapshot(server.store) == before


def test_a_get_never_changes_anything(client, server):
    ref = worklist(server.store, PRM)[0].id
    before = snapshot(server.store)
    assert client.get(f"/entries/{ref}?doc_id={PRM}&decision=approve&reviewer=x").status == 200
    assert snapshot(server.store) == before


def test_a_decision_while_a_materialisation_holds_the_store_says_so_and_writes_nothing(client, server):
    ref = worklist(server.store, PRM)[0].id
    page = client.get(entry_path(ref, PRM))
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True); "
         "time.sleep(30)", str(server.store.path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        answer = client.post(f"/entries/{ref}", {"csrf": page.csrf, "doc_id": PRM, "decision": "approve",
                                                 "reviewer": "erin", "seen": hidden(page.text, "seen")})
        assert answer.status == 503
        assert "a running materialisation holds" in answer.text and "Nothing was written" in answer.text
    finally:
        holder.kill()
        holder.wait()
    assert history(server.store, PRM) == []
    assert decide(client, ref, PRM, "approve", reviewer="erin").status == 303  # released: it goes through


# --- /pages/{doc_id}/{page_no}.png -----------------------------------------------------------


def test_a_page_image_is_rendered_once_and_cached_under_the_state_folder(client, server):
    first = client.get(f"/pages/{PRM}/4.png")
    assert first.status == 200 and first.headers["content-type"] == "image/png"
    assert first.body.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = int.from_bytes(first.body[16:20], "big"), int.from_bytes(first.body[20:24], "big")
    assert (width, height) == (1191, 1684)  # an A4 page at 144 dpi
    cached = list((server.store.path.parent / "review_pages" / PRM).glob("*-4.png"))
    assert len(cached) == 1 and cached[0].read_bytes() == first.body
    stamp = cached[0].stat().st_mtime_ns
    assert client.get(f"/pages/{PRM}/4.png").body == first.body
    assert cached[0].stat().st_mtime_ns == stamp


@pytest.mark.parametrize("path", [
    f"/pages/{PRM}/0.png", f"/pages/{PRM}/10.png", f"/pages/{PRM}/-1.png", f"/pages/{PRM}/x.png",
    f"/pages/{KPI}/1.png",  # Markdown: no page images
    "/pages/..%2F..%2F..%2Fetc%2Fpasswd/1.png", "/pages/%2E%2E/1.png", "/pages/../../etc/1.png",
    f"/pages/{PRM}/..%2F..%2Fknowledge.duckdb", "/static/..%2Fapp.py", "/static/../app.py", "/static/%2E%2E%2Fserve.py",
    "/entries/..%2F..%2Fetc%2Fpasswd",
])
def test_anything_but_a_registered_documents_existing_page_is_404(client, path):
    answer = client.get(path)
    assert answer.status == 404, path
    assert b"root:" not in answer.body and b"import " not in answer.body


def test_a_page_image_is_read_from_the_registered_file_only(client, server, tmp_path):
    source, _ = latest_source(server.store, PRM)
    assert client.get(f"/pages/{PRM}/1.png").status == 200
    # The registry is the only way to a file; a registered file that is gone is a 404, not a crash.
    server.store.fetch("UPDATE documents SET source_path = ? WHERE doc_id = ?", [str(tmp_path / "gone.pdf"), PRM])
    assert client.get(f"/pages/{PRM}/2.png").status == 404
    assert source.path.is_file()


# --- export ----------------------------------------------------------------------------------


def test_the_export_button_downloads_what_export_approved_writes(client, server, tmp_path):
    decide(client, worklist(server.store, PRM)[0].id, PRM, "approve", reviewer="alice")
    page = client.get(f"/documents/{PRM}")
    answer = client.post(f"/documents/{PRM}/export", {"csrf": page.csrf})
    assert answer.status == 200 and answer.headers["content-type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(answer.body))
    expected = {p.relative_to(tmp_path).as_posix(): p.read_text("utf-8")
                for p in export_approved(server.store, tmp_path, [PRM]).written if p.name != "index.json"}
    assert {name: archive.read(name).decode("utf-8") for name in archive.namelist() if name != "index.json"} == expected
    assert len(json.loads(expected[f"{PRM}/glossary.json"])) == 1
    whole = client.post("/export", {"csrf": page.csrf})
    assert whole.status == 200, whole.text[whole.text.find("<main"):][:1500]
    everything = zipfile.ZipFile(io.BytesIO(whole.body))
    # KPI has nothing approved: no folder of it in the whole export either.
    assert {name.split("/")[0] for name in everything.namelist()} == {PRM, "index.json"}


def test_the_exported_zip_carries_the_index_the_command_line_writes(client, server):
    for doc_id in (PRM, KPI):
        term = next(item for item in worklist(server.store, doc_id) if item.kind == "term")
        decide(client, term.id, doc_id, "approve", reviewer="alice")
    page = client.get(f"/documents/{PRM}")
    archive = zipfile.ZipFile(io.BytesIO(client.post(f"/documents/{PRM}/export", {"csrf": page.csrf}).body))
    documents = json.loads(archive.read("index.json"))["documents"]
    assert list(documents) == [PRM]
    assert documents[PRM]["files"] == sorted(name for name in archive.namelist() if name.startswith(f"{PRM}/"))
    assert (documents[PRM]["source_file"], documents[PRM]["approved_only"]) == (SAMPLE_PDF.name, True)
    everything = zipfile.ZipFile(io.BytesIO(client.post("/export", {"csrf": page.csrf}).body))
    assert list(json.loads(everything.read("index.json"))["documents"]) == sorted([PRM, KPI])


# --- safety ----------------------------------------------------------------------------------


def test_a_request_naming_another_host_is_refused(client):
    assert client.get("/", headers={"Host": "attacker.example:8765"}).status == 400


def test_every_page_carries_a_content_security_policy(client):
    policy = client.get("/").headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy and "'unsafe-inline'" not in policy


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    document = root / "hostile.md"
    document.write_text(HOSTILE, encoding="utf-8")
    (root / "hostile.md.meta.json").write_text('{"doc_id": "HOSTILE-001"}', encoding="utf-8")
    (root / "run").mkdir()
    with pytest.MonkeyPatch.context() as env, materialised_samples(root / "run", env, paths=(document,)) as samples:
        assert all(result.success for result in samples.results.values())
    return samples.store


def test_a_document_containing_script_renders_it_as_text_on_every_page(hostile_store, tmp_path):
    with review_server(hostile_store, tmp_path / "server.log") as running:
        client = running.client()
        pages = [client.get("/"), client.get("/documents/HOSTILE-001")]
        pages += [client.get(entry_path(e.ref, "HOSTILE-001")) for e in queue_entries(hostile_store, "HOSTILE-001")]
    assert all(page.status == 200 for page in pages)
    shown = "".join(page.text for page in pages)
    assert "&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt;" in shown  # the title, as text
    assert "&lt;script&gt;alert(&#34;definition&#34;)&lt;/script&gt;" in shown  # a mention in context
    assert "&lt;img src=x onerror=alert(1)&gt;" in shown  # the formula's span
    for page in pages:
        assert re.findall(r"<script\b[^>]*>", page.text) == ['<script src="/static/review.js" defer>']
        assert "<img src=x" not in page.text


def test_an_entry_whose_content_changed_after_approval_says_why_it_is_back_in_the_queue(pipeline, tmp_path):
    pipeline.extract()
    mttr = term_id(KPI, "Mean Time To Repair")
    with review_server(pipeline.store, tmp_path / "server.log") as running:
        client = running.client()
        assert decide(client, mttr, KPI, "approve", reviewer="alice").status == 303
        text = pipeline.document.read_text(encoding="utf-8")
        reworded = "MTTR means the average time needed to bring a unit back into service after a breakdown."
        original = "MTTR means the average time needed to return a unit to service after a breakdown."
        pipeline.document.write_text(text.replace(original, reworded), encoding="utf-8")
        pipeline.extract()
        page = client.get(entry_path(mttr, KPI))
        queue = client.get(f"/documents/{KPI}?state=stale")
    shown = text_of(page.text)
    assert "stale" in shown and "returned" not in shown and reworded in shown
    assert re.search(r"stale : definition changed since approved by alice on [\d-]+ [\d:]+ UTC: "
                     r"definition was \"…?[^\"]*return a unit to service", shown)
    assert _queue_refs(queue.text) == [mttr]


def test_the_queue_searches_term_full_name_definition_and_rule_text_in_any_case(client, server):
    entries = queue_entries(server.store, PRM)
    term = next(e for e in entries if e.kind == "term" and e.status.content.get("definition"))
    rule = next(e for e in entries if e.kind == "rule")
    word = max(term.status.content["definition"].split(), key=len).strip(".,;:()")
    for text, expected in ((word.upper(), term), (rule.status.content["consequence"][:30].lower(), rule)):
        page = client.get(f"/documents/{PRM}?q={quote(text)}")
        refs = re.findall(r'<tr data-href="[^"]+" data-ref="([^"]+)"', page.text)
        assert expected.ref in refs and len(refs) < len(entries), text
        assert f'value="{text}"' in unescape(page.text)  # the search stays in its box
    kind = client.get(f"/documents/{PRM}?kind=rule&q={quote(word)}")
    assert not re.findall(r'<tr data-href="[^"]+" data-ref="(t_[^"]+)"', kind.text)  # the filters are kept


def test_the_queue_is_paged_keeping_its_filters_and_search(extracted, monkeypatch):
    monkeypatch.setattr("knowledge_assets.review.web.pages.QUEUE_PAGE_SIZE", 5)
    client = TestClient(create_app(extracted.path), base_url="http://127.0.0.1")
    entries = queue_entries(extracted, PRM)
    terms = [e.ref for e in entries if e.kind == "term"]
    assert len(terms) > 5
    seen = []
    for n in range(1, -(-len(terms) // 5) + 1):
        page = client.get(f"/documents/{PRM}?kind=term&page={n}").text
        seen += re.findall(r'<tr data-href="[^"]+" data-ref="([^"]+)"', page)
        if n > 1:
            assert f"kind=term&amp;page={n - 1}" in page or (n == 2 and 'href="/documents/' in page)
    assert seen == terms
    first = client.get(f"/documents/{PRM}?kind=term").text
    assert f"entries 1–5 of {len(terms)} matching, of {len(entries)}" in text_of(first)
    assert "kind=term&amp;page=2" in first
    beyond = client.get(f"/documents/{PRM}?kind=term&page=999").text  # the last page, not an empty one
    assert re.findall(r'<tr data-href="[^"]+" data-ref="([^"]+)"', beyond) == terms[(len(terms) - 1) // 5 * 5:]


# --- /documents/{doc_id}/decide and /undo ----------------------------------------------------


def test_a_batch_without_its_token_writes_nothing_and_an_approval_asks_first_naming_the_count(client, server):
    refs = [e.ref for e in queue_entries(server.store, PRM)[:3]]
    before = snapshot(server.store)
    forged = client.post(f"/documents/{PRM}/decide", [("decision", "reject"), ("reviewer", "m"), ("note", "x"),
                                                      *picked(server.store, PRM, refs)])
    assert forged.status == 403
    csrf = client.get(f"/documents/{PRM}").csrf
    form = [("csrf", csrf), ("decision", "approve"), ("reviewer", "alice"), *picked(server.store, PRM, refs)]
    asked = client.post(f"/documents/{PRM}/decide", form)
    assert asked.status == 200 and "Approve these 3 entries?" in text_of(asked.text)
    assert snapshot(server.store) == before
    done = client.post(f"/documents/{PRM}/decide", [*form, ("confirm", "3")])
    assert done.status == 303 and "batch=" in done.headers["location"]
    assert [(r.key.ref, r.decision, r.reviewer) for r in history(server.store, PRM)] == [
        (ref, "approved", "alice") for ref in refs]
    queue = client.get(done.headers["location"])
    assert "Undo these 3" in text_of(queue.text)
    token = re.search(r"batch=([\w-]+)", done.headers["location"])[1]
    undone = client.post(f"/documents/{PRM}/undo", [("csrf", csrf), ("reviewer", "alice"), ("batch", token),
                                                    *hidden_entries(queue.text)])
    assert undone.status == 303
    assert all(state_of(server.store, PRM, ref) == "unreviewed" for ref in refs)


def test_a_bulk_rejection_asks_first_naming_the_count_and_carries_its_note_through(client, server):
    refs = [e.ref for e in queue_entries(server.store, PRM)[:4]]
    before = snapshot(server.store)
    csrf = client.get(f"/documents/{PRM}").csrf
    form = [("csrf", csrf), ("decision", "reject"), ("reviewer", "alice"), ("note", "not in this standard"),
            *picked(server.store, PRM, refs)]
    asked = client.post(f"/documents/{PRM}/decide", form)
    assert asked.status == 200 and "Reject these 4 entries?" in text_of(asked.text)
    assert snapshot(server.store) == before
    assert re.search(r'<input name="note" value="not in this standard" required', asked.text)
    assert hidden_entries(asked.text) == picked(server.store, PRM, refs)
    # The confirmation page's own form, as the browser sends it.
    confirmed = [("csrf", csrf), ("decision", hidden(asked.text, "decision")),
                 ("confirm", hidden(asked.text, "confirm")), ("reviewer", "alice"),
                 ("note", "not in this standard"), *hidden_entries(asked.text)]
    assert hidden(asked.text, "confirm") == "4"
    done = client.post(f"/documents/{PRM}/decide", confirmed)
    assert done.status == 303 and "batch=" in done.headers["location"]
    assert [(r.key.ref, r.decision, r.note) for r in history(server.store, PRM)] == [
        (ref, "rejected", "not in this standard") for ref in refs]
    # A count that is not the selection's is not a confirmation of it.
    again = client.post(f"/documents/{PRM}/decide", [*form[:4], *picked(server.store, PRM, refs[:2]),
                                                     ("confirm", "4")])
    assert again.status == 200 and "Reject these 2 entries?" in text_of(again.text)
    assert len(history(server.store, PRM)) == 4


def test_a_batch_is_undone_after_its_page_was_left_and_the_server_restarted(extracted, tmp_path):
    refs = [e.ref for e in queue_entries(extracted, PRM)[:3]]
    with review_server(extracted, tmp_path / "first.log") as first:
        client = first.client()
        csrf = client.get(f"/documents/{PRM}").csrf
        done = client.post(f"/documents/{PRM}/decide", [("csrf", csrf), ("decision", "reject"), ("reviewer", "alice"),
                                                        ("note", "not a term"), *picked(extracted, PRM, refs),
                                                        ("confirm", "3")])
        assert done.status == 303
        assert client.get(entry_path(refs[0], PRM)).status == 200  # the reviewer moves on
    with review_server(extracted, tmp_path / "second.log") as second:  # another process: nothing in memory
        client = second.client()
        # The entry's history offers the batch its latest decision was one of, bound to what the page shows.
        page = client.get(entry_path(refs[1], PRM))
        offer = re.search(r'<form method="post" action="/documents/[^"]+/undo" class="undo batch-undo".*?</form>',
                          page.text, re.S)[0]
        assert "Undo these 3" in text_of(offer) and "Rejected by alice" in text_of(offer)
        assert sorted(hidden_entries(offer)) == sorted(picked(extracted, PRM, refs))
        # The queue lists it among the latest batches, and its own link still names it.
        assert "Latest batches (1)" in text_of(client.get(f"/documents/{PRM}").text)
        again = client.get(done.headers["location"])
        assert "Undo these 3" in text_of(again.text)
        undone = client.post(f"/documents/{PRM}/undo", [("csrf", page.csrf), ("reviewer", "bob"),
                                                        ("batch", hidden(offer, "batch")), *hidden_entries(offer)])
        assert undone.status == 303 and "undone=3" in undone.headers["location"]
        assert "Latest batches" not in text_of(client.get(f"/documents/{PRM}").text)
        assert "Nothing of this batch is left to undo" in text_of(client.get(done.headers["location"]).text)
    assert [(r.key.ref, r.decision) for r in history(extracted, PRM)] == [
        *((ref, "rejected") for ref in refs), *((ref, "withdrawn") for ref in refs)]
    assert all(state_of(extracted, PRM, ref) == "unreviewed" for ref in refs)


def test_an_undo_of_a_batch_the_document_does_not_have_is_404_and_writes_nothing(client, server):
    before = snapshot(server.store)
    csrf = client.get(f"/documents/{PRM}").csrf
    answer = client.post(f"/documents/{PRM}/undo", [("csrf", csrf), ("reviewer", "bob"), ("batch", "bt_nothing")])
    assert answer.status == 404 and snapshot(server.store) == before


def test_the_progress_endpoint_gives_the_tallies_and_states_stored_now(client, server):
    ref = worklist(server.store, PRM)[0].id
    first = json.loads(client.get(f"/documents/{PRM}/progress").body)
    decide(client, ref, PRM, "approve", reviewer="alice")
    answer = client.get(f"/documents/{PRM}/progress")
    now = json.loads(answer.body)
    assert answer.status == 200 and answer.headers["cache-control"] == "no-store"
    assert now["progress"][0] == {**first["progress"][0], "decided": first["progress"][0]["decided"] + 1}
    assert first["states"][ref] == "unreviewed" and now["states"][ref] == "approved"
    assert client.get("/documents/nope/progress").status == 404


def test_an_entry_s_latest_decision_is_undone_from_its_page(client, server):
    ref = worklist(server.store, PRM)[0].id
    decide(client, ref, PRM, "reject", reviewer="alice", note="not a term")
    page = client.get(entry_path(ref, PRM))
    review_id = re.search(r'name="review_id" value="([^"]+)"', page.text)[1]
    answer = client.post(f"/entries/{quote(ref, safe='')}", {"csrf": page.csrf, "doc_id": PRM, "decision": "undo",
                                                             "review_id": review_id, "reviewer": "alice",
                                                             "seen": hidden(page.text, "seen")})
    assert answer.status == 303 and state_of(server.store, PRM, ref) == "unreviewed"
    assert [r.decision for r in history(server.store, PRM)] == ["rejected", "withdrawn"]


def test_an_undo_of_a_decision_decided_again_since_says_nothing_was_undone(client, server):
    ref = worklist(server.store, PRM)[0].id
    decide(client, ref, PRM, "reject", reviewer="alice", note="not a term")
    page = client.get(entry_path(ref, PRM))
    stale_id = re.search(r'name="review_id" value="([^"]+)"', page.text)[1]
    decide(client, ref, PRM, "approve", reviewer="bob")
    answer = client.post(f"/entries/{quote(ref, safe='')}", {"csrf": page.csrf, "doc_id": PRM, "decision": "undo",
                                                             "review_id": stale_id, "reviewer": "alice",
                                                             "seen": hidden(page.text, "seen")})
    assert answer.status == 400 and "Nothing was undone" in text_of(answer.text)
    assert [r.decision for r in history(server.store, PRM) if r.key.ref == ref] == ["rejected", "approved"]
