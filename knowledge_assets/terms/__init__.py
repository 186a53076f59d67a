"""Term funnel: mentions, abbreviations, noise filter, clusters, ranking."""
