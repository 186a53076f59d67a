"""Peak memory and wall time of a whole offline `knowledge-assets run` on a large text file and a
long PDF, each at full and half size (issue 20 item 6). Run by hand, not a test:

    python -m bench.bench_memory [--text-mb 50] [--pages 3000] [--project DIR] [--only text|real|pdf]

The text is generated prose, seeded and so the same on every run: numbered headings, a
definition sentence (`X adalah …`, `X means …`) opening many sections, and paragraphs drawn
from a vocabulary of a few thousand made-up words with a few hundred multi-word terms and
abbreviations recurring across the document, the shape a long manual has. The real text repeats
a real specification (`--real-source`, RFC 9002 from the development corpus by default) to the
same size: dense text whose definitions, formulas and rules recur by the thousand, what grows
with the entities rather than the bytes (issue 31). The PDF repeats the
sample PDF's pages (`bench_parse.build_long_pdf`). Each input runs the CLI as a separate
process in a fresh home (its own DuckDB file and Dagster instance, offline backend); its peak
RSS is `wait4`'s `ru_maxrss` of the child (the run is one process: Dagster executes in
process). Judged by peak RSS < 1 GB at full size, and by the full-size run taking about twice
the half-size one (time linear in size; CPU seconds are the steadier figure on a shared
machine). --project runs another checkout's code, to measure a commit before a change beside
this one. --stages also prints, per input, the peak and resident RSS of each stage and of what
ran between stages (`bench/stage_memory.py`), to find which stage makes the peak.
"""

from __future__ import annotations

import argparse
import random
import tempfile
from pathlib import Path

from bench.bench_parse import build_long_pdf
from bench.bench_whole_run import ROOT, run_once

_CONSONANTS, _VOWELS = "bcdfghjklmnprstvwz", "aeiou"
REAL_SOURCE = ROOT.parent / "shared" / "corpus" / "docs" / "rfc9002.txt"


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(rng.randint(1, 4)))


class _Prose:
    """A seeded source of sentences over one vocabulary, with recurring terms and abbreviations."""

    def __init__(self, seed: int = 20) -> None:
        self.rng = random.Random(seed)
        self.words = [_word(self.rng) for _ in range(4000)]
        self.terms = [" ".join(_word(self.rng).capitalize() for _ in range(self.rng.randint(2, 3)))
                      for _ in range(600)]
        self.abbreviations = {term: "".join(w[0] for w in term.split()).upper() for term in self.terms[:150]}

    def sentence(self) -> str:
        rng = self.rng
        words = rng.choices(self.words, k=rng.randint(8, 24))
        if rng.random() < 0.4:
            words.insert(rng.randrange(len(words)), rng.choice(self.terms))
        if rng.random() < 0.1:
            term = rng.choice(list(self.abbreviations))
            words.insert(rng.randrange(len(words)), f"{term} ({self.abbreviations[term]})")
        text = " ".join(words)
        return text[0].upper() + text[1:] + "."

    def definition(self) -> str:
        term = self.rng.choice(self.terms)
        cue = self.rng.choice(["adalah", "means", "is defined as", "merupakan"])
        return f"{term} {cue} {' '.join(self.rng.choices(self.words, k=self.rng.randint(8, 18)))}."

    def section(self, number: str) -> str:
        rng = self.rng
        title = " ".join(rng.choice(self.words) for _ in range(rng.randint(2, 5))).title()
        paragraphs = [self.definition()] if rng.random() < 0.5 else []
        for _ in range(rng.randint(2, 6)):
            lines, line = [], []
            for word in " ".join(self.sentence() for _ in range(rng.randint(2, 6))).split(" "):
                line.append(word)
                if sum(len(w) + 1 for w in line) > 72:
                    lines.append(" ".join(line))
                    line = []
            lines.append(" ".join(line))
            paragraphs.append("\n".join(lines))
        return f"{number} {title}\n\n" + "\n\n".join(paragraphs) + "\n\n"


