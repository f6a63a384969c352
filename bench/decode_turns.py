#!/usr/bin/env python3
"""Decode speed of two or more configurations, measured in processes that take turns.

One bench_decode process varies from the next by about as much as a kernel change gains (1-2 %),
so two configurations (tuning tables, pinned kernel variants, binaries of two commits) are only
compared in processes run alternately: each turn runs every arm once, in reversed order every
other turn (A B, B A, A B, ...), so that a drift of the machine over the run weighs on both alike.
Prints one row per model, precision and arm (tok/s of each process in run order, the % of the copy
bandwidth each process measured, x FP16 of each, J/1k tok, the kernel variant strings), then each
arm against the first: the ratio of median tok/s and whether their ranges overlap, and the same for
J/1k tok. Writes every bench_decode row, with its arm and turn, to --json.

  decode_turns.py --arm shipped= --arm tuned='--tuning-table new.json' --turns 3 \\
      [--bench build/static/bench/bench_decode] [--json rows.jsonl] -- --models qwen2-7b \\
      --formats FP16,NF4

An arm is NAME=ARGS (ARGS split as a shell would, added to the common arguments after --) or
NAME@BENCH=ARGS to run another bench_decode binary. Exit status 1 when a process failed or a
format decoded different tokens in two runs (bench_decode's MISMATCH), 2 on bad arguments.
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile


def parse_arm(text, default_bench):
    """NAME=ARGS or NAME@BENCH=ARGS -> (name, bench, [args])."""
    if "=" not in text:
        raise ValueError(f"--arm {text!r}: expected NAME=ARGS or NAME@BENCH=ARGS")
    head, args = text.split("=", 1)
    name, _, bench = head.partition("@")
    if not name:
        raise ValueError(f"--arm {text!r}: the arm has no name before '='")
    return name, bench or default_bench, shlex.split(args)


def turn_order(arms, turn):
    """The arms in the order turn `turn` runs them: as given, reversed every other turn."""
    return list(arms) if turn % 2 == 0 else list(reversed(arms))


def run_process(bench, args, log):
    """One bench_decode process; returns (exit status, its rows, what went wrong or "")."""
    with tempfile.TemporaryDirectory() as tmp:
        rows_path = os.path.join(tmp, "rows.jsonl")
        cmd = [bench, *args, "--json", rows_path]
        log.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        log.flush()
        try:
            done = subprocess.run(cmd, stdout=log, stderr=log, check=False)
        except OSError as e:
            return None, [], f"{bench} did not start: {e}"
        rows = []
        if os.path.exists(rows_path):
            with open(rows_path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if not line.strip():
                        continue
                    where = f"row {n} of its --json output"
                    try:
                        row = json.loads(line)
                    except json.JSONDecodeError as e:
                        return done.returncode, rows, f"{where} is not JSON ({e})"
                    missing = [k for k in ("model", "precision", "tok_s") if k not in row]
                    if missing:
                        return done.returncode, rows, f"{where} has no {missing[0]}"
                    rows.append(row)
        return done.returncode, rows, ""


def joules_per_1k(row):
    joules = row.get("joules") or []
    tokens = row.get("tokens") or 0
    if not joules or tokens <= 0:
        return None
    return statistics.median(joules) / tokens * 1000.0


def ranges(first, other):
    """Whether two arms' values, one per process, overlap ("overlap") or stand apart ("apart")."""
    return "overlap" if min(other) <= max(first) and min(first) <= max(other) else "apart"


def energy_versus(first, arm):
    """The J/1k tok of an arm against the first's: medians, the change, whether the ranges overlap.
    A faster set of kernels can take more energy a token (the H100's L2-prefetching FP16 variants
    drew 25 W more for the same bytes), so a comparison of speed alone can ship a costlier one."""
    if not first or not arm:
        return ""
    a, b = statistics.median(first), statistics.median(arm)
    change = (b / a - 1) * 100
    return f"; J/1k tok {a:.0f} -> {b:.0f} ({change:+.1f} %, ranges {ranges(first, arm)})"


def percent_of_copy(row):
    """The row's weight bytes a second over the copy bandwidth measured in its own process."""
    gbs, copy = row.get("gb_s"), row.get("copy_ceiling_gb_s")
    if not gbs or not copy:
        return None
    return gbs / copy * 100.0


def span(values, fmt):
    if not values:
        return "n/a"
    return ", ".join(fmt.format(v) for v in values)


