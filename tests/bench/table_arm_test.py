#!/usr/bin/env python3
"""bench/table_arm.py on a hand-made tuning table: the matching entries' variants replaced and
their step times dropped, the rest untouched, the GPU renamed on request, and exit status 2 with
the file or SET named (and nothing written) on bad input."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "bench", "table_arm.py")


def entry(model, fmt, role, variant, step_us=100.0):
    return {"model": model, "weight_format": fmt, "role": role, "variant": variant,
            "rows": 8, "cols": 8, "step_us": step_us}


TABLE = {
    "format": "ecocompute-tuning-table", "version": 1,
    "gpu": {"name": "NVIDIA H200", "compute_capability": "9.0"},
    "entries": [
        entry("qwen2-7b", "nf4", "qkv", "r2p-u2"),
        entry("qwen2-7b", "nf4", "down", "r2p-l2pf-u2"),
        entry("qwen2-7b", "nf4-dq", "o", "r1p-dbuf"),
        entry("qwen2-7b", "fp16", "qkv", "r1p-bulk"),
        entry("qwen2-0.5b", "nf4", "qkv", "r2p"),
    ],
}


class TableArm(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.table = self.path("table.json")
        with open(self.table, "w") as f:
            json.dump(TABLE, f)

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                              check=False)

    def variants(self, path):
        with open(path) as f:
            t = json.load(f)
        return t, {(e["model"], e["weight_format"], e["role"]): e for e in t["entries"]}

    def test_matching_entries_replaced_and_the_rest_kept(self):
        out = self.path("whole.json")
        got = self.run_script(self.table, "--out", out, "qwen2-7b:nf4,nf4-dq:qkv,o=r2p-whole")
        self.assertEqual(got.returncode, 0, got.stderr)
        self.assertIn("2 entries", got.stdout)
        t, by_key = self.variants(out)
        self.assertEqual(by_key[("qwen2-7b", "nf4", "qkv")]["variant"], "r2p-whole")
        self.assertEqual(by_key[("qwen2-7b", "nf4-dq", "o")]["variant"], "r2p-whole")
        self.assertNotIn("step_us", by_key[("qwen2-7b", "nf4", "qkv")])
        # Another role, another format, another model: untouched, step time kept.
        self.assertEqual(by_key[("qwen2-7b", "nf4", "down")], TABLE["entries"][1])
        self.assertEqual(by_key[("qwen2-7b", "fp16", "qkv")], TABLE["entries"][3])
        self.assertEqual(by_key[("qwen2-0.5b", "nf4", "qkv")], TABLE["entries"][4])
        self.assertEqual(t["gpu"]["name"], "NVIDIA H200")

    def test_wildcards_and_the_gpu_renamed(self):
        out = self.path("h100.json")
        got = self.run_script(self.table, "--out", out, "--gpu", "NVIDIA H100 80GB HBM3",
                              "*:nf4:qkv=r2p-whole")
        self.assertEqual(got.returncode, 0, got.stderr)
        t, by_key = self.variants(out)
        self.assertEqual(t["gpu"]["name"], "NVIDIA H100 80GB HBM3")
        self.assertEqual(by_key[("qwen2-7b", "nf4", "qkv")]["variant"], "r2p-whole")
        self.assertEqual(by_key[("qwen2-0.5b", "nf4", "qkv")]["variant"], "r2p-whole")
        self.assertEqual(by_key[("qwen2-7b", "fp16", "qkv")]["variant"], "r1p-bulk")
        # No SET: a renamed copy, every entry as it was.
        got = self.run_script(self.table, "--out", out, "--gpu", "NVIDIA H100 80GB HBM3")
        self.assertEqual(got.returncode, 0, got.stderr)
        t, _ = self.variants(out)
        self.assertEqual(t["entries"], TABLE["entries"])

    def test_bad_input_is_named_and_nothing_is_written(self):
        out = self.path("out.json")
        cases = [
            ([self.table, "qwen2-7b:nf4=r2p"], "expected MODEL:FORMAT:ROLE=VARIANT"),
            ([self.table, "qwen2-7b:nf4:qkv="], "expected MODEL:FORMAT:ROLE=VARIANT"),
            ([self.table, "qwen2-7b::qkv=r2p"], "expected MODEL:FORMAT:ROLE=VARIANT"),
            ([self.table, "llama:nf4:qkv=r2p"], "'llama:nf4:qkv=r2p' matches no entry of"),
            ([self.path("missing.json")], "missing.json: cannot read"),
        ]
        for args, message in cases:
            got = self.run_script(*args, "--out", out)
            self.assertEqual(got.returncode, 2, (args, got.stdout))
            self.assertIn(message, got.stderr)
            self.assertFalse(os.path.exists(out), args)
        with open(self.path("bad.json"), "w") as f:
            f.write('{"entries": [{"model": "m"}]}')
        got = self.run_script(self.path("bad.json"), "--out", out)
        self.assertEqual(got.returncode, 2)
        self.assertIn("entries[0] has no string 'weight_format'", got.stderr)
        self.assertFalse(os.path.exists(out))
        self.assertEqual(sorted(os.listdir(self.tmp.name)), ["bad.json", "table.json"])


if __name__ == "__main__":
    unittest.main()
