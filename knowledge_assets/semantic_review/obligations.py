"""A document's gold obligations, declared before any output is seen: the roles a review
checks coverage against (docs/semantic_review.md §3, "every predeclared role").

From `eval_assets/gold/<doc_id>.json`:
  - every gold term is a role `term:<canonical>` (the glossary must hold it);
  - a gold term with a definition adds `definition:<canonical>` (the entry must carry it);
  - every item of an optional `formulas` or `rules` list is `formula:<n>` / `rule:<n>`, 1-based;
  - an optional `domain` object adds `domain:title` and `domain:purpose` for the values it gives.
An item is `required` unless it says `"required": false`, which makes it `if_selected`: then
leaving it out is neither an error nor a gap. Other keys are kept verbatim as `expected` and
otherwise ignored, so the gold format can grow without breaking a bundle.
"""

from __future__ import annotations

from pathlib import Path

from knowledge_assets.semantic_review.refusal import Refusal
from knowledge_assets.semantic_review.vocabulary import IF_SELECTED, REQUIRED

_LABEL_KEYS = ("name", "canonical", "formula_latex", "formula", "statement", "span", "condition")


def _coverage(item: dict, origin: str) -> str:
    required = item.get("required", True)
    if not isinstance(required, bool):
        raise Refusal(f"{origin}: 'required' must be true or false, not {required!r}")
    return REQUIRED if required else IF_SELECTED


def _label(item: dict) -> str | None:
    return next((item[key] for key in _LABEL_KEYS if isinstance(item.get(key), str) and item[key].strip()), None)


def _term_roles(terms: object, origin: Path) -> list[dict]:
    if not isinstance(terms, list):
        raise Refusal(f"gold {origin}: 'terms' must be a list")
    roles = []
    for number, term in enumerate(terms, start=1):
        where = f"gold {origin}: terms[{number - 1}]"
        if not isinstance(term, dict) or not isinstance(term.get("canonical"), str) or not term["canonical"].strip():
            raise Refusal(f"{where}: expected an object with a non-empty 'canonical'")
        coverage = _coverage(term, where)
        canonical = term["canonical"]
        roles.append({"roleKey": f"term:{canonical}", "kind": "term", "coverage": coverage, "label": canonical,
                      "expected": term})
        definition = term.get("definition")
        if isinstance(definition, str) and definition.strip():
            roles.append({"roleKey": f"definition:{canonical}", "kind": "definition", "coverage": coverage,
                          "label": canonical, "expected": term})
    return roles


def _listed_roles(gold: dict, key: str, kind: str, origin: Path) -> list[dict]:
    items = gold.get(key, [])
    if not isinstance(items, list):
        raise Refusal(f"gold {origin}: '{key}' must be a list")
    roles = []
    for number, item in enumerate(items, start=1):
        where = f"gold {origin}: {key}[{number - 1}]"
        if not isinstance(item, dict):
            raise Refusal(f"{where}: expected an object")
        roles.append({"roleKey": f"{kind}:{number}", "kind": kind, "coverage": _coverage(item, where),
                      "label": _label(item), "expected": item})
    return roles


def _domain_roles(gold: dict, origin: Path) -> list[dict]:
    domain = gold.get("domain")
    if domain is None:
        return []
    where = f"gold {origin}: domain"
    if not isinstance(domain, dict):
        raise Refusal(f"{where}: expected an object")
    coverage = _coverage(domain, where)
    return [{"roleKey": f"domain:{key}", "kind": "domain", "coverage": coverage, "label": key,
             "expected": {key: domain[key]}}
            for key in ("title", "purpose") if isinstance(domain.get(key), str) and domain[key].strip()]


def gold_obligations(gold: object, origin: Path, doc_id: str) -> list[dict]:
    if not isinstance(gold, dict):
        raise Refusal(f"gold {origin}: expected a JSON object")
    if gold.get("doc_id") != doc_id:
        raise Refusal(f"gold {origin}: holds doc_id {gold.get('doc_id')!r}, expected {doc_id!r}")
    roles = [
        *_term_roles(gold.get("terms", []), origin),
        *_listed_roles(gold, "formulas", "formula", origin),
        *_listed_roles(gold, "rules", "rule", origin),
        *_domain_roles(gold, origin),
    ]
    seen: set[str] = set()
    for role in roles:
        if role["roleKey"] in seen:
            raise Refusal(f"gold {origin}: two obligations share the key {role['roleKey']!r} (a term listed twice?)")
        seen.add(role["roleKey"])
    return roles
