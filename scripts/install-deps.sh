#!/usr/bin/env bash
# Installs what ecocompute needs, from Debian's packages only; safe to run again.
#   install-deps.sh run     what building and running `ecocompute` needs (`make run`)
#   install-deps.sh test    that plus what the tests, the format check and the sanitizer build need
#                           (`make test`, CI): GoogleTest, clang, Chromium, Slurm, Node.js, ...
#   install-deps.sh container   what building and checking the container image needs (podman, runc,
#                               debootstrap: `make container`)
#   install-deps.sh --print PROFILE   list the packages of PROFILE that are missing, install nothing
set -euo pipefail

# The compiler, the build tools and the libraries the binary links.
run_packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  nlohmann-json3-dev libcli11-dev libfmt-dev libvalijson-dev
  libpcre2-dev libutf8proc-dev libssl-dev libsqlite3-dev libgsl-dev libcpp-httplib-dev
  emscripten  # the site's report grader: C++ compiled to WebAssembly
)
# Only the tests and checks: unit tests and benches, formatting and the clang sanitizer build, the
# site's browser test (Chromium, a font), the Slurm sweep test, and the CLI tests' JSON and SQL tools.
test_packages=(
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-format clang libclang-rt-14-dev
  chromium fonts-dejavu-core
  slurm-wlm munge jq sqlite3 python3
)
container_packages=(podman runc debootstrap git ca-certificates)

print_only=0
if [ "${1:-}" = "--print" ]; then
  print_only=1
  shift
fi
profile="${1:-test}"
case "$profile" in
  run) packages=("${run_packages[@]}") ;;
  test) packages=("${run_packages[@]}" "${test_packages[@]}") ;;
  container) packages=("${container_packages[@]}") ;;
  *)
    echo "install-deps: unknown profile '$profile': expected 'run', 'test' or 'container'" >&2
    exit 2
    ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done

# The test fixtures come from npm. Node.js may come from another Debian-format repository that
# bundles npm: ask for commands, not packages.
if [ "$profile" = test ]; then
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
fi

if [ "$print_only" -eq 1 ]; then
  [ ${#missing[@]} -eq 0 ] || printf '%s\n' "${missing[@]}"
  exit 0
fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