def build_long_text(megabytes: float, out: Path) -> Path:
    """A UTF-8 text file of about `megabytes` MB of generated prose, numbered `1`, `1.1`, … ."""
    prose, target, written = _Prose(), int(megabytes * 1_000_000), 0
    chapter = 0
    with out.open("w", encoding="utf-8") as fh:
        while written < target:
            chapter += 1
            for part in [prose.section(f"{chapter}.")] + [prose.section(f"{chapter}.{s}") for s in range(1, 9)]:
                fh.write(part)
                written += len(part.encode())
    return out


def build_real_text(megabytes: float, source: Path, out: Path) -> Path:
    """`source` written again and again to about `megabytes` MB, each copy's headings numbered
    as the source numbers them: a real document's density at any size."""
    text, target, written = source.read_text(encoding="utf-8"), int(megabytes * 1_000_000), 0
    size = len(text.encode())
    with out.open("w", encoding="utf-8") as fh:
        while written < target:
            fh.write(text)
            written += size
    return out


def _print_stages(table: Path) -> float:
    """Prints the per-stage table and returns the run's peak, the highest stage's: resetting the
    high-water mark also resets what `wait4` reports."""
    print(f"  {'stage':<44} {'wall s':>8} {'cpu s':>8} {'RSS in':>8} {'peak':>8} {'RSS out':>8} (MiB)")
    peak = 0.0
    for line in table.read_text().splitlines():
        label, *figures = line.split("\t")
        peak = max(peak, float(figures[-2]))
        print(f"  {label:<44} " + " ".join(f"{float(v):>8.1f}" for v in figures), flush=True)
    return peak


def _measure(label: str, unit: str, sizes: list[float], build, scratch: Path, project: Path,
             stages: bool = False) -> None:
    """Runs each size's input in a fresh home, then says how time and peak RSS grow with size."""
    rows = []
    for size in sizes:
        document = build(size, scratch / f"long_{size:g}{unit}")
        table = scratch / "stages.tsv" if stages else None
        wall, cpu, rss = run_once(document, scratch / "home", project, table)
        document.unlink()
        print(f"{label} {size:>7g} {unit}: wall {wall:7.1f} s  cpu {cpu:7.1f} s", flush=True)
        if table is not None:
            rss = _print_stages(table)
        print(f"{label} {size:>7g} {unit}: peak RSS {rss:6.0f} MiB", flush=True)
        rows.append((size, wall, cpu, rss))
    (s0, w0, c0, _), (s1, w1, c1, rss1) = rows[0], rows[-1]
    print(f"{label}: x{s1 / s0:g} the size takes x{w1 / w0:.2f} the wall time, x{c1 / c0:.2f} the CPU time "
          f"(linear: x{s1 / s0:g}); peak RSS at {s1:g} {unit} {rss1:.0f} MiB (goal < 1024 MiB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text-mb", type=float, default=50.0)
    parser.add_argument("--pages", type=int, default=3000)
    parser.add_argument("--only", choices=["text", "real", "pdf"])
    parser.add_argument("--real-source", type=Path, default=REAL_SOURCE, help="the real text the real input repeats")
    parser.add_argument("--project", type=Path, default=ROOT, help="the checkout whose code runs")
    parser.add_argument("--stages", action="store_true", help="print each stage's peak RSS too")
    args = parser.parse_args()
    project = args.project.resolve()
    print(f"code {project}")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        if args.only in (None, "text"):
            _measure("text", "MB", [args.text_mb / 2, args.text_mb],
                     lambda mb, out: build_long_text(mb, out.with_suffix(".txt")), scratch, project, args.stages)
        if args.only in (None, "real"):
            if args.real_source.is_file():
                _measure("real", "MB", [args.text_mb / 2, args.text_mb],
                         lambda mb, out: build_real_text(mb, args.real_source, out.with_suffix(".txt")),
                         scratch, project, args.stages)
            else:
                print(f"real: {args.real_source} is not there (the development corpus); not measured")
        if args.only in (None, "pdf"):
            _measure("pdf", "pages", [args.pages // 2, args.pages],
                     lambda pages, out: build_long_pdf(int(pages), out.with_suffix(".pdf")),
                     scratch, project, args.stages)


if __name__ == "__main__":
    main()
