# A command that never decodes on a GPU does not load cuBLAS: the binary does not depend on it (the
# CUDA engine opens it on first use, src/engine/cuda/cublas_on_demand.cpp), and a run of `--version`
# or `validate` opens no libcublas. Linked, its initialisers took about 0.3 s of every start.
source "$(dirname "$0")/lib.bash"

if ldd "$EC" 2>/dev/null | grep -q libcublas; then
  bad "$EC depends on libcublas: $(ldd "$EC" | grep libcublas)"
else
  ok
fi
for args in "--version" "validate $SRC/tests/fixtures/report/measured-int8.energy.json"; do
  # shellcheck disable=SC2086
  LD_DEBUG=libs "$EC" $args >"$WORK/out" 2>"$WORK/libs" || true
  if grep -q "libcublas" "$WORK/libs"; then
    bad "ecocompute $args opened libcublas: $(grep -m1 libcublas "$WORK/libs")"
  else
    ok
  fi
done
finish
