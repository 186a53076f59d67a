"""The protocol's identities and closed vocabularies (docs/semantic_review.md §2-§4), adapted to
this project's outputs: glossary entries, formulas, rules, the domain context, and the gold
obligations of a document. docs/semantic_review.md says what each adapted code means here."""

from __future__ import annotations

from dataclasses import dataclass

from knowledge_assets import branches
from knowledge_assets.contracts import Branch

# Each file kind has its own versioned identity: a change of protocol is a new version, never a
# silent reinterpretation of an old file.
BUNDLE_FORMAT = "knowledge-assets/semantic-bundle/v1"
PLAN_FORMAT = "knowledge-assets/semantic-plan/v1"
CAPTURES_FORMAT = "knowledge-assets/semantic-captures/v1"
TARGETS_FORMAT = "knowledge-assets/semantic-targets/v1"
OUTPUT_REVIEW_FORMAT = "knowledge-assets/output-review/v1"
REPORT_FORMAT = "knowledge-assets/semantic-report/v1"
REFERENCE_REVIEW_FORMAT = "knowledge-assets/reference-review/v1"

SPLITS = ("development", "validation")
# Format limits carried over from the protocol's capture v1 (docs/semantic_review.md §2), not a
# sample-size justification.
REPEATS = (1, 2)

REQUIRED = "required"
IF_SELECTED = "if_selected"

ITEM_KINDS = ("entity", "span", "role", "case")
VERDICTS = ("correct", "incorrect", "uncertain", "required_missing", "optional_not_selected")
_JUDGED = ("correct", "incorrect", "uncertain")

ERROR_CODES = (
    "scope", "boundary", "identity", "referent_kind", "unsupported_qualifier", "relation",
    "polarity", "modality", "conditions", "time", "coverage", "provenance", "unsupported_fact",
)
# An incorrect decision carrying one of these blocks acceptance whatever the plan allows.
CRITICAL_ERROR_CODES = frozenset({"identity", "provenance", "unsupported_fact"})



def allowed_verdicts(item_kind: str, coverage: str | None = None) -> tuple[str, ...]:
    """A gap verdict only fits an obligation, and only the one its coverage names: a missing
    required role is a gap, an unselected optional one is neither gap nor error."""
    if item_kind != "role":
        return _JUDGED
    return _JUDGED + (("required_missing",) if coverage == REQUIRED else ("optional_not_selected",))


@dataclass(frozen=True)
class EntityKind:
    name: str
    payload: str
    id_field: str
    branch: Branch


# Read off the branch registry when the module loads, like review.entities.KINDS.
ENTITY_KINDS = tuple(
    EntityKind(spec.name, spec.export_file, spec.id_field, spec.contract_branch) for spec in branches.registered()
)
