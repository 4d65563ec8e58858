#!/usr/bin/env bash
# Installs the Debian packages the build needs when they are missing. Sourced or run by the
# other scripts; safe to run again.
set -euo pipefail

# python3: scripts/fuzz writes the fuzz target's service stubs with it.
packages=(libzstd-dev libprotobuf-c-dev protobuf-c-compiler libsqlite3-dev pkg-config python3)
# --tests: also PostgreSQL 15's server, of which the tests start a throwaway cluster (the
# embedded server needs none), and protoc.
# protoc (and the descriptor.proto it reads Proto/'s options from): the completeness test encodes
# and decodes every message with Google's protobuf to check ours against it.
# chromium and chromium-driver: the operator console's tests in a real browser
# (scripts/browser-test), which make their TLS certificate with openssl.
if [ "${1:-}" = "--tests" ]; then
  packages+=(postgresql-15 protobuf-compiler libprotobuf-dev chromium chromium-driver openssl)
fi
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

echo "Installing Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" = 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
elif command -v sudo >/dev/null 2>&1; then
  sudo apt-get update -qq
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "Missing Debian packages: ${missing[*]}; install them as root (apt-get install ${missing[*]})." >&2
  exit 1
fi
