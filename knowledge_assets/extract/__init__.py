"""The four branches: glossary, formulas, rules, domain context (one module each). Each turns
model (or offline) answers into contract entities, guarding every transcribed field."""
