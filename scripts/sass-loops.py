#!/usr/bin/env python3
"""The SASS instruction mix of a CUDA source's kernels and of their loops, without a GPU.

Compiles SOURCE to a cubin with the flags the build directory's compile_commands.json gives it,
disassembles it with cuobjdump and prints, for each kernel whose demangled name contains one of
the --kernel strings: its registers, stack frame and spills (ptxas), its instruction count, and
every loop (a backward branch) of at least --min-loop instructions with its opcode counts, the
most frequent first. A loop's count is static: the instructions between the branch target and
the branch, which is what one iteration issues where the body has no branches of its own (the
GEMV unit loops: the warp-divergent fallback of a shuffle sits after the loop).

    scripts/sass-loops.py src/engine/cuda/gemv_nf4.cu \\
        --kernel 'gemv_whole_kernel<ec::engine::cuda::nf4::Nf4Policy, 4, true, true, false>'

cuobjdump: --cuobjdump, else $CUOBJDUMP, else the CUDA toolkit's (/usr/local/cuda/bin), else the
one --fetch unpacked from Debian's nvidia-cuda-toolkit package (non-free, CUDA 11.8) into
~/.cache/ecocompute/cuda-disasm (unpacked, not installed: it would put a second nvcc on PATH).
That cuobjdump predates the cubin header of CUDA 12.8 and newer (ELF ABI version 8); the script
then rewrites the header's architecture fields into the old encoding in a temporary copy. The
instructions themselves are the same encoding for the architectures both know (sm_90 and older).
"""
import argparse
import collections
import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile

CACHE = os.path.expanduser("~/.cache/ecocompute/cuda-disasm")
DEBIAN_PACKAGE = "nvidia-cuda-toolkit"


def fail(message):
    print(f"sass-loops: {message}", file=sys.stderr)
    sys.exit(2)


