import dagster as dg

from knowledge_assets.llm.extractor import Extractor
from knowledge_assets.llm.model_settings import (
    DEFAULT_MAX_RETRIES,
    LLMSettings,
    StructuredOutputMode,
    resolve_settings,
)
from knowledge_assets.llm.requests import BranchName
from knowledge_assets.llm.results import RunCalls
from knowledge_assets.llm.usage import Price, price_for
from knowledge_assets.llm.versions import branch_code_version
from knowledge_assets.store.protocol import Store

# One retry budget and endpoint record per run, shared by its steps; a process runs few runs,
# so none is dropped.
_RUN_CALLS: dict[str, RunCalls] = {}


class LLMPrice(dg.Config):
    """USD per 1M tokens, for a deployment the built-in price table does not list."""

    input: float
    cached_input: float
    output: float


class KnowledgeLLM(dg.ConfigurableResource):
    """The model every extraction asset asks: OpenAI or any OpenAI-compatible server, or the
    embedded offline extractor.

    Empty fields are resolved from the environment when a run starts, never at import:
    `KNOWLEDGE_LLM_BACKEND` (openai | offline; default openai when `OPENAI_API_KEY` or a base
    URL is set, else offline), `KNOWLEDGE_LLM_MODEL`, `OPENAI_BASE_URL`, `KNOWLEDGE_LLM_CACHE`,
    `KNOWLEDGE_LLM_TIMEOUT_S` (when `timeout_s` is 0), `KNOWLEDGE_LLM_RETRY_BUDGET` (when
    `retry_budget` is -1), `KNOWLEDGE_LLM_CONCURRENCY` (when `max_concurrency` is 0; default 8).
    Any field may instead be given as `dg.EnvVar("NAME")` to read another variable (which
    must then be set). The API key is deliberately not a field: it is read from
    `OPENAI_API_KEY` by the client alone, so it can never reach run config, metadata or logs.
    """

    backend: str = ""
    model: str = ""
    tier: str = ""
    base_url: str = ""
    timeout_s: float = 0.0
    max_retries: int = DEFAULT_MAX_RETRIES
    retry_budget: int = -1
    max_concurrency: int = 0
    structured_output: StructuredOutputMode = "auto"
    # False bypasses the response cache; True leaves it to KNOWLEDGE_LLM_CACHE (default on).
    use_cache: bool = True
    price: LLMPrice | None = None

    def settings(self) -> LLMSettings:
        return resolve_settings(
            backend=self.backend, model=self.model, tier=self.tier, base_url=self.base_url,
            timeout_s=self.timeout_s or None, max_retries=self.max_retries,
            max_concurrency=self.max_concurrency or None,
            structured_output=self.structured_output, use_cache=None if self.use_cache else False,
            retry_budget=None if self.retry_budget < 0 else self.retry_budget,
        )

    def extractor(self, store: Store, run_id: str | None = None) -> Extractor:
        """The extractor of one asset step; steps of one run share one retry budget and what
        the endpoint has answered (the job runs its steps in one process)."""
        settings = self.settings()
        run_calls = _RUN_CALLS.setdefault(run_id, RunCalls(settings.retry_budget)) if run_id else None
        return Extractor.from_settings(settings, store, run_calls)

    def price_table_entry(self) -> Price | None:
        override = Price(self.price.input, self.price.cached_input, self.price.output) if self.price else None
        return price_for(self.settings().deployment, override)

    def code_version(self, branch: BranchName) -> str:
        return branch_code_version(branch, self.settings())

    def metadata(self) -> dict[str, str]:
        """Which backend answered, for every materialisation's metadata. Never the key."""
        return self.settings().describe()
