"""The closed subdomain enum's vocabulary (contract §4): the words that name each part of a
mining operation, and whether a document speaks that domain at all (D81).

The enum is a mining contractor's. A document outside mining (an SRE guide, an RFC, a
monitoring manual) uses `service`, `incident`, `bucket` or `blast radius` in other senses, so
the offline extractor tags a term only in a document whose own text names the mining domain,
and abstains everywhere else: an empty list is a correct answer, another domain's tag is not.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from knowledge_assets.contracts import SUBDOMAINS

# A keyword lexicon, English and Indonesian, per subdomain of the closed enum.
SUBDOMAIN_KEYWORDS: dict[str, tuple[str, ...]] = {
    "production": ("production", "produksi", "productivity", "produktivitas", "bcm", "overburden", "gain/loss",
                   "output"),
    "maintenance": ("maintenance", "perawatan", "repair", "perbaikan", "breakdown", "service", "overhaul",
                    "mtbf", "mttr", "failure", "kerusakan", "backlog", "work order", "mechanic", "mekanik",
                    "component"),
    "hauling": ("hauling", "hauler", "truck", "truk", "angkut", "pengangkutan", "ritase", "dump truck", "travel"),
    "loading": ("loading", "loader", "excavator", "bucket", "digging", "menggali", "swing", "pemuatan", "muatan"),
    "drilling_blasting": ("drilling", "drill", "blasting", "blast", "peledakan", "fragmentasi", "fragmentation",
                          "explosive"),
    "equipment": ("equipment", "unit", "alat", "fleet", "availability", "machine", "mesin"),
    "safety": ("safety", "keselamatan", "injury", "cedera", "hazard", "bahaya", "incident", "insiden"),
    "quality": ("quality", "kualitas", "mutu", "calorific", "ash", "kadar"),
    "planning": ("plan", "planning", "rencana", "perencanaan", "budget", "target", "schedule", "jadwal", "scheduled"),
    "cost": ("cost", "biaya", "price", "harga", "invoice", "penagihan", "tarif"),
    "geology": ("geology", "geologi", "swell", "density", "bank", "loose", "seam", "batuan", "material"),
}
_KEYWORD_PATTERNS = {
    tag: re.compile(r"\b(?:" + "|".join(re.escape(k) for k in keywords) + r")s?\b", re.IGNORECASE)
    for tag, keywords in SUBDOMAIN_KEYWORDS.items()
}
MAX_TAGS = 3

# Words that name the mining domain itself, in either language, and no other domain's thing:
# no word of the lexicon above that another field also uses (`bucket`, `blast`, `service`).
DOMAIN_WORDS = ("mining", "mine", "mines", "tambang", "pertambangan", "penambangan", "batubara", "coal",
                "minerba", "mineral", "bijih", "ore", "quarry", "overburden", "excavator", "hauling",
                "dump truck", "ritase")
_DOMAIN_WORD = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in DOMAIN_WORDS) + r")\b", re.IGNORECASE)
# More than a passing mention: an environmental annex that names a mine once is not about mining.
MIN_DOMAIN_MENTIONS = 3


def subdomain_tags(text: str) -> list[str]:
    """The subdomains whose keywords the text mentions most, at most three, ties in enum
    order; none when nothing matches (abstaining beats guessing `other`)."""
    hits = Counter({tag: len(pattern.findall(text)) for tag, pattern in _KEYWORD_PATTERNS.items()})
    ranked = sorted((tag for tag, n in hits.items() if n), key=lambda tag: (-hits[tag], SUBDOMAINS.index(tag)))
    return ranked[:MAX_TAGS]


def speaks_mining(texts: Iterable[str]) -> bool:
    """Whether a document's texts name the mining domain at least `MIN_DOMAIN_MENTIONS` times;
    reads each text once and stops as soon as they do."""
    seen = 0
    for text in texts:
        seen += sum(1 for _ in _DOMAIN_WORD.finditer(text))
        if seen >= MIN_DOMAIN_MENTIONS:
            return True
    return False
