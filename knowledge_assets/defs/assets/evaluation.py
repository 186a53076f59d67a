"""Assets of the evaluation stage (per-document scores) and their kill-line checks."""

ASSETS: list = []
CHECKS: list = []
