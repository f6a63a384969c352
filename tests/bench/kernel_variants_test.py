#!/usr/bin/env python3
"""bench/kernel_variants.py on hand-made bench_kernels --json rows: each run's times side by side in
the first run's order, the ratios to the first run, "-" for a variant a run did not time, FAIL and
exit status 1 past the CPU-twin tolerance, and exit status 2 with the file, line and field named on
rows that are not bench_kernels'."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "bench", "kernel_variants.py")


def row(variant, us, fmt="nf4", role="down", rel_err=1e-6, nbytes=40e6):
    return {"format": fmt, "role": role, "variant": variant, "seconds": us * 1e-6,
            "bytes": nbytes, "rel_err": rel_err}


class KernelVariants(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, rows):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            for r in rows:
                f.write((r if isinstance(r, str) else json.dumps(r)) + "\n")
        return path

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                              check=False)

    def table_rows(self, out):
        return [[c.strip() for c in line.strip("|").split("|")]
                for line in out.splitlines() if line.startswith("| ") and "variant" not in line]

    def test_runs_side_by_side_in_the_first_runs_order(self):
        a = self.write("a.jsonl", [row("r2p-u2", 20.0), row("r2p-pass", 18.0),
                                   row("r2p", 25.0, role="o")])
        b = self.write("b.jsonl", [row("r2p-u2", 22.0), row("r2p-pass", 17.0),
                                   row("r2p-whole", 16.0)])
        got = self.run_script(f"before={a}", f"after={b}")
        self.assertEqual(got.returncode, 0, got.stderr)
        self.assertIn("### nf4 down", got.stdout)
        self.assertIn("### nf4 o", got.stdout)
        self.assertIn(
            "| variant | before us | after us | before GB/s | after GB/s | after / before |",
            got.stdout)
        down = got.stdout.split("### nf4 o")[0]
        rows = self.table_rows(down)
        # The first run's order (fastest first), then what only the second run timed.
        self.assertEqual([r[0] for r in rows], ["r2p-pass", "r2p-u2", "r2p-whole"])
        self.assertEqual(rows[0], ["r2p-pass", "18.00", "17.00", "2222", "2353", "0.944"])
        self.assertEqual(rows[1][1:3], ["20.00", "22.00"])
        self.assertEqual(rows[1][5], "1.100")
        self.assertEqual(rows[2], ["r2p-whole", "-", "16.00", "-", "2500", "-"])
        # o_proj: the second run has no row of it.
        o_rows = self.table_rows(got.stdout.split("### nf4 o")[1])
        self.assertEqual(o_rows, [["r2p", "25.00", "-", "1600", "-", "-"]])

    def test_filters_and_top(self):
        a = self.write("a.jsonl", [row("v1", 3.0), row("v2", 1.0), row("v3", 2.0),
                                   row("f", 1.0, fmt="fp16", role="qkv")])
        got = self.run_script(f"one={a}", "--format", "nf4", "--role", "down", "--top", "2")
        self.assertEqual(got.returncode, 0, got.stderr)
        self.assertNotIn("fp16", got.stdout)
        self.assertEqual([r[0] for r in self.table_rows(got.stdout)], ["v2", "v3"])
        got = self.run_script(f"one={a}", "--role", "lm_head")
        self.assertEqual(got.returncode, 2)
        self.assertIn("no rows of that format and role", got.stderr)

    def test_a_row_past_the_tolerance_fails(self):
        # 1e-4 passes a quantized format's 1e-3 and fails FP16's 1e-5.
        a = self.write("a.jsonl", [row("q", 1.0, rel_err=1e-4),
                                   row("h", 1.0, fmt="fp16", rel_err=1e-4)])
        got = self.run_script(f"one={a}")
        self.assertEqual(got.returncode, 1)
        rows = {r[0]: r for r in self.table_rows(got.stdout)}
        self.assertEqual(rows["q"][1], "1.00")
        self.assertEqual(rows["h"][1], "1.00 FAIL")
        a = self.write("nan.jsonl", [row("q", 1.0, rel_err=float("nan"))])
        self.assertEqual(self.run_script(f"one={a}").returncode, 1)
        # bench_kernels writes null where its error is not a number (JSON has no NaN).
        a = self.write("null.jsonl", [row("q", 1.0, rel_err=None), row("r", 2.0)])
        got = self.run_script(f"one={a}")
        self.assertEqual(got.returncode, 1)
        rows = {r[0]: r for r in self.table_rows(got.stdout)}
        self.assertEqual(rows["q"][1], "1.00 FAIL")
        self.assertEqual(rows["r"][1], "2.00")

    def test_bad_input_names_the_file_line_and_field(self):
        good = row("v", 1.0)
        cases = [
            (["{not json"], ":1: not a JSON row"),
            ([good, "[1, 2]"], ":2: expected an object"),
            ([{k: v for k, v in good.items() if k != "seconds"}], ":1: no field 'seconds'"),
            ([dict(good, bytes="many")], ":1: field 'bytes' is 'many', expected a number"),
            ([dict(good, variant=3)], ":1: field 'variant' is 3, expected a string"),
            ([dict(good, seconds=0)], ":1: field 'seconds' is 0, expected a time above 0"),
            ([], ": no rows"),
        ]
        for lines, message in cases:
            path = self.write("bad.jsonl", lines)
            got = self.run_script(f"run={path}")
            self.assertEqual(got.returncode, 2, (lines, got.stdout))
            self.assertIn(path + message, got.stderr)
            self.assertEqual(got.stdout, "")
        missing = os.path.join(self.tmp.name, "missing.jsonl")
        got = self.run_script(f"run={missing}")
        self.assertEqual(got.returncode, 2)
        self.assertIn(f"{missing}: cannot read", got.stderr)
        got = self.run_script(self.write("a.jsonl", [good]))
        self.assertEqual(got.returncode, 2)
        self.assertIn("expected NAME=FILE", got.stderr)


if __name__ == "__main__":
    unittest.main()