def summarise(arm_names, rows):
    """Markdown: a row per model, precision and arm, then each arm against the first."""
    keys = []
    for r in rows:
        key = (r["model"], r["precision"])
        if key not in keys:
            keys.append(key)
    out = ["| model | precision | arm | tok/s, each process | % of copy | x FP16 | J/1k tok "
           "| kernel variant |",
           "|---|---|---|---|---|---|---|---|"]
    versus = []
    for model, precision in keys:
        speed = {}  # tok/s of each process
        x_medians = {}
        energy = {}  # J/1k tok of each process
        for arm in arm_names:
            mine = [r for r in rows
                    if r["arm"] == arm and r["model"] == model and r["precision"] == precision]
            if not mine:
                continue
            tps = [r["tok_s"] for r in mine]
            copy = [v for v in (percent_of_copy(r) for r in mine) if v is not None]
            x = [r["x_fp16"] for r in mine if r.get("x_fp16") is not None]
            j = [v for v in (joules_per_1k(r) for r in mine) if v is not None]
            variants = sorted({r.get("kernel_variant", "") for r in mine})
            mismatch = "; MISMATCH" if any(r.get("mismatch") for r in mine) else ""
            out.append(f"| {model} | {precision} | {arm} | {span(tps, '{:.1f}')}{mismatch} "
                       f"| {span(copy, '{:.1f}')} | {span(x, '{:.3f}')} | {span(j, '{:.0f}')} "
                       f"| {' / '.join(variants)} |")
            speed[arm] = tps
            x_medians[arm] = statistics.median(x) if x else None
            energy[arm] = j
        first = arm_names[0]
        for arm in arm_names[1:]:
            if first not in speed or arm not in speed:
                continue
            x = ""
            if x_medians[first] is not None and x_medians[arm] is not None:
                x = f"; x FP16 {x_medians[first]:.3f} -> {x_medians[arm]:.3f} (medians)"
            ratio = statistics.median(speed[arm]) / statistics.median(speed[first])
            versus.append(f"- {model} {precision}: {arm} / {first} = {ratio:.4f} (median tok/s); "
                          f"ranges {ranges(speed[first], speed[arm])}{x}"
                          + energy_versus(energy[first], energy[arm]))
    return "\n".join(out + ([""] + versus if versus else [])) + "\n"


def main(argv):
    if "--" in argv:
        split = argv.index("--")
        own, common = argv[:split], argv[split + 1:]
    else:
        own, common = argv, []
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bench", default="build/static/bench/bench_decode")
    p.add_argument("--arm", action="append", default=[], metavar="NAME[@BENCH]=ARGS")
    p.add_argument("--turns", type=int, default=2)
    p.add_argument("--json", default="", help="every row, with its arm and turn (JSON lines)")
    p.add_argument("--log", default="", help="the processes' own output (default: stderr)")
    opts = p.parse_args(own)
    try:
        arms = [parse_arm(a, opts.bench) for a in opts.arm]
    except ValueError as e:
        print(f"decode_turns: {e}", file=sys.stderr)
        return 2
    names = [a[0] for a in arms]
    if len(arms) < 2 or len(set(names)) != len(names):
        print("decode_turns: give at least two --arm, each with its own name", file=sys.stderr)
        return 2
    if opts.turns < 1:
        print("decode_turns: --turns must be at least 1", file=sys.stderr)
        return 2
    if "--json" in common:
        print("decode_turns: --json after -- is the script's own; give it before --",
              file=sys.stderr)
        return 2
    log = open(opts.log, "w", encoding="utf-8") if opts.log else sys.stderr
    rows, failed = [], []
    for turn in range(opts.turns):
        for name, bench, args in turn_order(arms, turn):
            status, got, wrong = run_process(bench, common + args, log)
            if wrong:
                failed.append(f"{name}, turn {turn + 1}: {wrong}")
            elif status != 0:
                failed.append(f"{name}, turn {turn + 1}: exit status {status}")
            for r in got:
                r["arm"], r["turn"] = name, turn + 1
            rows.extend(got)
            if opts.json:  # rewritten whole after every process: a crash keeps what ran
                tmp = opts.json + ".tmp"
                with open(tmp, "w", encoding="utf-8") as f:
                    f.writelines(json.dumps(r) + "\n" for r in rows)
                os.replace(tmp, opts.json)
    sys.stdout.write(summarise(names, rows))
    for f in failed:
        print(f"decode_turns: a process failed ({f})", file=sys.stderr)
    mismatched = any(r.get("mismatch") for r in rows)
    return 1 if failed or mismatched else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
