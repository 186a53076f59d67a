"""What a message, an error or metadata may say about a store: its setting with every password
replaced by `***`.

It imports nothing of the package: `store/backends.py`, which chooses a backend, and
`store/postgres.py`, one of those backends, both need it, and a helper two modules share lives
below both (when it lived in store/open.py, backends.py's forerunner, the two modules imported
each other).
"""

from __future__ import annotations

import re

# `user:password@` in a URL, and `password=…` in a libpq key=value string or a URL's query.
_SECRET = re.compile(r"(?P<keep>[a-z][a-z0-9+.-]*://[^:/@\s]*):[^@\s]*@|(?P<key>password\s*=\s*)[^\s&]+",
                     re.IGNORECASE)


def redact(text: str) -> str:
    """`text` with every URL password and libpq `password=` value replaced by `***`."""
    return _SECRET.sub(lambda m: f"{m['keep']}:***@" if m["keep"] is not None else f"{m['key']}***", text)
