#!/usr/bin/env bash
# Installs what cuzk needs to build and test on Debian 12 (run as root, or with sudo available).
# Idempotent: what is already present is left alone. Node.js and npm are needed only by the
# tests that run snarkjs as an independent verifier (scripts/fixtures, `npm ci`) and by the daemon
# tests (tests/daemon: @grpc/grpc-js, `npm ci`). nghttp2 and protobuf-c (static libraries and the
# protoc-c generator) build cuzkd. clang and its runtime
# libraries (libFuzzer, the sanitizers) build the fuzz targets that scripts/fuzz.sh runs.
set -euo pipefail
pkgs=(build-essential cmake libgmp-dev ca-certificates clang libclang-rt-14-dev libnghttp2-dev libprotobuf-c-dev
      protobuf-c-compiler)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
# snarkjs for the cross-checks, pinned by scripts/fixtures/package-lock.json.
if [ ! -x scripts/fixtures/node_modules/.bin/snarkjs ]; then
  (cd scripts/fixtures && npm ci --no-audit --no-fund --loglevel=error)
fi
# the gRPC client of the daemon tests, pinned by tests/daemon/package-lock.json.
if [ ! -d tests/daemon/node_modules/@grpc/grpc-js ]; then
  (cd tests/daemon && npm ci --no-audit --no-fund --loglevel=error)
fi
