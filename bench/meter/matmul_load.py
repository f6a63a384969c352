"""Steady GPU load for meter checks: an fp16 matmul loop for a fixed time; prints TFLOP/s.

Writes "start <time.monotonic()>" and "end <...>" to $EC_MARKS (if set) around the timed loop, on
the same clock (CLOCK_MONOTONIC) as the meter's steady_clock samples.
"""
import argparse
import os
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--seconds", type=float, default=8.0)
p.add_argument("--n", type=int, default=8192)
a = p.parse_args()

x = torch.randn(a.n, a.n, device="cuda", dtype=torch.float16)
y = torch.randn(a.n, a.n, device="cuda", dtype=torch.float16)
for _ in range(5):  # warm-up: cuBLAS heuristics, clocks up
    z = x @ y
torch.cuda.synchronize()

marks = os.environ.get("EC_MARKS")
start = time.monotonic()
iters = 0
while time.monotonic() - start < a.seconds:
    for _ in range(10):
        z = x @ y
    torch.cuda.synchronize()  # the device is idle-free but each check point is synchronised
    iters += 10
end = time.monotonic()
if marks:
    with open(marks, "w") as f:
        f.write(f"start {start:.6f}\nend {end:.6f}\n")
tflops = 2 * a.n**3 * iters / (end - start) / 1e12
print(f"matmul_load: {iters} x {a.n}^3 fp16 in {end - start:.2f} s = {tflops:.1f} TFLOP/s", flush=True)
