"""Assets of the review stage."""

ASSETS: list = []
