"""Candidate terms found by the shape of the words: acronyms, capitalised multi-word phrases,
English glosses in parentheses, and terms a sentence files something under.

Technical documents of both languages capitalise their terms mid-sentence ("dihitung dalam
Working Hours", "from the summed Operating Hours") and gloss Indonesian wording with the
English term in parentheses ("pengupasan tanah penutup (overburden removal)"); these are the
signals used, since no part-of-speech tagger for Indonesian runs offline here.
"""

from __future__ import annotations

import re

from knowledge_assets.candidates.lexicon import CLASSIFYING_VERBS, CONJUNCTIONS, LEGAL_FORMS, UNITS
from knowledge_assets.candidates.text import matches_near
from knowledge_assets.contracts import Chunk
from knowledge_assets.terms.document_vocabulary import Vocabulary
from knowledge_assets.terms.mentions import Mention, MentionKind
from knowledge_assets.terms.tokens import (
    WORD,
    Token,
    gaps_are_spaces,
    is_acronym,
    is_connector,
    is_number,
    is_stopword,
    is_title_word,
    starts_sentence,
    tokens,
)

_GLOSS = re.compile(r"\(([^()\n]{1,60})\)")
_MAX_GLOSS_WORDS = 4
_SHOUTED_MIN_LETTERS = 5
_CLASSIFYING = re.compile(
    r"\b(?P<verb>\w+)\s+(?:as|sebagai)\s+(?:(?:a|an|the)\s+)?(?=\w)", re.IGNORECASE
)
# `as`/`sebagai` alone, where `_CLASSIFYING` is tried from: its verb is the word before it.
_AS = re.compile(r"(?<=\s)(?:as|sebagai)\s", re.IGNORECASE)
_CONTRASTED = re.compile(r"\s*,?\s*(?:and\s+|dan\s+)?(?:not|bukan|tidak)\s+(?:as|sebagai)\s+(?:(?:a|an)\s+)?")
_MAX_CLASSIFIED_WORDS = 2
# After the term, a conjunction or a negation may follow ("a delay and not as a breakdown").
_PHRASE_ENDERS = CONJUNCTIONS | {"not", "bukan", "tidak"}


def acronyms(chunk: Chunk, words: list[Token] | None = None) -> list[Mention]:
    words = tokens(chunk.text) if words is None else words
    shouted = _shouted(chunk.text, words)
    return [
        Mention.at(chunk, w.start, w.end, "organisation" if w.text.lower() in LEGAL_FORMS else "acronym")
        for i, w in enumerate(words)
        if is_acronym(w.text) and i not in shouted
    ]


def _shouted(text: str, words: list[Token]) -> set[int]:
    """Indices of capitals that are a heading in upper case ("TUJUAN PARAMETER"), not acronyms."""
    shouted: set[int] = set()
    run: list[int] = []
    # Runs of consecutive words in capitals, space apart; the capitals are few, so only they
    # are walked.
    for i in [i for i, word in enumerate(words) if word.text.isupper() and word.text.isalpha()]:
        if run and run[-1] == i - 1 and gaps_are_spaces(text, words[i - 1], words[i]):
            run.append(i)
            continue
        _add_shouted(shouted, run, words)
        run = [i]
    _add_shouted(shouted, run, words)
    return shouted


def _add_shouted(shouted: set[int], run: list[int], words: list[Token]) -> None:
    if len(run) >= 2 and any(len(words[j].text) >= _SHOUTED_MIN_LETTERS for j in run):
        shouted.update(run)


def title_phrases(chunk: Chunk, known: Vocabulary, words: list[Token] | None = None) -> list[Mention]:
    """Runs of two or more capitalised words ("Machine on Hand Hours"), cut at acronyms.

    A sentence's first word joins only if the document capitalises it by choice elsewhere.
    An acronym ends the phrase before it ("Target PA" is `PA`) and what follows it is its
    qualifier, not a term ("MOHH Actual", "PM Completed On Time"); after a legal form
    ("PT Samudra Karya Tambang") it is the issuer's name.
    """
    mentions: list[Mention] = []
    for run in _capitalised_runs(chunk.text, tokens(chunk.text) if words is None else words):
        if not known.may_open_term(run[0].text, starts_sentence(chunk.text, run[0].start)):
            run = run[1:]
        kind: MentionKind | None = "phrase"
        segment: list[Token] = []
        for word in run + [None]:
            if word is not None and not (is_acronym(word.text) or word.text in known.short_forms):
                segment.append(word)
                continue
            if kind is not None:
                mentions += _phrase(chunk, segment, kind)
            kind = "organisation" if word is not None and word.text.lower() in LEGAL_FORMS else None
            segment = []
    return mentions


