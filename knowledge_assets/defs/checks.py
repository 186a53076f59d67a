"""Asset checks."""

CHECKS: list = []
