#!/usr/bin/env python3
"""bench/decode_turns.py against a stand-in bench_decode (no GPU): the arms run in turns, reversed
every other turn, each with the common arguments and its own; the summary and the ratios of speed
and energy come from the rows the processes wrote; a failed process or a MISMATCH row gives exit
status 1 and loses no row; malformed arms are refused with exit status 2."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "bench", "decode_turns.py")

# Writes one row per format of --formats, tok/s from --speed (default 100) plus the number of the
# call, so that every process's row is told apart; appends its argv to $CALLS; exits with --exit.
FAKE_BENCH = r'''#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
opt = {args[i]: args[i + 1] for i in range(0, len(args) - 1, 2)}
calls = os.environ["CALLS"]
n = sum(1 for _ in open(calls)) if os.path.exists(calls) else 0
with open(calls, "a") as f:
    f.write(json.dumps(args) + "\n")
speed = float(opt.get("--speed", "100"))
joules = float(opt.get("--joules", "2.56")) + n * 0.0256  # 10 J/1k tok, 0.1 more each call
with open(opt["--json"], "w") as f:
    for fmt in opt.get("--formats", "FP16").split(","):
        tok_s = speed * (2.0 if fmt != "FP16" else 1.0) + n
        f.write(json.dumps({"model": opt.get("--models", "m"), "precision": fmt, "tok_s": tok_s,
                            "gb_s": tok_s * 8.0, "copy_ceiling_gb_s": 2000.0,
                            "x_fp16": tok_s / (speed + n), "tokens": 256,
                            "joules": [joules, joules],
                            "kernel_variant": "v" + opt.get("--speed", "100"),
                            "mismatch": opt.get("--mismatch", "")}) + "\n")
sys.exit(int(opt.get("--exit", "0")))
'''


class DecodeTurns(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.bench = os.path.join(self.tmp.name, "bench_decode")
        with open(self.bench, "w") as f:
            f.write(FAKE_BENCH)
        os.chmod(self.bench, 0o755)
        self.calls = os.path.join(self.tmp.name, "calls")
        self.rows = os.path.join(self.tmp.name, "rows.jsonl")

    def tearDown(self):
        self.tmp.cleanup()

    def run_turns(self, *args):
        env = dict(os.environ, CALLS=self.calls)
        return subprocess.run([sys.executable, SCRIPT, "--bench", self.bench, *args],
                              capture_output=True, text=True, env=env, check=False)

    def calls_made(self):
        with open(self.calls) as f:
            return [json.loads(line) for line in f]

    def test_arms_take_turns_reversed_every_other_turn(self):
        done = self.run_turns("--arm", "a=--speed 100", "--arm", "b=--speed 110", "--turns", "3",
                              "--json", self.rows, "--", "--models", "m", "--formats", "FP16,NF4")
        self.assertEqual(done.returncode, 0, done.stderr)
        speeds = [c[c.index("--speed") + 1] for c in self.calls_made()]
        self.assertEqual(speeds, ["100", "110", "110", "100", "100", "110"])
        for c in self.calls_made():  # the common arguments come first, then the arm's own
            self.assertEqual(c[:4], ["--models", "m", "--formats", "FP16,NF4"])
        with open(self.rows) as f:
            rows = [json.loads(line) for line in f]
        self.assertEqual(len(rows), 12)
        self.assertEqual([(r["arm"], r["turn"]) for r in rows if r["precision"] == "FP16"],
                         [("a", 1), ("b", 1), ("b", 2), ("a", 2), ("a", 3), ("b", 3)])

    def test_summary_gives_each_process_and_the_ratio_of_medians(self):
        done = self.run_turns("--arm", "a=--speed 100", "--arm", "b=--speed 110", "--turns", "3",
                              "--", "--formats", "FP16")
        self.assertEqual(done.returncode, 0, done.stderr)
        # Processes 0..5 run a b b a a b: a's tok/s 100, 103, 104; b's 111, 112, 115.
        self.assertIn("| m | FP16 | a | 100.0, 103.0, 104.0 |", done.stdout)
        self.assertIn("| m | FP16 | b | 111.0, 112.0, 115.0 |", done.stdout)
        # % of copy: 8 GB a token over 2,000 GB/s measured in the same process.
        self.assertIn("| m | FP16 | a | 100.0, 103.0, 104.0 | 40.0, 41.2, 41.6 |", done.stdout)
        self.assertIn(f"b / a = {112.0 / 103.0:.4f} (median tok/s); ranges apart; x FP16 "
                      "1.000 -> 1.000 (medians)", done.stdout)
        # J/1k tok: 2.56 J over 256 tokens, 0.1 more each process: a's 10.0, 10.3, 10.4
        self.assertIn("| 10, 10, 10 |", done.stdout)

    def test_energy_of_each_arm_against_the_first(self):
        done = self.run_turns("--arm", "a=--speed 100", "--arm", "b=--speed 110 --joules 3.072",
                              "--turns", "3", "--", "--formats", "FP16")
        self.assertEqual(done.returncode, 0, done.stderr)
        # a's J/1k tok 10.0, 10.3, 10.4 (median 10.3); b's 12.1, 12.2, 12.5 (median 12.2).
        self.assertIn(f"J/1k tok 10 -> 12 ({(12.2 / 10.3 - 1) * 100:+.1f} %, ranges apart)",
                      done.stdout)
        done = self.run_turns("--arm", "a=--speed 100", "--arm", "b=--speed 110 --joules 2.5856",
                              "--turns", "2", "--", "--formats", "FP16")
        # The calls go on counting: a's 10.6, 10.9; b's 10.8, 10.9: the ranges overlap.
        self.assertIn("%, ranges overlap)", done.stdout)

    def test_x_fp16_medians_of_each_arm(self):
        done = self.run_turns("--arm", "a=--speed 100", "--arm", "b=--speed 110", "--turns", "1",
                              "--", "--formats", "FP16,NF4")
        self.assertEqual(done.returncode, 0, done.stderr)
        # Process 0 (a): NF4 200 over FP16 100; process 1 (b): 221 over 111.
        self.assertIn(f"x FP16 2.000 -> {221 / 111:.3f} (medians)", done.stdout)

    def test_overlapping_ranges_are_said_to_overlap(self):
        done = self.run_turns("--arm", "a=--speed 100", "--arm", "b=--speed 101", "--turns", "2",
                              "--", "--formats", "FP16")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("ranges overlap", done.stdout)

    def test_a_failed_process_fails_the_run_and_keeps_every_row(self):
        done = self.run_turns("--arm", "a=--speed 100", "--arm", "b=--speed 110 --exit 3",
                              "--json", self.rows, "--", "--formats", "FP16")
        self.assertEqual(done.returncode, 1)
        self.assertIn("b, turn 1: exit status 3", done.stderr)
        with open(self.rows) as f:
            self.assertEqual(len(f.readlines()), 4)

    def test_a_binary_that_does_not_start_or_writes_bad_rows_fails_the_run(self):
        done = self.run_turns("--arm", "a=--speed 100", "--arm", "b@/nonexistent/bench=",
                              "--turns", "1", "--", "--formats", "FP16")
        self.assertEqual(done.returncode, 1)
        self.assertIn("b, turn 1: /nonexistent/bench did not start", done.stderr)
        self.assertIn("| m | FP16 | a | 100.0 |", done.stdout)  # the rows that ran are kept
        bad = os.path.join(self.tmp.name, "bad_bench")
        with open(bad, "w") as f:
            f.write("#!/bin/sh\nwhile [ $# -gt 1 ]; do [ \"$1\" = --json ] && out=$2; shift; done\n"
                    "echo '{\"model\": \"m\"}' > \"$out\"\n")
        os.chmod(bad, 0o755)
        done = self.run_turns("--arm", "a=--speed 100", "--arm", f"b@{bad}=", "--turns", "1",
                              "--", "--formats", "FP16")
        self.assertEqual(done.returncode, 1)
        self.assertIn("row 1 of its --json output has no precision", done.stderr)

    def test_a_mismatch_fails_the_run(self):
        done = self.run_turns("--arm", "a=--speed 100",
                              "--arm", "b=--speed 110 --mismatch differs", "--turns", "1",
                              "--", "--formats", "FP16")
        self.assertEqual(done.returncode, 1)
        self.assertIn("MISMATCH", done.stdout)

    def test_malformed_arms_are_refused(self):
        for arms, expected in [(["--arm", "a=", "--arm", "b"], "expected NAME=ARGS"),
                               (["--arm", "=x", "--arm", "b="], "no name"),
                               (["--arm", "a="], "at least two --arm"),
                               (["--arm", "a=", "--arm", "a=--speed 3"], "its own name")]:
            done = self.run_turns(*arms)
            self.assertEqual(done.returncode, 2, arms)
            self.assertIn(expected, done.stderr, arms)
        self.assertFalse(os.path.exists(self.calls), "nothing ran")

    def test_another_binary_per_arm(self):
        other = os.path.join(self.tmp.name, "other_bench")
        os.symlink(self.bench, other)
        done = self.run_turns("--arm", "a=--speed 100", "--arm", f"b@{other}=--speed 100",
                              "--turns", "1", "--", "--formats", "FP16")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(len(self.calls_made()), 2)
        self.assertIn(f"$ {other} ", done.stderr)


if __name__ == "__main__":
    unittest.main()
