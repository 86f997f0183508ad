"""Benchmark: render time per document type (issue 4, item 7; goal ≤ 1 s each).

Renders the sample inputs of ``tests/document_samples/samples.py`` (a Bengaluru 560001 cover in INR; a quote
and a policy with 12 monthly line items × 2 covers): one warm-up render per document (it
pays WeasyPrint's import and font loading), then ``--repeat`` timed renders. Building the
inputs is not timed. Prints a table of median / min wall time, median CPU time of this
process, pages and size, plus what the figures depend on: the load average (other work on
the machine stretches wall time) and whether HarfBuzz font subsetting is available
(without Debian libharfbuzz-subset0 WeasyPrint falls back to fontTools, about 0.4 s more
per document).

Run:  .venv/bin/python bench/documents.py [--repeat 7] [--only fact_sheet,quote_document]
                                          [--max-seconds 1.0]  (exit 1 if a median exceeds it)
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reports import render  # noqa: E402
from tests.document_samples import samples  # noqa: E402

DOCUMENTS = {
    "fact_sheet": (render.render_fact_sheet, samples.sample_fact_sheet_input),
    "technical_pricing_report": (render.render_technical_pricing_report, samples.sample_technical_pricing_report_input),
    "quote_document": (render.render_quote_document, samples.sample_quote_document_input),
    "policy_schedule": (render.render_policy_schedule, samples.sample_policy_schedule_input),
    "portfolio_risk_report": (render.render_portfolio_report, samples.sample_portfolio_report_input),
}


def _pages(pdf: bytes) -> int | str:
    try:
        import pypdf
    except ImportError:
        return "?"
    return len(pypdf.PdfReader(io.BytesIO(pdf)).pages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed renders per document (default 7)")
    parser.add_argument("--only", default="", help="comma-separated document names")
    parser.add_argument("--max-seconds", type=float, default=None, help="fail when a median exceeds this")
    args = parser.parse_args(argv)
    names = [n for n in (args.only.split(",") if args.only else DOCUMENTS) if n]

    t0 = time.perf_counter()
    inputs = {name: DOCUMENTS[name][1]() for name in names}
    print(f"sample inputs built in {time.perf_counter() - t0:.2f} s (not timed below)")

    from weasyprint import __version__ as weasyprint_version
    from weasyprint.text.ffi import harfbuzz_subset

    rows = []
    for name in names:
        fn = DOCUMENTS[name][0]
        t = time.perf_counter()
        pdf = fn(inputs[name])
        first = time.perf_counter() - t
        walls, cpus = [], []
        for _ in range(args.repeat):
            w, c = time.perf_counter(), time.process_time()
            pdf = fn(inputs[name])
            walls.append(time.perf_counter() - w)
            cpus.append(time.process_time() - c)
        rows.append((name, first, statistics.median(walls), min(walls), statistics.median(cpus), _pages(pdf), len(pdf)))

    load = os.getloadavg()
    print(
        f"WeasyPrint {weasyprint_version} · HarfBuzz subsetting {'yes' if harfbuzz_subset else 'NO (fontTools fallback)'} · "
        f"{os.cpu_count()} CPUs · load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} · {args.repeat} warm renders each"
    )
    header = f"{'document':<26} {'first':>7} {'median':>8} {'min':>7} {'cpu':>7} {'pages':>6} {'size':>9}"
    print(header)
    print("-" * len(header))
    for name, first, median, best, cpu, pages, size in rows:
        print(f"{name:<26} {first:>6.2f}s {median:>7.3f}s {best:>6.3f}s {cpu:>6.3f}s {pages!s:>6} {size / 1024:>7.1f} KiB")
    if args.max_seconds is not None:
        slow = [r[0] for r in rows if r[2] > args.max_seconds]
        if slow:
            print(f"over {args.max_seconds:.2f} s (median): {', '.join(slow)}")
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
