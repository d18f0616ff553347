#!/bin/sh
# Regenerate tests/vectors/*.txt from @noble/curves (see tests/vectors/README.md).
set -eu
cd "$(dirname "$0")/vectors"
npm ci
node gen.mjs
