#!/usr/bin/env bash
# test_cli_inspect.sh — `cuzk inspect` on every kind of fixture file and on corrupted ones.
#
# Each committed file (circuit.zkey, circuit.r1cs, witness.wtns, verification_key.json, proof.json,
# public.json) is recognized by content — the checks copy it to a name without its extension — with
# the right kind, counts that match the fixture table, and "status: valid" (exit 0). Corrupted
# copies (cut short, a point off the curve, a value above the modulus, a zkey point that only --deep
# decodes) give "status: invalid" and exit 1; unrecognized content exits 1; a missing file, a
# directory or bad usage exits 2. An .r1cs written here with two wires in no constraint: inspect counts
# them, `cuzk setup` warns and makes a .zkey but refuses a .params (the fixtures: none, no warning).
# (.params, .vk and proof bytes: test_cli_params.sh.)
# Usage: bash tests/cli/test_cli_inspect.sh <build-dir>
set -euo pipefail
source "$(dirname "$0")/common.sh"
cli_init "$@"

# inspect_as FILE KIND STATUS DESCRIPTION [OPTIONS...]: inspect a copy of FILE named "blob".
inspect_as() {
    cp "$1" "$TMP/blob"
    run "$CUZK" inspect "$TMP/blob" "${@:5}"
    expect "$3" "$4"
    expect_out "^$TMP/blob: $2" "$4: recognized as $2"
    if [ "$3" -eq 0 ]; then
        expect_out '^status: valid' "$4: status valid"
    else
        expect_out '^status: invalid: ' "$4: status invalid"
        expect_error "$4: reason on stderr"
    fi
}

check_fixture() {
    local f=$1 d=$FIX/$1
    inspect_as "$d/circuit.zkey" 'snarkjs Groth16 proving key' 0 "$f: zkey"
    inspect_as "$d/circuit.zkey" 'snarkjs Groth16 proving key' 0 "$f: zkey --deep" --deep
    inspect_as "$d/circuit.r1cs" 'circom constraint system' 0 "$f: r1cs"
    inspect_as "$d/witness.wtns" 'circom witness' 0 "$f: wtns"
    inspect_as "$d/verification_key.json" 'snarkjs verification key' 0 "$f: verification_key.json"
    inspect_as "$d/proof.json" 'snarkjs Groth16 proof' 0 "$f: proof.json"
    inspect_as "$d/public.json" 'snarkjs public signals' 0 "$f: public.json"

    local n
    n=$(stat -c %s "$d/circuit.zkey")
    truncate_copy "$d/circuit.zkey" "$TMP/cut" $((n - 1))
    inspect_as "$TMP/cut" 'snarkjs Groth16 proving key' 1 "$f: zkey cut short"
    truncate_copy "$d/circuit.r1cs" "$TMP/cut" $(($(stat -c %s "$d/circuit.r1cs") / 2))
    inspect_as "$TMP/cut" 'circom constraint system' 1 "$f: r1cs cut short"
    truncate_copy "$d/witness.wtns" "$TMP/cut" $(($(stat -c %s "$d/witness.wtns") - 5))
    inspect_as "$TMP/cut" 'circom witness' 1 "$f: wtns cut short"
    off_curve "$d/proof.json" "$TMP/bad"
    inspect_as "$TMP/bad" 'snarkjs Groth16 proof' 1 "$f: proof.json with a point off the curve"
    expect_out 'pi_a' "$f: ... the bad member is named"
    sed '0,/"[0-9]*"/s//"52435875175126190479447740508185965837690552500527637822603658699938581184513"/' \
        "$d/public.json" >"$TMP/bad"
    inspect_as "$TMP/bad" 'snarkjs public signals' 1 "$f: public.json with a value equal to r"
    sed 's/"bls12381"/"bn128"/' "$d/verification_key.json" >"$TMP/bad"
    inspect_as "$TMP/bad" 'snarkjs verification key' 1 "$f: verification_key.json of another curve"

    cp "$d/circuit.zkey" "$TMP/badpoint"
    flip_byte "$TMP/badpoint" $(($(section_offset "$TMP/badpoint" 5) + 3))
    inspect_as "$TMP/badpoint" 'snarkjs Groth16 proving key' 0 "$f: zkey with a bad A point, default checks"
    inspect_as "$TMP/badpoint" 'snarkjs Groth16 proving key' 1 "$f: zkey with a bad A point, --deep" --deep
    expect_out 'section 5' "$f: ... names the section"
}

check_counts() {
    run "$CUZK" inspect "$FIX/mixer/circuit.r1cs"
    expect_out 'constraints +387$' "mixer r1cs: 387 constraints"
    expect_out 'wires +393 ' "mixer r1cs: 393 wires"
    expect_out 'public +3 outputs, 4 inputs$' "mixer r1cs: 3 outputs, 4 inputs"
    run "$CUZK" inspect "$FIX/mulchain/circuit.zkey"
    expect_out 'domain +1024 ' "mulchain zkey: domain 1024"
    expect_out 'public signals +1$' "mulchain zkey: 1 public signal"
    run "$CUZK" inspect "$FIX/bits/witness.wtns"
    expect_out 'values +12 ' "bits wtns: 12 values"
    run "$CUZK" inspect "$FIX/mixer/public.json"
    expect_out 'values +7$' "mixer public.json: 7 values"
}

