"""Offline rules: selected among the request's rule candidates (`candidates.rules`).

A candidate with a `condition` part becomes a rule with its condition and consequence, its
span running from the first of the two (within the rule's own sentence) to the end of the
other; one without (an obligation,
prohibition or deadline whose subject is not a condition) becomes a rule stated as its whole
sentence, condition and consequence left null: a subject is not a condition. The statement
is the candidate's sentence (its `statement` part).

`rule_type` follows the contract's meaning (§2; docs/decisions.md D51). Under an
interpretation heading it is `interpretation`. Otherwise a consequence that computes or sets
a value (`set to`, `dihitung`, `formula` …), records, uses or reports one in a rule that
speaks of a number or a unit (`dicatat`, `reported` …: `Hours are recorded against …`, but
not `… harus dilaporkan pada BAPETEN`, an event), is an amount (`9% dari Harga`) or assigns
one (`Base = …`) is `calculation`; one that judges, escalates or
reads a value (`flag`, `invalid`, `means that`, `menunjukkan`, `meninjau` …), or that says
what to do when the condition compares a value with a number (`If MTBF falls below 50 hours,
…`), is `interpretation`; a rule that speaks of values and their sources (`data`, `figures`,
`angka`, `nilai` …) is `calculation`; the rest say what to do or not to do in a situation
(`Ruang makan harus bersih …`, `the encoder MUST NOT insert …`), a norm a behaviour is read
against: `interpretation`.
"""

from __future__ import annotations

import re
from functools import cache

from knowledge_assets.candidates.lexicon import UNITS
from knowledge_assets.candidates.model import Candidate
from knowledge_assets.candidates.packs import cues
from knowledge_assets.llm.requests import RuleRequest, SourceChunk
from knowledge_assets.llm.responses import RuleFound, RuleResponse

_INTERPRETATION_HEADING = re.compile(r"interpret", re.IGNORECASE)
_AS = re.compile(r"(?:\s+\w+)?\s+(?:as|sebagai)\b", re.IGNORECASE)  # `recorded as`, `dilaporkan terpisah sebagai`
_ASSIGNMENT = re.compile(r"(?<![=<>!])[-+*/]?=(?!=)")  # `x = y`, `x -= y`, not `x == y`, `x <= y`


@cache
def _type_cues(key: str) -> re.Pattern:
    words = sorted(cues("rules").get(key, ()), key=len, reverse=True)
    alternatives = "|".join(r"\s+".join(map(re.escape, w.split())) for w in words)
    return re.compile(r"\b(?:" + alternatives + r")\b", re.IGNORECASE)


def answer_rules(request: RuleRequest) -> RuleResponse:
    chunks = {chunk.chunk_id: chunk for chunk in request.chunks}
    rules: dict[tuple[str, str], RuleFound] = {}
    for candidate in request.candidates:
        chunk = chunks.get(candidate.chunk_id)
        if candidate.kind == "rule" and chunk is not None:
            found = _rule(chunk, candidate)
            rules.setdefault((found.chunk_id, found.span), found)
    return RuleResponse(rules=list(rules.values()))


def _rule(chunk: SourceChunk, candidate: Candidate) -> RuleFound:
    condition, consequence = candidate.part("condition"), candidate.part("consequence")
    statement = candidate.part("statement")
    statement_text = statement.text if statement else candidate.text
    if condition is None or consequence is None:
        condition = consequence = None
        span = statement_text
    else:
        # A condition borrowed from the sentence before (`… In this case, X MUST …`) stays
        # out of the span: the rule is where its own sentence is (and its id with it).
        start = min(condition.start, consequence.start)
        start = max(start, statement.start) if statement else start
        # Cut from the candidate's own text: a rule that runs on into the next chunk (D56)
        # indexes the two chunks' joined text, which its text is a slice of.
        span = candidate.text[start - candidate.start:max(condition.end, consequence.end) - candidate.start]
    return RuleFound(
        rule_type=_rule_type(chunk, condition.text if condition else None,
                             consequence.text if consequence else statement_text, statement_text),
        statement=statement_text,
        condition=condition.text if condition else None,
        consequence=consequence.text if consequence else None,
        span=span,
        chunk_id=chunk.chunk_id,
    )


def _rule_type(chunk: SourceChunk, condition: str | None, consequence: str, statement: str) -> str:
    heading = chunk.heading_path[-1] if chunk.heading_path else ""
    if _INTERPRETATION_HEADING.search(heading):
        return "interpretation"
    if _type_cues("calculation").search(consequence) or _sets_a_value(consequence) or _records_a_value(
            consequence, statement):
        return "calculation"
    if _type_cues("interpretation").search(consequence) or (condition and _meets_a_threshold(condition)):
        return "interpretation"
    return "calculation" if _type_cues("value").search(statement) else "interpretation"


def _records_a_value(consequence: str, statement: str) -> bool:
    """A consequence that records, uses or reports (`dicatat`, `reported` …) in a rule that
    speaks of a number or a unit (`Hours are recorded against the site`), of a report or a
    target (`the abbreviation is used in reports`), or that records as a class (`gangguan
    dicatat sebagai Breakdown`): what it records is a value. `Setiap penyinaran abnormal
    harus dilaporkan pada BAPETEN` reports an event, `Respirator harus digunakan …` uses a thing."""
    records = _type_cues("records").search(consequence)
    if records is None:
        return False
    # `dicatat sebagai Breakdown`, `reported as "no failure"`: recorded as a class of value.
    return (bool(_AS.match(consequence, records.end())) or _speaks_of_a_quantity(statement)
            or bool(_type_cues("recorded_values").search(statement)))


def _speaks_of_a_quantity(statement: str) -> bool:
    """A digit, or a unit (`hours`, `jam`, `%`) other than a one-letter one (`s`, `t`: too often
    a word or a symbol)."""
    if re.search(r"\d", statement):
        return True
    return any(word.lower() in UNITS for word in re.findall(r"%|\w{2,}", statement))


def _sets_a_value(consequence: str) -> bool:
    """`9% dari Harga`, `100.000,00`, `Base = ReqInsertCount + DeltaBase`: a consequence that is a
    rate or a fee, or holds an assignment, sets a value."""
    return bool(re.match(r"\W*\d", consequence) or _ASSIGNMENT.search(consequence))


def _meets_a_threshold(condition: str) -> bool:
    """`If MTBF falls below 50 hours`, `Jika MF kurang dari 0,9`: the condition compares a value
    with a number, so the consequence says what to do when the value meets it."""
    return bool(_type_cues("comparison").search(condition) and re.search(r"\d", condition))
