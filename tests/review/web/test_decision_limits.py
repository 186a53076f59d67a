"""The web form records through review/decisions.py too: a name over its limit is refused on
the page, and nothing is written."""

from knowledge_assets.review.decisions import REVIEWER_MAX_CHARS
from knowledge_assets.review.document_queues import worklist
from tests.review.conftest import KPI, snapshot
from tests.review.web.test_app import decide


def test_the_web_form_refuses_a_name_over_its_limit_and_writes_nothing(client, server):
    ref = worklist(server.store, KPI)[0].id
    before = snapshot(server.store)
    answer = decide(client, ref, KPI, "approve", reviewer="x" * (REVIEWER_MAX_CHARS + 1))
    assert answer.status == 400 and f"a reviewer name has at most {REVIEWER_MAX_CHARS} characters" in answer.text
    assert snapshot(server.store) == before