# le32 N...: each N as 4 little-endian bytes, in the printf escapes make_r1cs feeds to printf
le32() { for v; do printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24 & 255)); done; }

# An .r1cs written here byte by byte: 5 wires (0, output 1, private input 2, internal 3 and 4), one
# constraint w1 * w1 = w3 + 0 * w4, no label section. Wires 2 and 4 are in no constraint (4 only with a
# zero coefficient), so a prover may set them freely.
make_r1cs() {
    local r='\x01\x00\x00\x00\xff\xff\xff\xff\xfe\x5b\xfe\xff\x02\xa4\xbd\x53\x05\xd8\xa1\x09\x08\xd8\x39\x33\x48\x7d\x9d\x29\x53\xa7\xed\x73'
    local one="$(le32 1 0 0 0 0 0 0 0)" zero="$(le32 0 0 0 0 0 0 0 0)"
    printf "r1cs$(le32 1 2)" >"$1"
    printf "$(le32 1 64 0 32)$r$(le32 5 1 0 1 5 0 1)" >>"$1"
    printf "$(le32 2 156 0)$(le32 1 1)$one$(le32 1 1)$one$(le32 2 3)$one$(le32 4)$zero" >>"$1"
}

check_unused() {
    for f in "${FIXTURES[@]}"; do
        run "$CUZK" inspect "$FIX/$f/circuit.r1cs"
        expect_out '^  unused wires +none ' "$f r1cs: no unused wire"
    done
    make_r1cs "$TMP/unused.r1cs"
    run "$CUZK" inspect "$TMP/unused.r1cs"
    expect 0 "r1cs with unused wires: still valid"
    expect_out '^  unused wires +2 in no constraint \(0 public, 2 private; the first is wire 2\): nothing binds' \
        "r1cs with unused wires: 2 counted, the first named"
    expect_out '^  wires +5 ' "r1cs with unused wires: 5 wires"
    # setup makes the key all the same, and warns
    run "$CUZK" setup "$TMP/unused.r1cs" "$TMP/unused.zkey"
    expect 0 "setup of an r1cs with unused wires: exit 0"
    expect_err "warning: $TMP/unused.r1cs: 2 wires are in no constraint \\(0 public, 2 private; the first is wire 2\\)" \
        "setup of an r1cs with unused wires: warned"
    # a .params key cannot hold a free private wire (its l point would be the identity): refused, nothing written
    run "$CUZK" setup "$TMP/unused.r1cs" "$TMP/unused.params"
    expect 1 "setup of an r1cs with unused wires to .params: exit 1"
    expect_err 'aux variable 0 \(variable 2\) is unconstrained' "... the first free private wire named"
    [ ! -e "$TMP/unused.params" ] && pass "... no .params left" || fail "a .params was left"
    run "$CUZK" setup "$FIX/bits/circuit.r1cs" "$TMP/bits.zkey"
    expect 0 "setup of bits: exit 0"
    if grep -q "in no constraint" "$TMP/stderr"; then
        fail "setup of bits: no unused-wire warning"
    else
        pass "setup of bits: no unused-wire warning"
    fi
}

check_other() {
    # random bytes whose first byte is not a blank, '{' or '[' (about one draw in 126 begins so, and JSON
    # detection then takes it: the next case); 0xff begins no format inspect knows
    { printf '\377'; head -c 999 /dev/urandom; } >"$TMP/garbage"
    inspect_as "$TMP/garbage" 'unrecognized' 1 "random bytes"
    { printf '{'; head -c 999 /dev/urandom; } >"$TMP/garbage"
    inspect_as "$TMP/garbage" 'JSON text, not a snarkjs' 1 "random bytes after '{'"
    : >"$TMP/empty"
    inspect_as "$TMP/empty" 'unrecognized' 1 "empty file"
    inspect_as "$FIX/mixer/input.json" 'JSON text, not a snarkjs' 1 "another JSON document"
    printf '{"pi_a": [' >"$TMP/badjson"
    inspect_as "$TMP/badjson" 'JSON text, not a snarkjs' 1 "broken JSON"
    run "$CUZK" inspect "$TMP/no-such-file"
    expect 2 "missing file: exit 2"
    expect_error "missing file: message"
    run "$CUZK" inspect "$TMP"
    expect 2 "directory: exit 2"
    run "$CUZK" inspect "$FIX/bits/proof.json" "$FIX/bits/public.json"
    expect 2 "two files: exit 2"
    run "$CUZK" inspect "$FIX/bits/proof.json" --no-verify
    expect 2 "an option of another command: exit 2"
}

for f in "${FIXTURES[@]}"; do
    check_fixture "$f"
done
check_counts
check_unused
check_other
cli_finish
