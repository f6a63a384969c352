"""Does the NVML energy counter integrate power, or sample part of each update period?

A short burst of fp16 matmuls is placed at phase offsets of 0-90 ms after a counter update, in
shuffled order, with the GPU idle before and after. Each trial's window runs from the update
before the burst to an update `--settle-s` after it, so both edges fall in idle time. A counter
that integrates power adds the same energy whatever the phase; one that samples a part of each
period (Yang et al., SC'24, report ~25 ms of 100 ms on A100/H100) adds the whole burst or none
of it depending on where it falls. Instant power (field 186), read by a thread at ~1 kHz, is
integrated over the same window as the reference. Needs torch and libnvidia-ml.so.1.

    python3 bench/meter/counter_phase.py --burst-ms 40 --repeats 3
"""
import argparse
import ctypes
import random
import statistics
import threading
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--burst-ms", type=float, default=40.0)
p.add_argument("--repeats", type=int, default=3)
p.add_argument("--settle-s", type=float, default=0.5)
p.add_argument("--n", type=int, default=8192)
a = p.parse_args()

nv = ctypes.CDLL("libnvidia-ml.so.1")
assert nv.nvmlInit_v2() == 0
dev = ctypes.c_void_p()
assert nv.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(dev)) == 0


class FieldValue(ctypes.Structure):  # nvmlFieldValue_t
    _fields_ = [("fieldId", ctypes.c_uint), ("scopeId", ctypes.c_uint),
                ("timestamp", ctypes.c_longlong), ("latencyUsec", ctypes.c_longlong),
                ("valueType", ctypes.c_int), ("nvmlReturn", ctypes.c_int),
                ("value", ctypes.c_ulonglong)]


def counter_mj():
    v = ctypes.c_ulonglong()
    assert nv.nvmlDeviceGetTotalEnergyConsumption(dev, ctypes.byref(v)) == 0
    return v.value


def instant_w():
    f = FieldValue(186, 0, 0, 0, 0, 0, 0)
    nv.nvmlDeviceGetFieldValues(dev, 1, ctypes.byref(f))
    return (f.value & 0xFFFFFFFF) / 1000.0 if f.nvmlReturn == 0 else None


samples = []  # (t, W)
stop = False


def sample_instant():
    while not stop:
        w = instant_w()
        if w is not None:
            samples.append((time.monotonic(), w))
        time.sleep(0.001)


def instant_j(t0, t1):
    """Trapezoid of the instant samples inside [t0, t1] (the ~1 ms left at each edge is idle)."""
    pts = [s for s in samples if t0 <= s[0] <= t1]
    return sum(0.5 * (pts[i][1] + pts[i - 1][1]) * (pts[i][0] - pts[i - 1][0])
               for i in range(1, len(pts)))


def wait_update():
    """Reads the counter until it changes; returns (time seen, value)."""
    first = counter_mj()
    while True:
        v = counter_mj()
        if v != first:
            return time.monotonic(), v


x = torch.randn(a.n, a.n, device="cuda", dtype=torch.float16)
y = torch.randn(a.n, a.n, device="cuda", dtype=torch.float16)
for _ in range(10):
    z = x @ y
torch.cuda.synchronize()
t = time.monotonic()
for _ in range(20):
    z = x @ y
torch.cuda.synchronize()
per_ms = (time.monotonic() - t) * 1000 / 20
n_burst = max(1, round(a.burst_ms / per_ms))
print(f"matmul {per_ms:.2f} ms; burst = {n_burst} matmuls")

threading.Thread(target=sample_instant, daemon=True).start()
time.sleep(a.settle_s * 2)
t0, e0 = wait_update()
time.sleep(2.0)
t1, e1 = wait_update()
idle_w = (e1 - e0) / 1000 / (t1 - t0)
print(f"idle {idle_w:.1f} W (counter), {instant_j(t0, t1) / (t1 - t0):.1f} W (instant)")

phases = [ph for ph in range(0, 100, 10) for _ in range(a.repeats)]
random.Random(1).shuffle(phases)
rows = []
print("phase_ms burst_ms counter_J instant_J counter-instant_J counter_above_idle_J")
for ph in phases:
    time.sleep(a.settle_s)
    tu, eu = wait_update()
    while time.monotonic() < tu + ph / 1000:
        pass
    tb = time.monotonic()
    for _ in range(n_burst):
        z = x @ y
    torch.cuda.synchronize()
    te = time.monotonic()
    time.sleep(a.settle_s)
    tv, ev = wait_update()
    c = (ev - eu) / 1000
    i = instant_j(tu, tv)
    rows.append((ph, c - i, c - idle_w * (tv - tu)))
    print(f"{ph:8d} {1000 * (te - tb):8.1f} {c:9.2f} {i:9.2f} {c - i:+9.2f} {c - idle_w * (tv - tu):9.2f}")
stop = True

print("\nby phase: counter - instant (J), mean over repeats; counter above idle (J)")
for ph in range(0, 100, 10):
    d = [r[1] for r in rows if r[0] == ph]
    ab = [r[2] for r in rows if r[0] == ph]
    print(f"{ph:3d} ms  {statistics.mean(d):+7.2f}  {statistics.mean(ab):7.2f}")
spread = [statistics.mean([r[1] for r in rows if r[0] == ph]) for ph in range(0, 100, 10)]
print(f"spread of counter - instant across phases: {max(spread) - min(spread):.2f} J")
