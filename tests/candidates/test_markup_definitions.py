"""Definition candidates of web Markdown on text written for these tests: one convention each,
and a look-alike that is not one."""

from __future__ import annotations

from knowledge_assets.candidates.definitions import defining_first
from knowledge_assets.candidates.markup_definitions import markup_labels
from tests.candidates.test_definitions import found, parts

# ---------------------------------------------------------------------------------- glossary table


def test_a_glossary_table_defines_each_row_from_its_term_to_the_end_of_its_definition_cell():
    text = (
        "Keep these terms in mind.\n\n"
        "| Term | Definition |\n"
        "|---|---|\n"
        "| **Warm standby** | A second site that runs at reduced capacity until it takes over. |\n"
        "|Recovery window (RW)   |The longest time a restore may take. |\n"
    )
    standby, window = found(text)
    assert standby.cue == "glossary_table" and parts(standby)["term"] == "Warm standby"
    # The definition is the cell's text; the candidate spans the row from the term cell.
    assert parts(standby)["definition"] == "A second site that runs at reduced capacity until it takes over."
    assert standby.text == "**Warm standby** | A second site that runs at reduced capacity until it takes over."
    assert (parts(window)["term"], parts(window)["abbreviation"], parts(window)["expansion"]) == (
        "Recovery window", "RW", "Recovery window")
    assert parts(window)["definition"] == "The longest time a restore may take."


def test_a_definition_cell_stops_where_it_goes_on_to_define_another_emphasised_term():
    text = (
        "|Term  |Definition  |\n|-----|-----|\n"
        "|Error allowance | The downtime a month may hold. *Burn pace* represents how fast the allowance is spent. |\n"
    )
    row, nested = found(text)
    assert parts(row)["definition"] == "The downtime a month may hold."
    assert (parts(nested)["term"], nested.cue) == ("Burn pace", "emphasised_subject")
    assert nested.text == "*Burn pace* represents how fast the allowance is spent."


def test_a_table_whose_header_names_no_term_and_definition_columns_is_not_a_glossary():
    roles = (
        "| Role | Responsibility |\n|------|------|\n"
        "| **Shift Lead** | Owns the outage from the first alert until it is closed. |\n"
    )
    figures = "|Target |Downtime per month |\n|---|---|\n|99.9% | 43 minutes in a month |\n"
    assert found(roles) == [] and found(figures) == []


# ---------------------------------------------------------------------------------- markup labels


def test_a_bulleted_bold_label_defines_its_term_with_the_first_sentence_of_the_item():
    text = (
        "Choose one of these moves:\n\n"
        "- **Roll forward:** Ship a corrected build over the faulty one. It needs a fast pipeline.\n"
        "- **Cold spare (spare unit):** Keep an unpowered unit on the shelf.\n"
        "- **Saturation**: Share of a queue in use\n"
    )
    forward, spare, saturation = found(text)
    assert [c.cue for c in (forward, spare, saturation)] == ["markup_label"] * 3
    assert parts(forward)["definition"] == "Ship a corrected build over the faulty one."
    assert forward.text == "**Roll forward:** Ship a corrected build over the faulty one."
    assert (parts(spare)["term"], parts(spare)["alias"]) == ("Cold spare", "spare unit")
    assert parts(saturation) == {"term": "Saturation", "definition": "Share of a queue in use"}


def test_a_bold_label_outside_a_bullet_list_defines_only_under_a_glossary_heading():
    text = "Glossary\n\n**Hot path:** The code every request runs through.\n"
    (candidate,) = found(text, ["Glossary"])
    assert parts(candidate)["term"] == "Hot path"
    steps = "Outage review\n\n**Trigger:** The pager fired at noon.\n"
    assert found(steps, ["Outage review"]) == []


def test_numbered_steps_admonitions_metadata_instructions_and_changelog_scopes_are_not_labelled_terms():
    text = (
        "1. **Detection:** The team saw the error rate rise.\n\n"
        "- **Note:** Keep the runbook current.\n"
        "- **File**: report_2024.pdf\n"
        "- **Pages**: 18\n"
        "- **Skip the broken step:** Use a flag to bypass it.\n"
        "- **http**: fix header parsing for long requests.\n"
        "- **CVE-2024-1234**: Header smuggling in the parser.\n"
    )
    # Through this finder alone: `_labelled` of definitions.py still reads `**File**:` as a label.
    assert markup_labels("D::0001", text) == []


