#!/usr/bin/env python3
"""scripts/sass-loops.py against a stand-in nvcc and cuobjdump (no CUDA needed): the build's
compile command made to write a cubin, the cubin header rewritten for an older cuobjdump, the
kernels filtered by their demangled names, ptxas's register and spill figures, and the loops found
from backward branches to an address or to a label, with their opcode counts."""

import json
import os
import stat
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "sass-loops.py")

# Writes a cubin header (the ABI of CUDA 12.8+, sm_90) where -o says, prints ptxas -v lines to
# stderr, and appends its argv to $CALLS.
FAKE_NVCC = r'''#!/usr/bin/env python3
import json, os, struct, sys
args = sys.argv[1:]
with open(os.environ["CALLS"], "a") as f:
    f.write(json.dumps(args) + "\n")
header = bytearray(64)
header[0:4] = b"\x7fELF"
header[7], header[8] = 0x41, 8
struct.pack_into("<I", header, 0x30, 0x6005A04)
with open(args[args.index("-o") + 1], "wb") as f:
    f.write(header)
sys.stderr.write(
    "ptxas info    : Compiling entry function '_Z4loopPf' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z4loopPf\n"
    "    16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
    "ptxas info    : Used 40 registers, used 0 barriers\n"
    "ptxas info    : Compiling entry function '_Z5otherv' for 'sm_90'\n"
    "ptxas info    : Used 8 registers\n")
'''

# Refuses a header of the new ABI (as CUDA 11.8's cuobjdump does) and records the header it read;
# lists _Z4loopPf (a loop by address and one by label) and _Z5otherv (no loop).
FAKE_CUOBJDUMP = r'''#!/usr/bin/env python3
import os, struct, sys
data = open(sys.argv[-1], "rb").read()
with open(os.environ["HEADERS"], "a") as f:
    f.write("%d %d %#x\n" % (data[7], data[8], struct.unpack_from("<I", data, 0x30)[0]))
if data[7] == 0x41:
    sys.stderr.write("cuobjdump fatal   : Support for 'sm_4' has been removed.\n")
    sys.exit(1)
print("""
	code for sm_90
		Function : _Z4loopPf
	.headerflags    @"EF_CUDA_SM90 EF_CUDA_PTX_SM(EF_CUDA_SM90)"
        /*0000*/                   MOV R1, c[0x0][0x28] ;        /* 0x000fe40000000f00 */
        /*0010*/                   LDG.E R2, [R4.64] ;           /* 0x000ea4000c1e1900 */
        /*0020*/                   FADD R3, R2, R2 ;             /* 0x004fca0000000000 */
        /*0030*/                   FADD R3, R3, R2 ;             /* 0x004fca0000000000 */
        /*0040*/              @P0  BRA 0x10 ;                    /* 0x000fea000383ffff */
.L_x_3:
        /*0050*/                   IMAD.MOV.U32 R5, RZ, RZ, R3 ;  /* 0x000fe200078e0003 */
        /*0060*/              @!P1 BRA `(.L_x_3) ;               /* 0x000fea000383ffff */
        /*0070*/                   EXIT ;                        /* 0x000fea0003800000 */

		Function : _Z5otherv
	.headerflags    @"EF_CUDA_SM90 EF_CUDA_PTX_SM(EF_CUDA_SM90)"
        /*0000*/                   EXIT ;                        /* 0x000fea0003800000 */
""")
'''


def executable(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


class SassLoops(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.nvcc = os.path.join(d, "nvcc")
        self.cuobjdump = os.path.join(d, "cuobjdump")
        executable(self.nvcc, FAKE_NVCC)
        executable(self.cuobjdump, FAKE_CUOBJDUMP)
        self.source = os.path.join(d, "k.cu")
        open(self.source, "w").close()
        self.build = os.path.join(d, "build")
        os.mkdir(self.build)
        command = (f"{self.nvcc} -forward-unknown-to-host-compiler -DX=1 -I/src -O3 "
                   "--generate-code=arch=compute_90,code=[compute_90,sm_90] -std=c++20 -x cu "
                   f"-MD -MT k.o -MF k.o.d -c {self.source} -o k.o")
        with open(os.path.join(self.build, "compile_commands.json"), "w") as f:
            json.dump([{"directory": self.build, "command": command, "file": self.source}], f)
        self.env = dict(os.environ, CALLS=os.path.join(d, "calls"),
                        HEADERS=os.path.join(d, "headers"))

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, *extra):
        return subprocess.run([sys.executable, SCRIPT, self.source, "--build", self.build,
                               "--cuobjdump", self.cuobjdump, *extra], env=self.env,
                              capture_output=True, text=True)

    def test_compiles_as_the_build_does_and_lists_the_loops(self):
        done = self.run_script("--kernel", "loop(float*)", "--min-loop", "2")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(self.env["CALLS"]) as f:
            argv = json.loads(f.readline())
        # The build's flags, less the object, the dependency file and the fatbin, plus one cubin.
        for kept in ("-DX=1", "-I/src", "-O3", "-std=c++20", "-arch=sm_90", "-cubin"):
            self.assertIn(kept, argv)
        for dropped in ("-c", "-MD", "-MF", "k.o", "-forward-unknown-to-host-compiler"):
            self.assertNotIn(dropped, argv)
        self.assertFalse(any(a.startswith("--generate-code") for a in argv))
        lines = done.stdout.splitlines()
        self.assertEqual(lines[0], "loop(float*)")
        self.assertEqual(lines[1], "  8 instructions, 40 registers, 16 bytes stack frame, "
                                   "8 bytes spilled")
        self.assertEqual(lines[2], "  loop 0x0010-0x0040: 4 instructions: FADD 2 LDG.E 1 BRA 1")
        self.assertEqual(lines[3], "  loop 0x0050-0x0060: 2 instructions: IMAD.MOV.U32 1 BRA 1")
        self.assertEqual(len(lines), 4)  # other() is filtered out

    def test_rewrites_the_new_cubin_header_for_an_older_cuobjdump(self):
        done = self.run_script("--kernel", "loop")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(self.env["HEADERS"]) as f:
            headers = f.read().splitlines()
        # Refused as built, then read with the old ABI's OS/ABI, version and sm_90 flags.
        self.assertEqual(headers, ["65 8 0x6005a04", "51 7 0x5a055a"])

    def test_min_loop_and_unmatched_kernels(self):
        done = self.run_script("--kernel", "loop", "--min-loop", "3")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(sum("loop 0x" in line for line in done.stdout.splitlines()), 1)
        done = self.run_script("--kernel", "missing")
        self.assertEqual(done.returncode, 2)
        self.assertIn("no kernel", done.stderr)

    def test_missing_compile_command_names_the_file(self):
        os.remove(os.path.join(self.build, "compile_commands.json"))
        done = self.run_script()
        self.assertEqual(done.returncode, 2)
        self.assertIn("compile_commands.json", done.stderr)


if __name__ == "__main__":
    unittest.main()
