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

from knowledge_assets.store.database import Store

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


def drop_cached_pages(store: Store) -> None:
    """Closes the session's connection and opens it again (nothing outside a session): DuckDB
    keeps the blocks a connection wrote or read cached until it closes, which after a long
    document's parse write is about 8 MiB per MB of text, beside the next stage's own memory
    (docs/decisions.md D73, third pass). The stage that wrote them calls this when its write is
    done; no connection taken with `connect()` may span it (`Store.released`)."""
    with store.released():
        pass
