#!/usr/bin/env python3
"""A copy of a tuning table with some entries' variants replaced: an arm for bench/decode_turns.py.

Each SET is MODEL:FORMAT:ROLE=VARIANT; MODEL, FORMAT and ROLE are comma lists or '*', spelled as
the table spells them (weight formats fp16, bf16, int8-wo, int8-llm, nf4, nf4-dq; roles qkv, o,
gu, down, head). Every matching entry runs VARIANT, and loses its step time (no tune timed it).
--gpu renames the table for another GPU, so that a table measured on one card can be tried on
another (the engine loads only a table named for its own GPU):

  table_arm.py data/tuning/nvidia-h200-cc9.0.json --out whole.json \\
      'qwen2-7b:nf4,nf4-dq:qkv,o=r2p-whole' 'qwen2-0.5b:nf4,nf4-dq:qkv,o,gu=r2p-whole'
  decode_turns.py --arm table= --arm 'whole=--tuning-table whole.json' -- --models qwen2-7b ...

Variant names are not checked here: the engine refuses a name the format lacks at load, naming the
entry. Exit status 2, with the file or SET named, on a table that cannot be read, a SET that is
malformed or a SET that matches no entry; the output is then not written.
"""

import argparse
import json
import os
import sys
import tempfile


class BadInput(Exception):
    pass


def parse_set(text):
    """MODEL:FORMAT:ROLE=VARIANT -> ((models, formats, roles), variant); '*' matches any."""
    head, sep, variant = text.partition("=")
    fields = head.split(":")
    if not sep or not variant or len(fields) != 3 or not all(fields):
        raise BadInput(f"{text!r}: expected MODEL:FORMAT:ROLE=VARIANT (comma lists or '*')")
    keys = tuple(None if f == "*" else set(f.split(",")) for f in fields)
    return keys, variant


def read_table(path):
    try:
        with open(path, encoding="utf-8") as f:
            table = json.load(f)
    except OSError as e:
        raise BadInput(f"{path}: cannot read ({e.strerror})") from e
    except ValueError as e:
        raise BadInput(f"{path}: not JSON ({e})") from e
    entries = table.get("entries") if isinstance(table, dict) else None
    if not isinstance(entries, list):
        raise BadInput(f"{path}: no 'entries' list (not an ecocompute tuning table)")
    for i, e in enumerate(entries):
        for field in ("model", "weight_format", "role", "variant"):
            if not isinstance(e, dict) or not isinstance(e.get(field), str):
                raise BadInput(f"{path}: entries[{i}] has no string '{field}'")
    return table


def apply_sets(table, sets):
    """Replaces the matching entries' variants in place; returns how many each SET matched."""
    counts = []
    for (models, formats, roles), variant in sets:
        n = 0
        for e in table["entries"]:
            if ((models is None or e["model"] in models) and
                    (formats is None or e["weight_format"] in formats) and
                    (roles is None or e["role"] in roles)):
                e["variant"] = variant
                e.pop("step_us", None)
                n += 1
        counts.append(n)
    return counts


def write_atomically(path, table):
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".table_arm.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            # As `ecocompute tune` writes a table (two spaces, keys sorted), so that a copy
            # checked in differs from its source only where its entries do.
            json.dump(table, f, indent=2, sort_keys=True)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("table", help="the tuning table to start from")
    ap.add_argument("sets", nargs="*", metavar="SET", help="MODEL:FORMAT:ROLE=VARIANT")
    ap.add_argument("--out", required=True, help="where to write the copy")
    ap.add_argument("--gpu", help="the GPU name to give the copy (nvidia-smi's name)")
    args = ap.parse_intermixed_args(argv)
    try:
        sets = [parse_set(s) for s in args.sets]
        table = read_table(args.table)
        for text, n in zip(args.sets, apply_sets(table, sets)):
            if n == 0:
                raise BadInput(f"{text!r} matches no entry of {args.table}")
            print(f"{text}: {n} entries")
        if args.gpu:
            if not isinstance(table.get("gpu"), dict):
                raise BadInput(f"{args.table}: no 'gpu' object to rename")
            table["gpu"]["name"] = args.gpu
        write_atomically(args.out, table)
    except BadInput as e:
        print(f"table_arm: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"table_arm: {args.out}: cannot write ({e.strerror})", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
