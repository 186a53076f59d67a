"""Memory a stage freed goes back to the operating system (knowledge_assets/heap.py): freed
blocks below one still in use stay resident until glibc's malloc_trim gives them back.
Measured in a fresh interpreter, whose heap no other test has cut up."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import gc
from knowledge_assets.heap import give_back_freed_memory, resident_mib as resident

# ~100 MiB in blocks of 32 KiB (malloc's heap: under its mmap threshold), each followed by a
# small block that stays in use, so no free block is at the heap's top to shrink it.
blocks, live = [], []
for _ in range(3200):
    blocks.append(bytes(32_000))
    live.append(bytes(1_000))
held = resident()
del blocks
gc.collect()
freed = resident()
below = give_back_freed_memory(above_mib=freed + 100)
trimmed = give_back_freed_memory(above_mib=freed - 50)
print(held, freed, below, trimmed, resident(), len(live))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm; glibc's malloc_trim")
def test_freed_heap_below_a_live_block_is_given_back():
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    held, freed, below, trimmed, after, live = out.split()

    assert float(freed) > float(held) - 20  # freed, and still resident
    assert below == "False"  # the process holds less than the bound: nothing is tried
    assert trimmed == "True"
    assert float(after) < float(held) - 60
    assert live == "3200"
