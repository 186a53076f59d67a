"""What `import knowledge_assets.definitions` costs, and how much of it is the `openai` SDK.

    python -m bench.bench_imports [--repeats 7]

Each repeat is a fresh interpreter under `python -X importtime`; prints the median cumulative
import time of knowledge_assets.definitions and of openai (0 when it is not imported), and
openai's share. Judged by: openai is not imported on the offline path (its share 0 %).
For the whole command timed from outside, side by side with another checkout:

    farm-bench -n 9 -- .venv/bin/python -c "import knowledge_assets.definitions" \\
        --vs "sh -c 'cd OTHER && exec .venv/bin/python -c \\"import knowledge_assets.definitions\\"'"
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys

_LINE = re.compile(r"^import time:\s+\d+ \|\s+(\d+) \|(\s*)(\S+)$")


def cumulative_us(stderr: str) -> dict[str, int]:
    """Top-level entries of -X importtime: module -> cumulative microseconds."""
    found = {}
    for line in stderr.splitlines():
        match = _LINE.match(line)
        if match:
            found.setdefault(match.group(3), int(match.group(1)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    totals, openai = [], []
    for _ in range(args.repeats):
        result = subprocess.run([sys.executable, "-X", "importtime", "-c", "import knowledge_assets.definitions"],
                                capture_output=True, text=True, check=True)
        modules = cumulative_us(result.stderr)
        totals.append(modules["knowledge_assets.definitions"] / 1e6)
        openai.append(modules.get("openai", 0) / 1e6)
    total, sdk = statistics.median(totals), statistics.median(openai)
    print(f"import knowledge_assets.definitions: {total:.2f} s, of which openai {sdk:.2f} s "
          f"({sdk / total:.0%}; goal 0 % offline; medians of {args.repeats})")


if __name__ == "__main__":
    main()
