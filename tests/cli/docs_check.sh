# The documentation checks (scripts/check-docs.py): the source tree passes them, and each check
# fails on a small tree that breaks it (a dead link, a missing path, a process word in a name or a
# comment, an oversized docs/ folder, a code block that never closes).
source "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed"; exit 0; }
CHECK="$SRC/scripts/check-docs.py"

# 1. The source tree as it is.
expect_status 0 python3 "$CHECK" "$SRC"

# A small clean tree to break one way at a time.
tree() {
  rm -rf "$WORK/t" && mkdir -p "$WORK/t/docs/results" "$WORK/t/src" "$WORK/t/bench"
  printf '# t\n[method](docs/method.md), `bench/run.sh`\n' >"$WORK/t/README.md"
  printf '# m\n[back](../README.md) [r](results/a.md#x)\n' >"$WORK/t/docs/method.md"
  printf '# a\n' >"$WORK/t/docs/results/a.md"
  printf '// measured on the H200\n' >"$WORK/t/src/a.cpp"
  printf '#!/bin/sh\n' >"$WORK/t/bench/run.sh"
}
tree
expect_status 0 python3 "$CHECK" "$WORK/t"

# 2. A dead relative link, and a named path that is gone.
tree
printf '[gone](results/b.md)\n' >>"$WORK/t/docs/method.md"
expect_status 1 python3 "$CHECK" "$WORK/t"
expect_in "$WORK/out" "docs/method.md:3: link 'results/b.md' does not resolve"
tree
printf 'see `bench/old.sh`\n' >>"$WORK/t/README.md"
expect_status 1 python3 "$CHECK" "$WORK/t"
expect_in "$WORK/out" "README.md:3: path 'bench/old.sh' does not exist"

# 3. Process words in a comment and in a file name.
tree
printf '// faster since visit 12\n' >>"$WORK/t/src/a.cpp"
expect_status 1 python3 "$CHECK" "$WORK/t"
expect_in "$WORK/out" "src/a.cpp:2: 'visit' describes the development process"
tree
printf '// as session 3 found\n' >>"$WORK/t/src/a.cpp"
expect_status 1 python3 "$CHECK" "$WORK/t"
expect_in "$WORK/out" "'session 3' describes"
tree
mv "$WORK/t/bench/run.sh" "$WORK/t/bench/gpu_visit.sh"
printf '' >"$WORK/t/README.md"
expect_status 1 python3 "$CHECK" "$WORK/t"
expect_in "$WORK/out" "bench/gpu_visit.sh: the file name describes the development process"

# 4. A code block closed by a fence with text after it, which does not close it.
tree
printf '```sh\nmake\n``` then\n' >>"$WORK/t/docs/method.md"
expect_status 1 python3 "$CHECK" "$WORK/t"
expect_in "$WORK/out" "docs/method.md:5: text after a closing fence; the code block of line 3"
expect_in "$WORK/out" "docs/method.md:3: the code block opened here never closes"
tree
printf '```sh\nmake\n```\n~~~\n```\n~~~\n' >>"$WORK/t/docs/method.md"
expect_status 0 python3 "$CHECK" "$WORK/t"

# 5. docs/ grown past a few pages.
tree
for i in $(seq 1 100); do : >"$WORK/t/docs/results/r$i.json"; done
expect_status 1 python3 "$CHECK" "$WORK/t"
expect_in "$WORK/out" "docs/: 104 files and folders, expected fewer than 100"

finish
