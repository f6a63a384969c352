#!/usr/bin/env python3
"""A fake inference workload for the marker protocol's tests: each "generation" sleeps and
returns its tokens, through the reference client, for the sides named on the command line.

  marks_fake_workload.py LABEL:SECONDS_PER_GENERATION[,...] [--tokens N] [--warmup W] [--iterations N]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "clients", "python"))
from ecocompute_marks import Marks  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sides")
    ap.add_argument("--tokens", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--no-split", action="store_true")
    a = ap.parse_args()
    marks = Marks()
    marks.info("model", "fake-0.1b")
    marks.info("params_b", "0.1")
    marks.info("prompt", "a fake prompt")
    marks.info("prompt_tokens", "4")
    marks.info("version.fake", "1.0")
    for side in a.sides.split(","):
        label, seconds = side.split(":")
        marks.label(label)

        def generate(split, seconds=float(seconds)):
            time.sleep(seconds / 4)
            split()
            time.sleep(seconds * 3 / 4)
            return a.tokens

        for _ in range(a.warmup):
            marks.warmup(generate)
        windows = ("generate",) if a.no_split else ("prefill", "decode")
        for _ in range(a.iterations):
            reply = marks.iteration(generate, windows=windows)
            print(label, reply, flush=True)


if __name__ == "__main__":
    main()
