"""The rule branch's build (extract/rules.py)."""

from knowledge_assets.contracts import Chunk
from knowledge_assets.extract.rules import build_rules
from knowledge_assets.llm.responses import RuleFound

TEXT = "If the timer expires, the sender MUST retransmit."
CHUNK = Chunk(chunk_id="DOC::0001", seq=0, page=0, page_no=1, text=TEXT, char_start=0, char_end=len(TEXT))


def _found(span: str, statement: str | None = None) -> RuleFound:
    return RuleFound(rule_type="interpretation", statement=statement or span, condition=None, consequence=None,
                     span=span, chunk_id=CHUNK.chunk_id)


def test_each_rule_is_built_as_it_is_drawn_and_the_rejections_are_whole_once_all_are():
    answers = [_found("If the timer expires, the sender MUST retransmit."),
               _found("If the timer expires, the sender MUST retransmit."),
               _found("the sender MUST retransmit.", statement="the sender must wait."),
               _found("not in the text")]
    drawn = []

    def answered():
        for found in answers:
            drawn.append(found)
            yield found

    built = build_rules("DOC", answered(), {CHUNK.chunk_id: CHUNK})
    first = next(built.rules)
    # One answer read for one rule: a long document's answers are never all built at once.
    assert drawn == answers[:1] and first.statement == answers[0].statement
    # The restated rule (same id) is built once, the one whose only field is refused not at
    # all; its refusal and the span found nowhere are recorded once the last rule is drawn.
    assert list(built.rules) == []
    assert [(r.field, r.offending_value) for r in built.rejected] == [
        ("statement", "the sender must wait."), ("provenance.span", "not in the text")]