def _capitalised_runs(text: str, words: list[Token]) -> list[list[Token]]:
    runs: list[list[Token]] = []
    run: list[Token] = []
    for word in words:
        title = is_title_word(word.text)
        if run and (title or is_connector(word.text)) and gaps_are_spaces(text, run[-1], word):
            run.append(word)
            continue
        # A single word is no phrase, whatever else holds.
        if len(run) >= 2:
            runs.append(run)
        run = [word] if title else []
    if len(run) >= 2:
        runs.append(run)
    return runs


def _phrase(chunk: Chunk, words: list[Token], kind: MentionKind) -> list[Mention]:
    words = _trim(words)
    titled = [w for w in words if not is_connector(w.text)]
    return [Mention.over(chunk, words, kind)] if len(titled) >= 2 else []


def _trim(words: list[Token]) -> list[Token]:
    """Drops stopwords and connectors from either end: "Jika FF", "for MTBF"."""
    start, end = 0, len(words)
    while start < end and (is_stopword(words[start].text) or is_connector(words[start].text)):
        start += 1
    while end > start and (is_stopword(words[end - 1].text) or is_connector(words[end - 1].text)):
        end -= 1
    return words[start:end]


def glosses(chunk: Chunk) -> list[Mention]:
    """English terms glossing Indonesian wording: "(overburden removal)", "(cut-off)".

    One plain word in parentheses is too often an ordinary translation ("(plan)") to count;
    a gloss after a code or number ("P1 (safety related)") explains the code, not a term.
    """
    mentions: list[Mention] = []
    for match in _GLOSS.finditer(chunk.text):
        before = WORD.findall(chunk.text[max(0, match.start() - 40) : match.start()])
        if not before or not before[-1].isalpha() or is_acronym(before[-1]):
            continue
        words = tokens(match.group(1))
        if not _is_gloss(match.group(1), words):
            continue
        words = _trim(words)
        if len(words) >= 2 or (len(words) == 1 and "-" in words[0].text):
            offset = match.start(1)
            mentions.append(Mention.at(chunk, offset + words[0].start, offset + words[-1].end, "gloss"))
    return mentions


def _is_gloss(text: str, words: list[Token]) -> bool:
    """Lowercase words, not all units; a list ("(hujan dan jalan licin)") gives examples."""
    return (
        0 < len(words) <= _MAX_GLOSS_WORDS
        and text.strip() == " ".join(w.text for w in words)
        and all(w.text.islower() and not is_number(w.text) and w.text not in CONJUNCTIONS for w in words)
        and not all(w.text in UNITS for w in words)
    )


def classified_terms(chunk: Chunk) -> list[Mention]:
    """What a rule files an event under: "recorded as a delay and not as a breakdown",
    "dicatat sebagai Delay dan bukan sebagai Breakdown"."""
    mentions: list[Mention] = []
    for match in matches_near(_CLASSIFYING, _AS, chunk.text, _word_before):
        if match.group("verb").lower() not in CLASSIFYING_VERBS:
            continue
        position = match.end()
        while (words := _noun_phrase(chunk.text, position)) is not None:
            mentions.append(Mention.over(chunk, words, "classified"))
            contrast = _CONTRASTED.match(chunk.text, words[-1].end)
            if contrast is None:
                break
            position = contrast.end()
    return mentions


def _word_before(text: str, position: int) -> int:
    """Where the word before the spaces before `position` starts."""
    while position and text[position - 1].isspace():
        position -= 1
    while position and not text[position - 1].isspace():
        position -= 1
    return position


def _noun_phrase(text: str, position: int) -> list[Token] | None:
    """One or two words that end the clause or meet a conjunction: "a delay and …", never
    the head of a longer phrase ("a continuation of …", "unscheduled breakdown time")."""
    words: list[Token] = []
    for word in tokens(text[position : position + 80]):
        word = Token(word.text, position + word.start, position + word.end)
        if len(words) == _MAX_CLASSIFIED_WORDS or (words and not gaps_are_spaces(text, words[-1], word)):
            break
        if not word.text.isalpha() or is_stopword(word.text):
            break
        words.append(word)
    if not words:
        return None
    after = text[words[-1].end : words[-1].end + 20].lstrip(" \t")
    following = WORD.match(after)
    if not after or after[0] in ".,;:)" or (following and following.group().lower() in _PHRASE_ENDERS):
        return words
    return None
