"""The marker protocol's reference client (docs/marks.md): mark warmup and measured iterations
for `ecocompute measure --marks -- python3 your_script.py`. Standard library only.

    marks = Marks()                      # reads $ECOCOMPUTE_MARKS_FD; inert without it
    marks.info("model", "Qwen/Qwen2-0.5B")
    marks.label("fp16")
    marks.warmup(run_once)               # run_once() generates, synchronises, returns its tokens
    for _ in range(10):
        marks.iteration(run_once)        # as many generations as the window rule needs

`run_once(split)` may call `split()` once its first token exists (device synchronised): the
meter then cuts the generation into a prefill and a decode window at that instant.
"""
import os
import socket
import time

PROTOCOL_VERSION = 1


class MarksError(RuntimeError):
    """The meter refused a mark; the message says why (the measurement has failed)."""


class Marks:
    def __init__(self, fd=None):
        fd = os.environ.get("ECOCOMPUTE_MARKS_FD") if fd is None else fd
        self.active = fd is not None
        self.min_window_s = 0.0  # the window rule's least iteration; 0 without a meter
        self.measures_energy = False
        if self.active:
            self._sock = socket.socket(fileno=int(fd))
            self._replies = self._sock.makefile("r", encoding="utf-8", newline="\n")
            reply = self._send(f"hello {PROTOCOL_VERSION}")
            self.min_window_s = float(reply.get("min_window_s", 0.0))
            self.measures_energy = reply.get("measures_energy") == "1"

    def _send(self, line):
        """Sends one mark and waits for the meter's answer: a dict of its key=value words."""
        if not self.active:
            return {}
        self._sock.sendall((line + "\n").encode("utf-8"))
        reply = self._replies.readline().rstrip("\n")
        if not reply:
            raise MarksError(f"the meter closed the channel after '{line}'")
        if reply.startswith("error"):
            raise MarksError(reply[len("error "):])
        return dict(w.split("=", 1) for w in reply.split()[1:] if "=" in w)

    def info(self, key, value):
        """What the report should say: model, params_b, prompt, prompt_tokens, device,
        compute_dtype, quantization_backend, version.NAME, ... (docs/marks.md)."""
        self._send(f"info {key} {value}")

    def label(self, name):
        """The side the next iterations belong to (ecocompute measure --label / --fp16-label)."""
        self._send(f"label {name}")

    def warmup(self, generate):
        """One unmeasured generation."""
        self._send("begin warmup")
        tokens = generate(lambda: None)
        self._send(f"end {tokens}")

    def iteration(self, generate, windows=("prefill", "decode"), opened=None, closing=None):
        """One measured iteration: generations until the window lasts the rule's least length.
        `windows`: the phase names of a generation, before and after its split (one name: the
        generation is not split and split() does nothing). `opened()` runs once the window is
        open, `closing()` after the last generation, before the end mark. Returns the meter's
        answer (seconds, energy_j when measured) with tokens and generations."""
        first_window = windows[0]
        self._send(f"begin {first_window}")
        if opened:
            opened()
        started = time.monotonic()
        in_edges = 0.0  # time spent answering shared edges: no window counts it
        tokens = generations = 0
        split_seen = False

        def split():
            nonlocal in_edges, split_seen
            if len(windows) < 2:
                return
            t = time.monotonic()
            self._send(f"next {windows[1]}")
            in_edges += time.monotonic() - t
            split_seen = True

        while True:
            if generations > 0 and split_seen:
                t = time.monotonic()
                self._send(f"next {first_window}")
                in_edges += time.monotonic() - t
            tokens += generate(split)
            generations += 1
            # 2 % above the rule: the meter's window edges lie just inside this clock's.
            if time.monotonic() - started - in_edges >= self.min_window_s * 1.02:
                break
        if closing:
            closing()
        reply = self._send(f"end {tokens} {generations}")
        reply.update(tokens=tokens, generations=generations)
        return reply
