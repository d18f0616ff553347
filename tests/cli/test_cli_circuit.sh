#!/usr/bin/env bash
# test_cli_circuit.sh — `cuzk inspect --circuit NAME [--seed S]`, the gadget catalog's fingerprints.
#
# `--circuit list` names every circuit; the SHA-256 and insertion circuits print the constraint counts
# bellperson and storage-proofs-core assert (25,840 for one block from the IV, 44,874 for a 512-bit
# message, 0 for the empty message, 22 for insert_8; the PoR paths' counts of storage-proofs-core and
# create_label's 522,269 / 532,025) and status valid; the R1CS digest does not depend
# on the seed, the witness digest does, and no --seed means seed 1. Usage errors (unknown circuit, bad
# or missing values, a file together with --circuit) exit 2 with a `cuzk:` line; inspecting a file
# still works as before.
# Usage: bash tests/cli/test_cli_circuit.sh <build-dir>
set -euo pipefail
source "$(dirname "$0")/common.sh"
cli_init "$@"

run "$CUZK" inspect --circuit list
expect 0 "list: exit 0"
for name in sha256-block sha256-2block sha256-blank sha256-node insert4 insert8 to-bits pack \
    por-base2 por-base4 por-base8 por-sub8-2 por-top8-4-2 por-sub8-8 por-top8-8-2 \
    por-base2-private por-base4-private por-base8-private create-label create-label-test; do
    expect_out "^$name " "list names $name"
done

run "$CUZK" inspect --circuit sha256-block
expect 0 "sha256-block: exit 0"
expect_out '^circuit sha256-block: ' "sha256-block: header"
expect_out 'constraints +26352 \(gadget 25840, input allocation 512\)$' "sha256-block: 25,840 gadget rows"
expect_out '^status: valid' "sha256-block: status valid"
run "$CUZK" inspect --circuit=sha256-2block --seed=5
expect 0 "sha256-2block: exit 0"
expect_out '\(gadget 44874, ' "sha256-2block: 44,874 gadget rows"
run "$CUZK" inspect --circuit sha256-blank
expect_out 'constraints +0 \(gadget 0, ' "sha256-blank: no rows"
run "$CUZK" inspect --circuit insert8 --seed 0x1f
expect 0 "insert8: exit 0"
expect_out '\(gadget 22, ' "insert8: 22 gadget rows"
expect_out 'nnz +A [0-9]+, B [0-9]+, C [0-9]+$' "insert8: nnz line"
expect_out 'density +A aux [0-9]+, B input [0-9]+, B aux [0-9]+$' "insert8: density line"
run "$CUZK" inspect --circuit pack
expect_out '^  inputs +4 ' "pack: 4 inputs"

# PoR paths: storage-proofs-core's published constraint and input counts (tests/por_circuit.rs)
for spec in por-base2:1887:3 por-base4:1164:3 por-base8:1063:3 por-sub8-2:1377:3 por-top8-4-2:1764:3 \
    por-sub8-8:1593:3 por-top8-8-2:1907:3 por-base2-private:1886:2 por-base4-private:1163:2 \
    por-base8-private:1062:2; do
    IFS=: read -r name rows inputs <<<"$spec"
    run "$CUZK" inspect --circuit "$name" --seed 7
    expect 0 "$name: exit 0"
    expect_out "constraints +$rows \\(gadget $rows, " "$name: $rows rows"
    expect_out "^  inputs +$inputs " "$name: $inputs inputs"
    expect_out '^status: valid' "$name: status valid"
done
# create_label: 522,269 rows in the PoRep layout; 532,025 in all in the upstream test layout
run "$CUZK" inspect --circuit create-label
expect 0 "create-label: exit 0"
expect_out '\(gadget 522269, ' "create-label: 522,269 gadget rows"
expect_out '^status: valid' "create-label: status valid"
run "$CUZK" inspect --circuit create-label-test
expect_out 'constraints +532025 \(gadget 522297, input allocation 9728\)$' "create-label-test: 532,025 rows"

digest() { grep -E "^  $1 " "$TMP/stdout" | awk '{print $NF}'; }
run "$CUZK" inspect --circuit insert4 --seed 1
r1=$(digest 'r1cs digest')
w1=$(digest 'witness digest')
run "$CUZK" inspect --circuit insert4
if [ "$(digest 'witness digest')" = "$w1" ]; then pass "no --seed means seed 1"; else fail "no --seed means seed 1"; fi
run "$CUZK" inspect --circuit insert4 --seed 2
if [ "$(digest 'r1cs digest')" = "$r1" ] && [ -n "$r1" ]; then
    pass "r1cs digest independent of the seed"
else
    fail "r1cs digest independent of the seed"
fi
if [ "$(digest 'witness digest')" != "$w1" ]; then pass "witness digest depends on the seed"; else fail "witness digest depends on the seed"; fi

run "$CUZK" inspect --circuit no-such-circuit
expect 2 "unknown circuit: exit 2"
expect_error "unknown circuit: message"
expect_err 'no-such-circuit' "unknown circuit: named"
run "$CUZK" inspect --circuit insert8 --seed x12
expect 2 "bad seed: exit 2"
expect_error "bad seed: message"
run "$CUZK" inspect --circuit insert8 --seed -3
expect 2 "negative seed: exit 2"
run "$CUZK" inspect --circuit
expect 2 "--circuit without a value: exit 2"
expect_error "--circuit without a value: message"
run "$CUZK" inspect --circuit insert8 "$FIX/bits/proof.json"
expect 2 "a file with --circuit: exit 2"
run "$CUZK" inspect --circuit insert8 --circuit insert4
expect 2 "--circuit twice: exit 2"
run "$CUZK" inspect --seed --circuit
expect 2 "--circuit taken as --seed's value: exit 2, no crash"
expect_err '--circuit NAME is missing' "... says so"
run "$CUZK" inspect "$FIX/bits/proof.json"
expect 0 "inspecting a file still works"
expect_out 'snarkjs Groth16 proof' "... and recognizes it"
run "$CUZK" inspect --help
expect_out '--circuit NAME' "help mentions --circuit"
cli_finish
