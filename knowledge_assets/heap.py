"""Giving the memory a long document's stage freed back to the operating system.

glibc's malloc keeps what Python's larger objects (chunk texts, rows read from the store) freed
in its heap, for the process to reuse: after the formulas stage of 50 MB of prose, ~140 MiB of
such free pages stayed resident, and the glossary's peak was reached on top of them
(docs/decisions.md D106, D108). `malloc_trim(0)` returns the free pages throughout the heap. It
is called as a stage ends a document (`store.held.drop_cached_pages`), only while the process
holds more than `TRIM_ABOVE_MIB`: a run of small documents stays below it, where a trim after
each would cost a millisecond or two and free nothing worth having. Where the C library is not
glibc, or /proc is absent, nothing is done.
"""

from __future__ import annotations

import ctypes
import os
from functools import cache

TRIM_ABOVE_MIB = 384


@cache
def _malloc_trim():
    try:
        # The symbols the interpreter is linked with, the C library's among them.
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc: no such function
        return None


def resident_mib() -> float | None:
    """This process's resident memory, or None where /proc does not say."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return None


def give_back_freed_memory(above_mib: float = 0) -> bool:
    """True when the C library released free heap pages to the operating system; nothing is
    tried while the process holds `above_mib` or less."""
    trim = _malloc_trim()
    if trim is None or (above_mib and (resident_mib() or 0) <= above_mib):
        return False
    return bool(trim(0))
