#!/usr/bin/env python3
"""Every GEMV variant's time, side by side for one or more bench_kernels runs.

bench_kernels prints only each role's fastest variant; its --json rows hold every variant it timed.
This reads the rows of one or more runs (binaries of two commits, two GPUs, two days) and prints,
per format and role, each variant's microseconds and GB/s in every run, sorted by the first run's
time, with the ratio of each later run's time to the first's. A variant a run did not time shows
"-". A row whose error against the CPU twin is past bench_kernels' own tolerance (1e-5 for FP16 and
BF16, 1e-3 for the others), or whose error is null (not a number), is marked FAIL, and the exit
status is then 1.

  kernel_variants.py before=old.jsonl after=new.jsonl [--format nf4] [--role down] [--top 8]

where each file is `bench_kernels --json FILE`'s output. Exit status 2 on a file that cannot be read
or a row that is not bench_kernels' (the message names the file, the line and the field).
"""

import argparse
import json
import sys

FIELDS = {"format": str, "role": str, "variant": str, "seconds": (int, float),
          "bytes": (int, float), "rel_err": (int, float)}


class BadInput(Exception):
    pass


def tolerance(fmt):
    return 1e-5 if fmt in ("fp16", "bf16") else 1e-3


def parse_run(text):
    """NAME=FILE -> (name, file)."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise BadInput(f"{text!r}: expected NAME=FILE (a name for the run, then bench_kernels' "
                       "--json file)")
    return name, path


def read_rows(path):
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise BadInput(f"{path}: cannot read ({e.strerror})") from e
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as e:
            raise BadInput(f"{path}:{number}: not a JSON row ({e})") from e
        if not isinstance(row, dict):
            raise BadInput(f"{path}:{number}: expected an object, got {type(row).__name__}")
        for field, kind in FIELDS.items():
            if field not in row:
                raise BadInput(f"{path}:{number}: no field '{field}' (bench_kernels --json rows "
                               f"have {', '.join(FIELDS)})")
            if field == "rel_err" and row[field] is None:
                continue  # bench_kernels writes null for an error that is not a number: FAIL
            if not isinstance(row[field], kind) or isinstance(row[field], bool):
                raise BadInput(f"{path}:{number}: field '{field}' is {row[field]!r}, expected "
                               f"{'a number' if kind != str else 'a string'}")
        if not row["seconds"] > 0:
            raise BadInput(f"{path}:{number}: field 'seconds' is {row['seconds']!r}, expected a "
                           "time above 0")
        rows.append(row)
    if not rows:
        raise BadInput(f"{path}: no rows (an empty bench_kernels --json file)")
    return rows


def table(runs, fmt, role, top):
    """The markdown lines of one format and role; and whether a row failed its tolerance."""
    names = [name for name, _ in runs]
    by_run = []
    for _, rows in runs:
        timed = {}
        for r in rows:
            if r["format"] == fmt and r["role"] == role:
                timed[r["variant"]] = r  # a variant timed twice in one file: the last row counts
        by_run.append(timed)
    variants = list(dict.fromkeys(v for timed in by_run for v in timed))
    first = by_run[0]
    # The first run's order; variants only later runs timed after them, by their best time.
    variants.sort(key=lambda v: (v not in first, first[v]["seconds"] if v in first else
                                 min(t[v]["seconds"] for t in by_run if v in t)))
    if top:
        variants = variants[:top]
    head = ["variant"] + [f"{n} us" for n in names] + [f"{n} GB/s" for n in names]
    head += [f"{n} / {names[0]}" for n in names[1:]]
    lines = [f"### {fmt} {role}", "", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    failed = False
    for v in variants:
        cells = [v]
        for timed in by_run:
            r = timed.get(v)
            bad = r is not None and (r["rel_err"] is None or not r["rel_err"] < tolerance(fmt))
            failed |= bad
            time = "-" if r is None else f"{r['seconds'] * 1e6:.2f}"
            cells.append(time + (" FAIL" if bad else ""))
        for timed in by_run:
            r = timed.get(v)
            cells.append("-" if r is None else f"{r['bytes'] / r['seconds'] / 1e9:.0f}")
        for timed in by_run[1:]:
            if v in first and v in timed:
                cells.append(f"{timed[v]['seconds'] / first[v]['seconds']:.3f}")
            else:
                cells.append("-")
        lines.append("| " + " | ".join(cells) + " |")
    return lines + [""], failed


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", metavar="NAME=FILE", help="a run's name and its --json file")
    ap.add_argument("--format", help="only this format (fp16, int8-wo, nf4, ...)")
    ap.add_argument("--role", help="only this role (qkv, o, gate_up, down, lm_head)")
    ap.add_argument("--top", type=int, default=0, help="only the first N variants of each role")
    args = ap.parse_args(argv)
    try:
        runs = [(name, read_rows(path)) for name, path in map(parse_run, args.runs)]
    except BadInput as e:
        print(f"kernel_variants: {e}", file=sys.stderr)
        return 2
    keys = list(dict.fromkeys((r["format"], r["role"]) for _, rows in runs for r in rows))
    keys = [k for k in keys if (not args.format or k[0] == args.format) and
            (not args.role or k[1] == args.role)]
    if not keys:
        print("kernel_variants: no rows of that format and role", file=sys.stderr)
        return 2
    failed = False
    for fmt, role in keys:
        lines, bad = table(runs, fmt, role, args.top)
        failed |= bad
        print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
