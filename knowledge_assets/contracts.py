"""Pydantic models of every payload: the output contract v2 (docs/contract.md) with the live v3
domain context (docs/contract.md v3), plus the parsed-document models the stages read.

No logic lives here beyond shape validation. Field names, types, nullability and defaults
follow the contract exactly; where the contract left a choice open the decision is in
docs/decisions.md.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

Subdomain = Literal[
    "production",
    "maintenance",
    "hauling",
    "loading",
    "drilling_blasting",
    "equipment",
    "safety",
    "quality",
    "planning",
    "cost",
    "geology",
    "other",
]
ExtractionStatus = Literal["ok", "no_definition_found", "escalated"]
DiffStatus = Literal["new", "duplicate", "conflicting"]
RuleType = Literal["interpretation", "calculation"]
LatexVerification = Literal["verified", "unverified_no_markup", "unverified_operator"]
Branch = Literal["glossary", "rule", "formula", "summary"]
RowKind = Literal["term", "key_parameter"]

REVIEW_REASON_CONFLICT = "conflicting definitions — expert decision required"
REVIEW_REASON_WORDING = "source wording differs from the expanded name — confirm which is correct"
REVIEW_REASON_NO_DEFINITION = "term found but no definition in document"
REVIEW_REASON_REJECTED = "definition rejected by span check or absent"
REVIEW_REASON_ROUTINE = "routine confirmation"
REVIEW_REASON_UNRESOLVED_KEY_PARAMETER = (
    "named as a key parameter but no extracted term corroborates it — confirm it is real"
)
ReviewReason = Literal[
    "conflicting definitions — expert decision required",
    "source wording differs from the expanded name — confirm which is correct",
    "term found but no definition in document",
    "definition rejected by span check or absent",
    "routine confirmation",
    "named as a key parameter but no extracted term corroborates it — confirm it is real",
]

SUBDOMAINS: tuple[str, ...] = get_args(Subdomain)
REVIEW_REASONS: tuple[str, ...] = get_args(ReviewReason)

NonNegativeInt = Annotated[int, Field(ge=0)]


class ContractModel(BaseModel):
    """Base for every payload: unknown fields are an error, not silently kept."""

    model_config = ConfigDict(extra="forbid")


class SpanPiece(ContractModel):
    """One chunk's part of a span that crosses a page break or a chunk boundary (D56)."""

    page: NonNegativeInt
    page_no: Annotated[int, Field(ge=1)]
    chunk_id: str
    span: str


