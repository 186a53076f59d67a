"""The project's Dagster instance: its home's dagster.yaml (`home.py`) and the storage class that
dagster.yaml names (`storage.py`), which Dagster itself loads by module path in every process that
opens the instance (the webserver, the daemon, a run worker), definitions or not."""
