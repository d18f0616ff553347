#!/usr/bin/env bash
# The main job: installs what cuzk needs, builds it (Release, build/), proves the committed circom
# fixture tests/fixtures/mulchain (1000 constraints, snarkjs .zkey + .wtns) with `cuzk prove`,
# checks the proof with `cuzk verify`, then runs a small batch through the proving engine on the
# PoRep-shaped workload (4 proofs of 3 partitions, 2 in flight, every proof verified before
# delivery) with a TIMELINE, and prints the timeline report; the SVG waterfall is written too.
# Usage: bash scripts/run.sh   (outputs in build/run/, replaced on every run)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh release

fixture=tests/fixtures/mulchain
out=build/run
mkdir -p "$out"
echo "== cuzk prove $fixture =="
build/cuzk prove "$fixture/circuit.zkey" "$fixture/witness.wtns" "$out/proof.json" "$out/public.json" --verbose
echo "== cuzk verify =="
build/cuzk verify "$fixture/verification_key.json" "$out/public.json" "$out/proof.json" --verbose
echo "proof:  $PWD/$out/proof.json"
echo "public: $PWD/$out/public.json"
echo "also accepted by: scripts/fixtures/node_modules/.bin/snarkjs groth16 verify" \
    "$fixture/verification_key.json $out/public.json $out/proof.json"

echo "== cuzk-bench batch: the engine on the PoRep-shaped workload (2^-15 scale) =="
build/cuzk-bench batch -c 4 -j 2 --workload porep --constraints 12 --partitions 3 --timeline "$out/timeline.jsonl"
echo "== cuzk-bench timeline report =="
build/cuzk-bench timeline report "$out/timeline.jsonl" --svg "$out/timeline.svg"
echo "timeline: $PWD/$out/timeline.jsonl"
echo "waterfall: $PWD/$out/timeline.svg"