# ---------------------------------------------------------------------------------- heading labels


def test_a_heading_names_the_term_a_definition_label_under_it_defines():
    text = (
        "2. MTTA (Mean Time To Acknowledge)\n\n"
        "**Definition**: The average time from an alert to a person taking it. It counts nights too.\n\n"
        "**Why it matters**: Slow hands mean long outages.\n"
    )
    (candidate,) = found(text, ["2. MTTA (Mean Time To Acknowledge)"])
    assert candidate.cue == "heading_label"
    assert parts(candidate) == {
        "term": "Mean Time To Acknowledge",
        "definition": "The average time from an alert to a person taking it. It counts nights too.",
        "abbreviation": "MTTA",
        "expansion": "Mean Time To Acknowledge",
    }


def test_a_what_is_it_label_under_a_heading_defines_too():
    text = "Toil\n\n**What is it?** Manual work that grows with the service.\n"
    (candidate,) = found(text, ["Toil"])
    assert parts(candidate)["term"] == "Toil"
    assert parts(candidate)["definition"] == "Manual work that grows with the service."


def test_a_heading_over_a_label_that_is_not_a_definition_label_defines_nothing():
    text = "Pager load\n\n**Why it matters**: Tired people make mistakes.\n"
    assert found(text, ["Pager load"]) == []


# ---------------------------------------------------------------------------------- emphasised subjects


def test_an_emphasised_subject_with_a_defining_verb_is_a_definition():
    text = (
        "Outages vary. An *outage* is a period in which users cannot be served. More follows.\n\n"
        "- *Q* is the number of queued requests.\n\n"
        "- A **blue or ready** pool indicates that every node passed its checks. For example, after a deploy.\n"
    )
    outage, queue, pool = found(text)
    assert (parts(outage)["term"], outage.cue) == ("outage", "emphasised_subject")
    assert outage.text == "An *outage* is a period in which users cannot be served."
    assert parts(queue)["term"] == "Q" and queue.text == "*Q* is the number of queued requests."
    assert parts(pool)["term"] == "blue or ready"
    assert pool.text == "A **blue or ready** pool indicates that every node passed its checks."


def test_emphasis_without_a_defining_verb_or_inside_a_sentence_defines_nothing():
    text = (
        "*Capacity planning* helps a team buy hardware in time.\n\n"
        "A *closed* ticket is useful for audits.\n\n"
        "We keep the queue short, so the *backlog* is the first thing we read.\n\n"
        "the wrapped line of a sentence where\n*lag* is the delay of a replica.\n"
    )
    assert found(text) == []


def test_a_glossary_entry_ranks_before_an_emphasised_sentence_about_the_same_term():
    text = (
        "| Term | Definition |\n|---|---|\n| **Outage** | A period in which users cannot be served. |\n\n"
        "An *outage* is the reason the pager exists.\n"
    )
    row, sentence = found(text)
    assert defining_first([sentence, row])[0] is row


# ---------------------------------------------------------------------------------- heading subjects


def test_a_first_sentence_whose_subject_the_heading_names_is_a_definition():
    text = (
        "4.2.  Tracking peak_lag\n\n"
        "   The peak_lag is the largest delay a replica has shown since it started.  It is\n"
        "   reset on restart.\n"
    )
    (candidate,) = found(text, ["4.2.  Tracking peak_lag"])
    assert (parts(candidate)["term"], candidate.cue) == ("peak_lag", "heading_subject")
    assert candidate.text == "The peak_lag is the largest delay a replica has shown since it started."


def test_a_first_sentence_about_something_else_or_without_a_defining_verb_defines_nothing():
    assert found("Replica lag\n\nReplica lag grows under load.\n", ["Replica lag"]) == []
    assert found("Replica lag\n\nThis is the part about lag.\n", ["Replica lag"]) == []


def test_a_statutory_copula_under_a_heading_is_left_to_the_statutory_finder():
    (candidate,) = found("Replica lag\n\nReplica lag means the delay of a replica.\n", ["Replica lag"])
    assert (parts(candidate)["term"], candidate.cue) == ("Replica lag", "means")
