# shellcheck shell=bash
# How a device script hands back its outputs. The GPU machine returns only a few files from $OUT,
# and a script that writes a log per stage, a report per process or a table per tune loses the
# rest. Sourced once OUT is set: `return_archive NAME` points OUT at a fresh work folder (WORK,
# default /tmp/ec_NAME), and when the script exits, however it exits, the folder goes back as
# the one archive $OUT/NAME.tgz, with its summary.md beside it to read without unpacking.
return_archive() {
  local name=$1
  RETURN_DIR=$OUT
  OUT=${WORK:-/tmp/ec_$name}
  # Emptied first: a stale tuned.json or report from an earlier run would be taken for this run's.
  # Only a folder these scripts made (it holds .ec_work) or an empty one: WORK=$HOME must not be
  # wiped.
  if [ -d "$OUT" ] && [ -n "$(ls -A "$OUT")" ] && [ ! -f "$OUT/.ec_work" ]; then
    echo "$name: WORK=$OUT holds files these scripts did not write; give a new or empty folder" >&2
    exit 2
  fi
  rm -rf "$OUT"
  mkdir -p "$OUT" "$RETURN_DIR"
  touch "$OUT/.ec_work"
  # shellcheck disable=SC2064  # the name is fixed now, the folders at exit are these
  trap "return_archive_pack '$name'" EXIT
}

return_archive_pack() {
  tar -czf "$RETURN_DIR/$1.tgz" -C "$OUT" . &&
    echo "outputs: $RETURN_DIR/$1.tgz ($(du -h "$RETURN_DIR/$1.tgz" | cut -f1))"
  if [ -f "$OUT/summary.md" ]; then cp "$OUT/summary.md" "$RETURN_DIR/"; fi
}
