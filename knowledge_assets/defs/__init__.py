"""Dagster wiring only: partitions, resources, assets, checks, jobs, executors, sensors and
schedules, gathered by `knowledge_assets/definitions.py`. The store every asset reads and writes
is a resource (`resources.py`): the DuckDB file, or the shared PostgreSQL store when
`KNOWLEDGE_STORE` names one (docs/decisions.md D63). Stage logic lives in the plain-Python
packages beside this one and never imports it; what runs the jobs, in `run_control/`."""
