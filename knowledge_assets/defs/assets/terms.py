"""Assets of the term funnel."""

ASSETS: list = []
