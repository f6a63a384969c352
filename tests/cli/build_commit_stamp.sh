# The build's commit stamp (cmake/EcBuildCommit.cmake, run at every build): the source tree's commit,
# "-dirty" while tracked files differ from it, "unknown" outside git, and the header rewritten only
# when that changes. (Taken at configure time instead, it went stale on rebuilds: reports named a
# commit their binary was not built from.)
source "$(dirname "$0")/lib.bash"

stamp() {  # stamp TREE HEADER: runs the script as the build does
  cmake "-DSRC=$1" "-DOUT=$2" -P "$SRC/cmake/EcBuildCommit.cmake"
}
header="$WORK/ec_build_commit.h"
repo="$WORK/repo"
mkdir -p "$repo"
git -C "$repo" init -q
git -C "$repo" config user.email test@example.invalid
git -C "$repo" config user.name test
echo one >"$repo/tracked.txt"
git -C "$repo" add tracked.txt
git -C "$repo" commit -qm one
first=$(git -C "$repo" rev-parse --short=12 HEAD)

# 1. A clean tree: its commit, exactly.
stamp "$repo" "$header"
expect_in "$header" "#define EC_BUILD_COMMIT \"$first\""

# 2. Unchanged: the header is not rewritten (nothing recompiles).
cp -p "$header" "$WORK/before.h"
sleep 1.1
stamp "$repo" "$header"
if [ "$header" -nt "$WORK/before.h" ]; then bad "an unchanged stamp rewrote the header"; else ok; fi

# 3. An untracked file does not make the tree dirty; a change to a tracked file does.
echo scratch >"$repo/untracked.txt"
stamp "$repo" "$header"
expect_in "$header" "\"$first\""
echo two >"$repo/tracked.txt"
stamp "$repo" "$header"
expect_in "$header" "\"$first-dirty\""

# 4. A new commit: its hash, clean again.
git -C "$repo" commit -qam two
second=$(git -C "$repo" rev-parse --short=12 HEAD)
[ "$second" != "$first" ] && ok || bad "the second commit has the first's hash"
stamp "$repo" "$header"
expect_in "$header" "#define EC_BUILD_COMMIT \"$second\""

# 5. Not a git checkout (a source tarball): "unknown".
mkdir -p "$WORK/plain"
stamp "$WORK/plain" "$header"
expect_in "$header" "#define EC_BUILD_COMMIT \"unknown\""

finish