def find_cuobjdump(explicit, fetch):
    for candidate in (explicit, os.environ.get("CUOBJDUMP"), shutil.which("cuobjdump"),
                      "/usr/local/cuda/bin/cuobjdump", os.path.join(CACHE, "usr/bin/cuobjdump")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    if not fetch:
        fail("no cuobjdump: pass --cuobjdump PATH, or --fetch to unpack Debian's "
             f"{DEBIAN_PACKAGE} into {CACHE}")
    os.makedirs(CACHE, exist_ok=True)
    got = subprocess.run(["apt-get", "download", DEBIAN_PACKAGE], cwd=CACHE, capture_output=True,
                         text=True)
    debs = [f for f in os.listdir(CACHE) if f.startswith(DEBIAN_PACKAGE) and f.endswith(".deb")]
    if got.returncode != 0 or not debs:
        fail(f"apt-get download {DEBIAN_PACKAGE} failed ({got.stderr.strip()}); the package is in "
             "Debian's non-free component: add 'non-free' to the Components of "
             "/etc/apt/sources.list.d/debian.sources and run apt-get update")
    subprocess.run(["dpkg", "-x", os.path.join(CACHE, debs[0]), CACHE], check=True)
    os.remove(os.path.join(CACHE, debs[0]))
    return os.path.join(CACHE, "usr/bin/cuobjdump")


def compile_flags(build, source):
    path = os.path.join(build, "compile_commands.json")
    try:
        with open(path) as f:
            entries = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: cannot read the compile commands ({e}); configure the build first")
    want = os.path.realpath(source)
    for entry in entries:
        if os.path.realpath(os.path.join(entry["directory"], entry["file"])) == want:
            words = shlex.split(entry["command"])
            return entry["directory"], words
    fail(f"{path}: no compile command for {source}")


def to_cubin_command(words, cubin):
    """The build's nvcc command, made to write one sm_XX cubin instead of an object."""
    out, skip, arch = [], False, None
    for w in words:
        if skip:
            skip = False
            continue
        if w in ("-o", "-MF", "-MT"):
            skip = True
            continue
        if w in ("-c", "-MD") or w.startswith("-forward-unknown"):
            continue
        m = re.match(r"--generate-code=arch=compute_(\d+),code=\[?[^\]]*sm_(\d+)", w)
        if m:
            arch = arch or m.group(2)
            continue
        out.append(w)
    if arch is None:
        fail("the compile command names no sm_ architecture")
    return out + [f"-arch=sm_{arch}", "-cubin", "-Xptxas", "-v", "-o", cubin]


def readable_copy(cubin):
    """A copy of the cubin whose ELF header an older cuobjdump accepts (see the docstring)."""
    data = bytearray(open(cubin, "rb").read())
    if data[7] != 0x41:  # the old ABI already
        return cubin
    flags = struct.unpack_from("<I", data, 0x30)[0]
    sm = (flags >> 8) & 0xFF
    data[7], data[8] = 0x33, 7
    struct.pack_into("<I", data, 0x30, sm | 0x500 | (sm << 16))
    patched = cubin + ".old-abi"
    with open(patched, "wb") as f:
        f.write(data)
    return patched


def ptxas_usage(stderr):
    usage, current = {}, None
    for line in stderr.splitlines():
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            current = m.group(1)
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",
                      line)
        if m:
            usage.setdefault(current, {}).update(stack=int(m.group(1)), spill=int(m.group(2)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            usage.setdefault(current, {})["registers"] = int(m.group(1))
    return usage


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    return out.stdout.splitlines() if out.returncode == 0 else names


def branch_target(text, labels):
    """The address a BRA instruction jumps to (an address, or a label's), else None."""
    m = re.search(r"\bBRA\b.*?(?:0x([0-9a-f]+)|`\((\.L_x_\d+)\))", text)
    if not m:
        return None
    return int(m.group(1), 16) if m.group(1) else labels.get(m.group(2))


def opcode(text):
    text = re.sub(r"^@!?U?P\w+\s+", "", text)  # the predicate
    return text.split()[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", help="the .cu file, as compile_commands.json names it")
    ap.add_argument("--build", default="build/static", help="build directory (compile commands)")
    ap.add_argument("--kernel", action="append", default=[],
                    help="substring of the demangled kernel name (repeatable; default: all)")
    ap.add_argument("--min-loop", type=int, default=100, help="smallest loop listed, instructions")
    ap.add_argument("--cuobjdump", help="the cuobjdump to use")
    ap.add_argument("--fetch", action="store_true",
                    help=f"unpack Debian's {DEBIAN_PACKAGE} for its cuobjdump if none is found")
    args = ap.parse_args()

    cuobjdump = find_cuobjdump(args.cuobjdump, args.fetch)
    directory, words = compile_flags(args.build, args.source)
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "kernels.cubin")
        built = subprocess.run(to_cubin_command(words, cubin), cwd=directory, capture_output=True,
                               text=True)
        if built.returncode != 0:
            fail(f"nvcc failed on {args.source}:\n{built.stderr}")
        usage = ptxas_usage(built.stderr)
        dump = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True)
        if dump.returncode != 0:
            dump = subprocess.run([cuobjdump, "-sass", readable_copy(cubin)], capture_output=True,
                                  text=True)
        if dump.returncode != 0:
            fail(f"{cuobjdump} cannot read the cubin: {dump.stderr.strip()}")

    parts = re.split(r"\n\s*Function : ", dump.stdout)[1:]
    mangled = [p.split("\n", 1)[0].strip() for p in parts]
    shown = 0
    for name, readable, body in zip(mangled, demangle(mangled), parts):
        if args.kernel and not any(k in readable for k in args.kernel):
            continue
        shown += 1
        code, labels, pending = [], {}, []
        for line in body.split("\n"):
            m = re.match(r"\s*(\.L_x_\d+):", line)  # newer cuobjdumps branch to labels
            if m:
                pending.append(m.group(1))
                continue
            m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
            if m:
                at = int(m.group(1), 16)
                labels.update((label, at) for label in pending)
                pending = []
                code.append((at, m.group(2)))
        u = usage.get(name, {})
        print(f"{readable}\n  {len(code)} instructions, {u.get('registers', '?')} registers, "
              f"{u.get('stack', '?')} bytes stack frame, {u.get('spill', '?')} bytes spilled")
        for at, text in code:
            start = branch_target(text, labels)
            if start is None or start >= at:
                continue
            loop = [opcode(t) for a, t in code if start <= a <= at]
            if len(loop) < args.min_loop:
                continue
            mix = collections.Counter(loop).most_common()
            print(f"  loop {start:#06x}-{at:#06x}: {len(loop)} instructions: " +
                  " ".join(f"{op} {n}" for op, n in mix))
    if shown == 0:
        fail(f"no kernel of {args.source} matches {args.kernel}")


if __name__ == "__main__":
    main()
