#!/usr/bin/env python3
"""bench/device/tune_compare.sh's turns stage against a stand-in nvidia-smi and bench_decode (no
GPU): the table named for the GPU is the first arm as it is, a table named for another GPU is
renamed for this one in every arm, PIN and VS add their arms, each arm's bench_decode gets its own
table, and the stage refuses to run with nothing to compare. A VS table that cannot be read stops
the script with exit status 2, naming the file."""

import json
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SCRIPT = os.path.join(ROOT, "bench", "device", "tune_compare.sh")
H200_TABLE = os.path.join(ROOT, "data", "tuning", "nvidia-h200-cc9.0.json")
H100_TABLE = os.path.join(ROOT, "data", "tuning", "nvidia-h100-80gb-hbm3-cc9.0.json")

# Answers the name query with $FAKE_GPU, any other query with a CSV line.
FAKE_SMI = """#!/bin/sh
case "$*" in
  *--query-gpu=name\\ *) echo "$FAKE_GPU" ;;
  *) echo "name, driver_version"; echo "$FAKE_GPU, 0" ;;
esac
"""

# Appends its argv and the GPU and entries of its --tuning-table to $CALLS; writes one row per
# format.
FAKE_BENCH = r'''#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
opt = {args[i]: args[i + 1] for i in range(0, len(args) - 1, 2)}
table = json.load(open(opt["--tuning-table"])) if "--tuning-table" in opt else None
with open(os.environ["CALLS"], "a") as f:
    f.write(json.dumps({"args": args, "table": table}) + "\n")
with open(opt["--json"], "w") as f:
    for fmt in opt["--formats"].split(","):
        f.write(json.dumps({"model": opt["--models"], "precision": fmt, "tok_s": 100.0,
                            "gb_s": 800.0, "copy_ceiling_gb_s": 2000.0, "x_fp16": 1.0,
                            "tokens": 256, "joules": [2.56, 2.56], "kernel_variant": "v",
                            "mismatch": ""}) + "\n")
'''


class TuneCompareTurns(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.bin = self.path("bin")
        self.build = self.path("build")
        os.makedirs(self.bin)
        os.makedirs(os.path.join(self.build, "bench"))
        self.write_exe(os.path.join(self.bin, "nvidia-smi"), FAKE_SMI)
        self.write_exe(os.path.join(self.build, "bench", "bench_decode"), FAKE_BENCH)
        self.calls = self.path("calls")

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    @staticmethod
    def write_exe(path, text):
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)

    def run_script(self, gpu, **env_extra):
        env = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"], FAKE_GPU=gpu,
                   CALLS=self.calls, OUT=self.path("out"), WORK=self.path("work"),
                   STAGES="turns", MODELS="qwen2-7b", PRECISIONS="NF4", TURNS="1", **env_extra)
        return subprocess.run(["bash", SCRIPT, self.build], capture_output=True, text=True,
                              env=env, check=False)

    def calls_made(self):
        if not os.path.exists(self.calls):
            return []
        with open(self.calls) as f:
            return [json.loads(line) for line in f]

    @staticmethod
    def load(path):
        with open(path) as f:
            return json.load(f)

    def arm_tables(self):
        """{arm's --tuning-table file name: the table its process loaded} over every call."""
        out = {}
        for call in self.calls_made():
            args = call["args"]
            out[os.path.basename(args[args.index("--tuning-table") + 1])] = call["table"]
        return out

    def test_the_table_named_for_this_gpu_runs_as_it_is_beside_vs_and_pin(self):
        done = self.run_script("NVIDIA H200", VS=H100_TABLE, PIN="qwen2-7b:nf4:head=r2p")
        self.assertEqual(done.returncode, 0, done.stderr)
        calls = self.calls_made()
        self.assertEqual(len(calls), 3)  # one turn of three arms
        for call in calls:  # the common arguments: the models and FP16 with the precisions
            self.assertEqual(call["args"][:4], ["--models", "qwen2-7b", "--formats", "FP16,NF4"])
        tables = self.arm_tables()
        h200 = self.load(H200_TABLE)
        self.assertEqual(sorted(tables), ["nvidia-h200-cc9.0.json", "pinned.json", "vs.json"])
        self.assertEqual(tables["nvidia-h200-cc9.0.json"], h200)
        # VS: the H100's entries, renamed for the H200.
        self.assertEqual(tables["vs.json"]["gpu"]["name"], "NVIDIA H200")
        self.assertEqual(tables["vs.json"]["entries"], self.load(H100_TABLE)["entries"])
        # PIN: the H200's table with 7B NF4's lm_head replaced, every other entry as it was.
        pinned = tables["pinned.json"]["entries"]
        self.assertEqual(len(pinned), len(h200["entries"]))
        changed = [(a, b) for a, b in zip(h200["entries"], pinned) if a != b]
        self.assertEqual(len(changed), 1)
        before, after = changed[0]
        self.assertEqual((before["model"], before["weight_format"], before["role"]),
                         ("qwen2-7b", "nf4", "head"))
        self.assertEqual(after["variant"], "r2p")
        self.assertIn("| qwen2-7b | NF4 | vs |", done.stdout)
        self.assertTrue(os.path.exists(self.path("out/tune_compare.tgz")))

    def test_a_table_named_for_another_gpu_is_renamed_in_every_arm(self):
        done = self.run_script("NVIDIA H100 80GB HBM3", TABLE=H200_TABLE, VS=H200_TABLE)
        self.assertEqual(done.returncode, 0, done.stderr)
        tables = self.arm_tables()
        self.assertEqual(sorted(tables), ["before.json", "vs.json"])
        h200 = self.load(H200_TABLE)
        for table in tables.values():
            self.assertEqual(table["gpu"]["name"], "NVIDIA H100 80GB HBM3")
            self.assertEqual(table["entries"], h200["entries"])

    def test_turns_with_nothing_to_compare_run_no_process(self):
        done = self.run_script("NVIDIA H200")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("turns: nothing to compare with the table", done.stdout)
        self.assertEqual(self.calls_made(), [])

    def test_an_unreadable_vs_table_stops_the_script_naming_it(self):
        missing = self.path("no-such-table.json")
        done = self.run_script("NVIDIA H200", VS=missing)
        self.assertEqual(done.returncode, 2)
        self.assertIn("no-such-table.json", done.stderr)
        self.assertEqual(self.calls_made(), [])


if __name__ == "__main__":
    unittest.main()