class Provenance(ContractModel):
    """Where an entity comes from. `span` is verbatim from the source and is checked.

    `pieces` is present only when the span crosses from one chunk into the next (D56): then
    `span` is the pieces' spans joined by one space and the location fields are the first
    piece's. JSON leaves it out when absent, so a one-chunk span is exported as it always was;
    a Python dump keeps it (the store's STRUCT has the field either way)."""

    doc_id: str
    span: str
    page: NonNegativeInt | None = None
    page_no: Annotated[int, Field(ge=1)] | None = None
    section_no: str | None = None
    chunk_id: str | None = None
    pieces: list[SpanPiece] | None = None

    @model_serializer(mode="wrap")
    def _pieces_only_when_present(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> dict:
        data = handler(self)
        if self.pieces is None and info.mode_is_json():
            data.pop("pieces", None)
        return data

    @model_validator(mode="after")
    def _page_no_counts_the_same_page(self) -> Provenance:
        # page (0-based, as the parser reports) and page_no (1-based, what a human reads)
        # are one location counted two ways (docs/contract.md v3 §3); they may never disagree.
        if self.page is not None and self.page_no is None:
            self.page_no = self.page + 1
        elif self.page is not None and self.page_no != self.page + 1:
            raise ValueError(f"page_no {self.page_no} does not match 0-based page {self.page}")
        elif self.page is None and self.page_no is not None:
            raise ValueError("page_no given without page")
        return self


class GlossaryEntry(ContractModel):
    term_id: str
    term: str
    full_name: str | None = None
    source_wording: str | None = None
    definition: str | None = None
    defining_formula_id: str | None = None
    subdomain_tags: list[Subdomain] = Field(default_factory=list)
    mention_count: NonNegativeInt = 0
    provenance: Provenance
    extraction_status: ExtractionStatus = "ok"
    diff_status: DiffStatus | None = None
    definition_conflict: bool = False
    conflict_variants: list[str] = Field(default_factory=list)


class RuleEntry(ContractModel):
    rule_id: str
    rule_type: RuleType
    statement: str | None = None
    condition: str | None = None
    consequence: str | None = None
    formula_ids: list[str] = Field(default_factory=list)
    term_ids: list[str] = Field(default_factory=list)
    provenance: Provenance


class FormulaVariable(ContractModel):
    symbol: str
    term_id: str | None = None
    meaning: str | None = None


class FormulaEntry(ContractModel):
    formula_id: str
    name: str | None = None
    formula_latex: str | None = None
    variables: list[FormulaVariable] = Field(default_factory=list)
    unit: str | None = None
    latex_verification: LatexVerification | None = None
    provenance: Provenance


class KeyParameter(ContractModel):
    surface: str
    term_id: str | None = None


class DomainContext(ContractModel):
    domain_id: str
    title: str | None = None
    purpose_verbatim: str | None = None
    outline: list[str] = Field(default_factory=list)
    key_parameters: list[KeyParameter] = Field(default_factory=list)
    subdomains: list[Subdomain] = Field(default_factory=list)
    n_terms: NonNegativeInt = 0
    n_formulas: NonNegativeInt = 0
    n_rules: NonNegativeInt = 0
    provenance: Provenance


class _QueueRowFields(ContractModel):
    rank: Annotated[int, Field(ge=1)]
    term: str
    definition: str | None = None
    source_wording: str | None = None
    mention_count: NonNegativeInt = 0
    page: NonNegativeInt | None = None
    page_no: Annotated[int, Field(ge=1)] | None = None
    section_no: str | None = None
    span: str
    review_reason: ReviewReason


class TermQueueRow(_QueueRowFields):
    """A glossary entry awaiting review; the decision attaches to `term_id`."""

    row_kind: Literal["term"] = "term"
    term_id: str


class KeyParameterQueueRow(_QueueRowFields):
    """A key parameter no extracted term corroborates; the decision attaches to `domain_id`."""

    row_kind: Literal["key_parameter"] = "key_parameter"
    term_id: None = None
    domain_id: str
    review_reason: Literal[
        "named as a key parameter but no extracted term corroborates it — confirm it is real"
    ] = REVIEW_REASON_UNRESOLVED_KEY_PARAMETER


ReviewQueueRow = Annotated[TermQueueRow | KeyParameterQueueRow, Field(discriminator="row_kind")]


class RejectedField(ContractModel):
    entry_term: str
    field: str
    offending_value: str
    reason: str
    branch: Branch


class CallUsage(ContractModel):
    branch: Branch
    deployment: str
    tier: str
    prompt_tokens: NonNegativeInt
    cached_tokens: NonNegativeInt
    completion_tokens: NonNegativeInt
    latency_s: Annotated[float, Field(ge=0)]
    retries: NonNegativeInt
    structured_output_mode: str
    simulated: bool


# --- Parsed documents: what ingest produces and every later stage reads. ---

PARSED_SCHEMA_VERSION = "1.0.0"


class Chunk(ContractModel):
    """A run of one section's text on one page, sliced verbatim from the page text."""

    chunk_id: str
    seq: NonNegativeInt
    page: NonNegativeInt
    page_no: Annotated[int, Field(ge=1)]
    section_no: str | None = None
    heading_path: list[str] = Field(default_factory=list)
    text: str
    latex: str | None = None
    char_start: NonNegativeInt
    char_end: NonNegativeInt


class ParsedPage(ContractModel):
    page: NonNegativeInt
    page_no: Annotated[int, Field(ge=1)]
    text: str


class ParsedDocument(ContractModel):
    doc_id: str
    source_file: str
    content_sha256: str
    parser: str
    parser_version: str
    schema_version: str = PARSED_SCHEMA_VERSION
    page_count: NonNegativeInt
    pages: list[ParsedPage]
    chunks: list[Chunk]
