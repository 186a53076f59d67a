"""What the whole document tells about single words, read before any term is extracted.

A sentence's first word is capitalised by grammar, not by choice; whether "Satuan" in
"Satuan Production adalah BCM" belongs to a term is decided by whether the document ever
capitalises it where grammar does not ask for it: after a lowercase word ("dalam Working
Hours"), a bracket, an operator or a comma. Headings are title-cased throughout, so they
are no evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

from knowledge_assets.contracts import Chunk
from knowledge_assets.terms.heading_terms import heading_span
from knowledge_assets.terms.tokens import (
    ChunkWords,
    Token,
    is_acronym,
    is_title_word,
    last_visible,
    starts_sentence,
    tokens,
)

_AFTER_OPERATOR = "(=,+-−/×*"


@dataclass(frozen=True)
class Vocabulary:
    capitalised_by_choice: frozenset[str]
    short_forms: frozenset[str]  # paired with a long form somewhere (`Qty`, `Pty`)

    def may_open_term(self, word: str, at_sentence_start: bool) -> bool:
        return not at_sentence_start or is_acronym(word) or word in self.capitalised_by_choice


def read_vocabulary(chunks: list[Chunk], short_forms: set[str], words_of: ChunkWords | None = None) -> Vocabulary:
    chosen: set[str] = set()
    for chunk in chunks:
        words = tokens(chunk.text) if words_of is None else words_of[chunk.chunk_id]
        heading = heading_span(chunk, words)
        for previous, word in zip(words, words[1:]):
            if heading and heading[0] <= word.start < heading[1]:
                continue
            if (word.text not in chosen and is_title_word(word.text)
                    and _capitalised_by_choice(chunk.text, previous, word.start)):
                chosen.add(word.text)
    return Vocabulary(frozenset(chosen), frozenset(short_forms))


def _capitalised_by_choice(text: str, previous: Token, position: int) -> bool:
    if starts_sentence(text, position):
        return False
    index = last_visible(text, position)
    return text[index] in _AFTER_OPERATOR or (previous.end == index + 1 and previous.text.islower())
