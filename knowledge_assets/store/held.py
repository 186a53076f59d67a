"""A store held on one connection for the length of a block: what a review page's request
reads and writes.

A `Store.session()` is the process's (every Store on the file shares its connection), right for
a run on one thread and wrong for a web server answering requests on several threads at once:
each request needs a connection of its own, kept for the whole request, so that it reads one
consistent view, opens the file once (or, while a run holds it, waits for it once) and can take
a `transaction()` over several writes."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import TypeVar

from knowledge_assets.heap import TRIM_ABOVE_MIB, give_back_freed_memory
from knowledge_assets.store.protocol import Store

AnyStore = TypeVar("AnyStore", bound=Store)


@contextmanager
def held_on_one_connection(store: AnyStore) -> Iterator[AnyStore]:
    """A copy of `store` whose every operation runs on one connection, opened here and closed at
    the end of the block. The copy is of the store's own class, so whichever backend it is
    keeps its reads and writes; only where they get their connection changes."""
    with store.connect() as con:
        held = copy.copy(store)
        held.connect = lambda: nullcontext(con)  # type: ignore[method-assign]
        yield held


# What a session's connection may keep cached before a stage's end closes it: a long document's
# parse write caches about 8 MiB per MB of text, a small document's stage well under 1 MiB. The
# close and reopen cost tens of milliseconds each (the file's write-ahead log is checkpointed),
# paid once this much has gathered, not after every small document of a folder run (D78).
CACHED_PAGES_LIMIT_BYTES = 32 * 2**20


def drop_cached_pages(store: Store, limit_bytes: int = CACHED_PAGES_LIMIT_BYTES) -> bool:
    """Closes the session's connection and opens it again (nothing outside a session) once it
    holds `limit_bytes` or more of cached blocks: DuckDB keeps the blocks a connection wrote or
    read cached until it closes, which after a long document's parse write is about 8 MiB per MB
    of text, beside the next stage's own memory (docs/decisions.md D73, third pass; D78). The
    stage that wrote them calls this when its write is done; no connection taken with
    `connect()` may span it (`Store.released`). True when it closed the connection."""
    # What the stage freed goes back to the system too, once the process holds much (heap.py).
    give_back_freed_memory(above_mib=TRIM_ABOVE_MIB)
    cached = store.cached_page_bytes()
    if cached == 0 or cached < limit_bytes:
        return False
    reopen_connection(store)
    return True


def reopen_connection(store: Store) -> None:
    """Closes the session's connection and opens it again (nothing outside a session), whatever
    it holds: DuckDB's allocator keeps what a long read took until the connection closes, and
    its count of cached blocks (`drop_cached_pages`) does not see it (D103)."""
    with store.released():
        pass
