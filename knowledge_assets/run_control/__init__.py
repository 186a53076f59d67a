"""Run control: what runs the wiring's jobs on the instance and reads their runs back, as
`knowledge-assets` does it. Launching runs in this process or through a shared instance's queue,
freeing dead runs' pool slots, each document's partition state, the capture's pipeline runner.
It imports the wiring (`defs/`), never the other way round (docs/decisions.md D100)."""
