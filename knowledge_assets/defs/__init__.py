"""Dagster wiring only: partitions, resources, assets, and the launcher the CLI uses.
Stage logic lives in the plain-Python packages beside this one."""
