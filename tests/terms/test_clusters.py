"""Clusters of surface variants, their canonical form, id and rank."""

import re

from knowledge_assets.ids import term_id
from knowledge_assets.terms.clusters import TermCluster, cluster_mentions
from knowledge_assets.terms.mentions import Mention, MentionKind
from knowledge_assets.terms.tokens import term_key
from tests.terms.conftest import chunk


def clusters(
    text: str,
    surfaces: list[str],
    pairs: list[tuple[str, str]] = (),
    kinds: dict[str, MentionKind] | None = None,
    doc_id: str = "DOC-1",
) -> list[TermCluster]:
    """Clusters of every occurrence of `surfaces` in `text`, longest surface first."""
    piece = chunk(text, doc_id=doc_id)
    alternatives = "|".join(re.escape(s) for s in sorted(surfaces, key=len, reverse=True))
    mentions = [
        Mention.at(piece, m.start(), m.end(), (kinds or {}).get(m.group(), "occurrence"))
        for m in re.finditer(rf"\b(?:{alternatives})\b", text)
    ]
    return cluster_mentions(doc_id, mentions, [piece], list(pairs), [])[0]


def by_canonical(found: list[TermCluster]) -> dict[str, tuple[str, ...]]:
    return {c.canonical: c.surfaces for c in found}


def test_abbreviation_joins_every_long_form_and_the_most_frequent_long_form_is_canonical():
    text = "Physical of Availability (PA). Physical Availability (PA). PA = Physical Availability, PA naik."
    found = clusters(
        text,
        ["Physical of Availability", "Physical Availability", "PA"],
        pairs=[("PA", "Physical of Availability"), ("PA", "Physical Availability"), ("PA", "Physical Availability")],
    )
    assert by_canonical(found) == {"Physical Availability": ("PA", "Physical Availability", "Physical of Availability")}
    (cluster,) = found
    assert cluster.abbreviation == "PA" and cluster.mention_count == 7
    assert cluster.long_forms == ("Physical Availability", "Physical of Availability")


def test_case_spacing_and_plural_variants_are_one_cluster_keeping_the_documents_wording():
    found = clusters("Cut-off harian. cut off bulanan. cutoffs lain. Cut-off lagi.", ["Cut-off", "cut off", "cutoffs"])
    assert by_canonical(found) == {"Cut-off": ("Cut-off", "cut off", "cutoffs")}


def test_spelling_variants_join_but_distinct_terms_stay_apart():
    text = ("Utilization of Availability, Utilisation of Availability, CT Loading, CT Hauling, Scheduled Breakdown, "
            "Unscheduled Breakdown")
    found = clusters(
        text,
        ["Utilization of Availability", "Utilisation of Availability", "CT Loading", "CT Hauling",
         "Scheduled Breakdown", "Unscheduled Breakdown"],
    )
    assert sorted(len(c.surfaces) for c in found) == [1, 1, 1, 1, 2]


def test_look_alike_long_forms_of_different_abbreviations_never_merge():
    text = "Planned Maintenance (PM) dan Planed Maintenance (PLM)"
    found = clusters(
        text,
        ["Planned Maintenance", "Planed Maintenance", "PM", "PLM"],
        pairs=[("PM", "Planned Maintenance"), ("PLM", "Planed Maintenance")],
    )
    assert sorted(c.canonical for c in found) == ["Planed Maintenance", "Planned Maintenance"]


def test_a_heading_or_definition_wording_is_canonical_over_a_more_frequent_variant():
    text = "Unscheduled Breakdown means a stop. unscheduled breakdowns, unscheduled breakdowns."
    found = clusters(
        text, ["Unscheduled Breakdown", "unscheduled breakdowns"], kinds={"Unscheduled Breakdown": "defined"}
    )
    assert [c.canonical for c in found] == ["Unscheduled Breakdown"]


def test_without_long_form_the_abbreviation_is_canonical():
    found = clusters("CMMS dan CMMS.", ["CMMS"])
    assert [(c.canonical, c.abbreviation) for c in found] == [("CMMS", "CMMS")]


def test_ranked_by_mention_count_then_canonical_with_contract_ids_and_first_provenance():
    found = clusters("Backlog, MTBF, Delay, MTBF, Backlog, MTBF", ["Backlog", "MTBF", "Delay"], doc_id="SKT-X-1")
    assert [(c.rank, c.canonical, c.mention_count) for c in found] == [
        (1, "MTBF", 3), (2, "Backlog", 2), (3, "Delay", 1)]
    assert all(c.term_id == term_id("SKT-X-1", c.canonical) for c in found)
    backlog = found[1]
    assert (backlog.provenance.span, backlog.provenance.chunk_id, backlog.provenance.doc_id) == (
        "Backlog", "SKT-X-1::0000", "SKT-X-1"
    )


def test_two_names_defined_apart_stay_two_clusters_however_alike(tmp_path):
    from knowledge_assets.terms.funnel import run_term_funnel
    from tests.terms.conftest import markdown_document

    document = markdown_document(tmp_path, (
        "Laju Alir: volume fluida yang mengalir per detik.\n\n"
        "Laju Air: volume air yang keluar dari pompa per jam.\n"
    ))
    assert {"Laju Alir", "Laju Air"} <= {c.canonical for c in run_term_funnel(document).clusters}


def test_a_word_that_says_something_keeps_two_names_apart_a_joining_word_does_not():
    text = "Pemanasan lebih terjadi. Pemanasan terjadi. Zona sangat dingin, Zona dingin. Laju of Alir, Laju Alir."
    found = clusters(text, ["Pemanasan lebih", "Pemanasan", "Zona sangat dingin", "Zona dingin", "Laju of Alir",
                            "Laju Alir"])
    assert sorted(len(c.surfaces) for c in found) == [1, 1, 1, 1, 2]


def test_an_acronym_is_headed_by_its_singular_and_keeps_its_plural_as_a_surface():
    text = "Service-level objective (SLO). Define SLOs early; SLOs guide alerts; SLOs and the SLO differ."
    (cluster,) = clusters(text, ["Service-level objective", "SLO", "SLOs"], pairs=[("SLO", "Service-level objective")])
    assert cluster.abbreviation == "SLO" and "SLOs" in cluster.surfaces


def test_each_term_key_is_given_the_term_id_of_the_cluster_that_holds_its_surfaces():
    text = "Physical Availability (PA). PA naik. Fill Factor turun, fill factors naik."
    piece = chunk(text)
    surfaces = ["Physical Availability", "PA", "Fill Factor", "fill factors"]
    mentions = [Mention.at(piece, m.start(), m.end(), "occurrence")
                for m in re.finditer("|".join(map(re.escape, surfaces)), text)]
    found, cluster_of = cluster_mentions("DOC-1", mentions, [piece], [("PA", "Physical Availability")], [])
    holding = {surface: c.term_id for c in found for surface in c.surfaces}
    assert {m.surface: cluster_of[term_key(m.surface)] for m in mentions} == {s: holding[s] for s in surfaces}
    assert len(set(cluster_of.values())) == len(found) == 2
