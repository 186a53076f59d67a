"""PDF text layers side by side: pypdf (`page.extract_text()`, what `ingest/pdf.py` reads) against
pypdfium2 (`get_text_bounded()`, "\r\n" as "\n", PDFium's line-end hyphen mark as "-\n"; D36).

    python -m bench.bench_pdf_text [--repeats 3] [--corpus ../shared/corpus]

For the sample PDF, a 300-page PDF built by repeating it and each corpus PDF it prints:
- extraction seconds of each reader (median of N runs) and their ratio (pypdf / pypdfium2);
- whether the two texts are identical, page by page;
- for the corpus PDFs, how many gold verbatim strings (definitions, formulas, rule conditions
  and consequences) are found whitespace-normalised in each reader's page text, in its chunks
  (what extraction sees: page furniture is in no chunk), and in some window of its text with
  token F1 >= 0.6 (a looser view of the same question).
Run by hand from the project root, not in CI.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pypdf
import pypdfium2

from bench.bench_parse import SAMPLE, build_long_pdf
from knowledge_assets.evaluation import corpus_scores
from knowledge_assets.ingest.chunking import chunk_pages
from knowledge_assets.ingest.plain import blocks_from_page_texts

F1_THRESHOLD = 0.6
_TOKEN = re.compile(r"\w+", re.UNICODE)


def pypdf_page_texts(path: Path) -> list[str]:
    """The parser's reader, as `ingest/pdf.py` calls it."""
    reader = pypdf.PdfReader(io.BytesIO(path.read_bytes()), strict=False)
    return [page.extract_text() or "" for page in reader.pages]


def pdfium_page_texts(path: Path) -> list[str]:
    document = pypdfium2.PdfDocument(path)
    try:
        texts = []
        for index in range(len(document)):
            page = document[index]
            text = page.get_textpage().get_text_bounded()
            texts.append(text.replace("\r\n", "\n").replace("\x02", "-\n"))
        return texts
    finally:
        document.close()


READERS: dict[str, Callable[[Path], list[str]]] = {"pypdf": pypdf_page_texts, "pypdfium2": pdfium_page_texts}


def median_seconds(read: Callable[[Path], list[str]], path: Path, repeats: int) -> tuple[float, list[str]]:
    times, texts = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        texts = read(path)
        times.append(time.perf_counter() - started)
    return statistics.median(times), texts


def normalise(text: str) -> str:
    return " ".join(text.split())


def gold_strings(gold_file: Path) -> dict[str, list[str]]:
    gold = json.loads(gold_file.read_text(encoding="utf-8"))
    return {
        "definitions": [t["definition_verbatim"] for t in gold["terms"] if t.get("definition_verbatim")],
        "formulas": [f["verbatim"] for f in gold["formulas"]],
        "rules": [r[k] for r in gold["rules"] for k in ("condition_verbatim", "consequence_verbatim")],
    }


def best_window_f1(needle: str, tokens: list[str]) -> float:
    """The best token F1 of `needle` against any window of `tokens` as long as the needle
    (precision = recall = F1 at that length); the overlap is kept up to date as the window slides."""
    want = Counter(t.lower() for t in _TOKEN.findall(needle))
    size = sum(want.values())
    if not size or len(tokens) < size:
        return 0.0
    return corpus_scores.best_window_f1(want, tokens, [size])


def findability(page_texts: list[str], strings: list[str]) -> tuple[int, int, int]:
    text = normalise("\n".join(page_texts))
    chunks = [normalise(c.text) for c in chunk_pages("BENCH", blocks_from_page_texts(page_texts))]
    tokens = [t.lower() for t in _TOKEN.findall("\n".join(page_texts))]
    in_text = sum(normalise(s) in text for s in strings)
    in_chunk = sum(any(normalise(s) in c for c in chunks) for s in strings)
    fuzzy = sum(best_window_f1(s, tokens) >= F1_THRESHOLD for s in strings)
    return in_text, in_chunk, fuzzy


def measure(path: Path, repeats: int, gold_file: Path | None) -> None:
    seconds, texts = {}, {}
    for name, read in READERS.items():
        seconds[name], texts[name] = median_seconds(read, path, repeats)
    same = sum(a == b for a, b in zip(texts["pypdf"], texts["pypdfium2"], strict=True))
    pages = len(texts["pypdf"])
    print(f"{path.name}: {pages} pages; pypdf {seconds['pypdf']:.3f} s, pypdfium2 {seconds['pypdfium2']:.3f} s, "
          f"ratio {seconds['pypdf'] / seconds['pypdfium2']:.2f}x (median of {repeats}); "
          f"text identical: {'yes' if same == pages else 'no'} ({same}/{pages} pages byte-identical)")
    if gold_file is None:
        return
    print("  gold strings found (whitespace-normalised) in text / in a chunk / token-F1 >= 0.6 window:")
    for kind, strings in gold_strings(gold_file).items():
        cells = []
        for name in READERS:
            in_text, in_chunk, fuzzy = findability(texts[name], strings)
            cells.append(f"{name} {in_text}/{in_chunk}/{fuzzy}")
        print(f"    {kind:<11} of {len(strings):>2}: " + "   ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parents[1].parent / "shared" / "corpus")
    args = parser.parse_args()
    measure(SAMPLE, args.repeats, None)
    with tempfile.TemporaryDirectory() as tmp:
        measure(build_long_pdf(300, Path(tmp) / "long_300_pages.pdf"), args.repeats, None)
    for pdf in sorted((args.corpus / "docs").glob("*.pdf")):
        measure(pdf, args.repeats, args.corpus / "gold" / f"{pdf.stem}.json")


if __name__ == "__main__":
    main()
