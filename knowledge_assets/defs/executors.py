"""The executor `extract_document` runs its steps on, chosen by `KNOWLEDGE_EXECUTOR`.

Dagster picks an executor in code, not in dagster.yaml, so the setting is read when the
definitions load (the code-location server and each run worker load them; they must agree, as
they must on every other setting). The default, `in_process`, runs a run's steps one after
another in the run worker: they share one DuckDB file, one writer at a time, and a process per
step only added start-up (docs/decisions.md D40). On the shared store (`KNOWLEDGE_STORE`, a
PostgreSQL URL) steps may run apart: `multiprocess` (a process per step on the run worker's
machine), `k8s` (a Kubernetes Job per step) or `celery` (Celery workers; the broker and the
result backend from `KNOWLEDGE_CELERY_BROKER` and `KNOWLEDGE_CELERY_BACKEND` where the run
executes). The last two need their Dagster library installed; a missing one, or an unknown
name, is one line naming what to do.
"""

from __future__ import annotations

import importlib
import os

import dagster as dg

from knowledge_assets.errors import KnowledgeError

SETTING = "KNOWLEDGE_EXECUTOR"
# name → (module, attribute, what to install); the Dagster libraries go with dagster 1.13.27.
_EXECUTORS: dict[str, tuple[str, str, str]] = {
    "in_process": ("dagster", "in_process_executor", ""),
    "multiprocess": ("dagster", "multiprocess_executor", ""),
    "k8s": ("dagster_k8s", "k8s_job_executor", "dagster-k8s==0.29.27"),
    "celery": ("dagster_celery", "celery_executor", "dagster-celery==0.29.27"),
}
DEFAULT = "in_process"
# Celery's broker and result backend, read from the environment where the run executes (never
# written into a run's config, where the UI would show a password in the URL).
CELERY_BROKER, CELERY_BACKEND = "KNOWLEDGE_CELERY_BROKER", "KNOWLEDGE_CELERY_BACKEND"


class ExecutorSettingError(KnowledgeError):
    """`KNOWLEDGE_EXECUTOR` names no executor, or one whose library is not installed."""


def chosen_executor(name: str | None = None) -> dg.ExecutorDefinition:
    """The executor `name` (default: `KNOWLEDGE_EXECUTOR`, else in_process) stands for."""
    name = (name if name is not None else os.environ.get(SETTING, "")).strip() or DEFAULT
    if name not in _EXECUTORS:
        raise ExecutorSettingError(f"{SETTING}={name!r} is not an executor; choose one of {', '.join(_EXECUTORS)}")
    module, attribute, package = _EXECUTORS[name]
    try:
        executor = getattr(importlib.import_module(module), attribute)
    except ImportError:
        raise ExecutorSettingError(
            f"{SETTING}={name} needs {package}: .venv/bin/python -m pip install '{package}'"
        ) from None
    if name == "celery":
        return executor.configured({"broker": {"env": CELERY_BROKER}, "backend": {"env": CELERY_BACKEND}},
                                   name="celery_executor")
    return executor
