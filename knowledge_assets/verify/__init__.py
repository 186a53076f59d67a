"""Verification: the span check (provenance is verbatim) and LaTeX verification of formulas."""
