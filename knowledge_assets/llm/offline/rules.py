"""Offline rules: conditional sentences, split into condition and consequence.

Indonesian `Apabila/Jika/Bila … maka …` splits at `maka`; English `If/When …, …` splits at
the comma that ends the condition (a comma followed by `or`/`and` still belongs to it). The
span runs from the condition word to the end of the consequence, the statement is the whole
sentence. `rule_type` is `interpretation` under an interpretation heading or when the
consequence is a judgement or an escalation, else `calculation` (what a standard mostly holds).
"""

from __future__ import annotations

import re

from knowledge_assets.llm.offline.text import sentences
from knowledge_assets.llm.requests import RuleRequest, SourceChunk
from knowledge_assets.llm.responses import RuleFound, RuleResponse

_INDONESIAN = re.compile(r"\b(?:Apabila|Jika|Bila)\b", re.IGNORECASE)
_MAKA = re.compile(r",?\s+(maka)\b")
_ENGLISH = re.compile(r"(?:If|When)\s")
_CONDITION_CONTINUES = re.compile(r",\s+(?:or|and|atau|dan)\s")
_SENTENCE_END = (".", "!", "?", ";")
_INTERPRETATION_HEADING = re.compile(r"interpret", re.IGNORECASE)
_INTERPRETATION_CUES = re.compile(
    r"\b(?:flag\w*|review\w*|escalat\w*|indicat\w*|means that|berarti|menunjukkan|ditandai|meninjau|"
    r"mengevaluasi|dievaluasi|evaluasi|analisa penyebab|root cause)\b",
    re.IGNORECASE,
)


def answer_rules(request: RuleRequest) -> RuleResponse:
    rules = []
    for chunk in request.chunks:
        for start, end in sentences(chunk.text):
            # A sentence cut by the chunk's end (or a page footer) is not a whole rule.
            if not chunk.text[start:end].endswith(_SENTENCE_END):
                continue
            if found := _indonesian(chunk, start, end) or _english(chunk, start, end):
                rules.append(found)
    return RuleResponse(rules=rules)


def _indonesian(chunk: SourceChunk, start: int, end: int) -> RuleFound | None:
    condition = _INDONESIAN.search(chunk.text, start, end)
    maka = condition and _MAKA.search(chunk.text, condition.end(), end)
    if not maka:
        return None
    return _rule(chunk, (start, end), (condition.start(), maka.start()), (maka.start(1), end))


def _english(chunk: SourceChunk, start: int, end: int) -> RuleFound | None:
    if not _ENGLISH.match(chunk.text, start):
        return None
    comma = chunk.text.find(",", start, end)
    while comma != -1 and _CONDITION_CONTINUES.match(chunk.text, comma):
        comma = chunk.text.find(",", comma + 1, end)
    if comma == -1:
        return None
    return _rule(chunk, (start, end), (start, comma), (comma + 1, end))


def _rule(chunk: SourceChunk, sentence: tuple[int, int], condition: tuple[int, int], consequence: tuple[int, int]) -> RuleFound | None:
    text = chunk.text
    consequence_text = text[slice(*consequence)].strip().rstrip(".").rstrip()
    if not consequence_text:
        return None
    consequence_start = text.index(consequence_text, consequence[0])
    consequence_end = consequence_start + len(consequence_text)
    heading = chunk.heading_path[-1] if chunk.heading_path else ""
    interpretation = bool(_INTERPRETATION_HEADING.search(heading) or _INTERPRETATION_CUES.search(consequence_text))
    return RuleFound(
        rule_type="interpretation" if interpretation else "calculation",
        statement=text[slice(*sentence)],
        condition=text[slice(*condition)].strip(),
        consequence=consequence_text,
        span=text[condition[0]:consequence_end],
        chunk_id=chunk.chunk_id,
    )
