"""The Dagster side of the project: the wiring (partitions, resources, assets, checks, jobs,
sensors, schedules, executors) and the run control around it (the launcher `knowledge-assets
run` uses, a shared instance's queue, the instance and its storage, stale runs, a document's
state, the pipeline runner of `semantic-review capture` and `eval --corpus`).

The store every asset reads and writes is a resource (`resources.py`): the DuckDB file, or the
shared PostgreSQL store when `KNOWLEDGE_STORE` names one (docs/decisions.md D63). Stage logic
lives in the plain-Python packages beside this one and never imports it."""
