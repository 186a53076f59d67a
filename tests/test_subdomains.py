"""The subdomain enum's vocabulary, and the document-level check that keeps it to mining (D81)."""

from __future__ import annotations

from knowledge_assets.llm.extractor import split_request
from knowledge_assets.llm.offline import OfflineBackend
from knowledge_assets.llm.requests import GlossaryRequest, SourceChunk, TermBlock
from knowledge_assets.subdomains import speaks_mining, subdomain_tags

SRE = ["A service-level agreement (SLA) is a contract with the service consumer.",
       "The blast radius of an incident is the number of users it affects; each bucket counts one."]
MINE = ["Unit loading di front tambang: excavator mengisi dump truck.",
        "Overburden diangkut ke disposal; ritase dihitung per shift."]


def test_tags_come_from_the_terms_own_words_most_mentioned_first():
    assert subdomain_tags("Excavator bucket swing time, measured for each excavator") == ["loading"]
    assert subdomain_tags("Cycle time of the dump truck hauling overburden")[:2] == ["hauling", "production"]
    assert subdomain_tags("Rasio antara dua bilangan") == []


def test_a_document_speaks_mining_only_when_it_names_the_domain_more_than_in_passing():
    assert speaks_mining(MINE)
    assert not speaks_mining(SRE)
    # One mention of a mine in an environmental annex is not a mining document.
    assert not speaks_mining(["Lepasan dari fasilitas tambang dihitung per tahun.", *SRE])
    # `ore` and `mine` are words, not parts of `more` or `determine`.
    assert not speaks_mining(["Determine more of the score; examine it once more."])


def _request(text: str, mining: bool) -> GlossaryRequest:
    chunk = SourceChunk(chunk_id="D::0001", text=text, heading_path=[])
    block = TermBlock(key="t_sla", canonical="service-level agreement", abbreviation="SLA", chunks=[chunk])
    return GlossaryRequest(clusters=[block, block.model_copy(update={"key": "t_other"})], mining_document=mining)


def test_the_offline_extractor_tags_nothing_outside_mining_and_the_split_keeps_the_document_kind():
    inside, outside = _request(SRE[0], True), _request(SRE[0], False)
    assert OfflineBackend().answer(inside).answer.terms[0].subdomain_tags == ["maintenance"]
    assert OfflineBackend().answer(outside).answer.terms[0].subdomain_tags == []
    assert [half.mining_document for half in split_request(outside)] == [False, False]
