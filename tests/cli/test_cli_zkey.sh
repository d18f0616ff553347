#!/usr/bin/env bash
# test_cli_zkey.sh — `cuzk setup <circuit.r1cs> <out.zkey>`: a snarkjs .zkey made without a ceremony.
#
# For every committed circom fixture: setup writes a key (and warns that it is not a trusted
# ceremony); `cuzk inspect --deep` accepts it (every point on its curve and in the subgroup);
# `snarkjs zkey export verificationkey` reads it; a proof by `snarkjs groth16 prove` with it passes
# `snarkjs groth16 verify` and `cuzk verify`; a proof by `cuzk prove` with it passes both too; both
# provers' public.json equal the fixture's; a public.json with its first value increased by one is
# rejected by both verifiers for both proofs; the fixture's own proof (another key) is rejected with
# the new verifying key; a second setup gives another key. Bad arguments — a missing, truncated,
# garbage or directory r1cs, an output in a missing directory or naming a directory, a third
# argument after a .zkey — fail with a `cuzk: ` message and a non-zero status and leave no file (an
# existing output stays as it was).
# Usage: bash tests/cli/test_cli_zkey.sh <build-dir>
set -euo pipefail
source "$(dirname "$0")/common.sh"
cli_init "$@"

# verify_both DESCRIPTION VK PUBLIC PROOF WANT: cuzk verify (exit 0 / 1) and, with snarkjs, snarkjs
# groth16 verify (exit 0 / non-zero) must both say WANT (ok or invalid).
verify_both() {
    local desc=$1 vk=$2 pub=$3 proof=$4 want=$5
    run "$CUZK" verify "$vk" "$pub" "$proof"
    if [ "$want" = ok ]; then
        expect 0 "$desc: cuzk verify accepts"
        expect_out '^OK$' "$desc: cuzk verify prints OK"
    else
        expect 1 "$desc: cuzk verify rejects (exit 1)"
        expect_out '^INVALID$' "$desc: cuzk verify prints INVALID"
    fi
    if [ "$HAVE_SNARKJS" = 1 ]; then
        run "$SNARKJS" groth16 verify "$vk" "$pub" "$proof"
        if [ "$want" = ok ]; then
            if [ "$RC" -eq 0 ] && grep -q 'OK' "$TMP/stdout"; then
                pass "$desc: snarkjs groth16 verify accepts"
            else
                fail "$desc: snarkjs groth16 verify does not accept (exit $RC)"
            fi
        else
            [ "$RC" -ne 0 ] && pass "$desc: snarkjs groth16 verify rejects" ||
                fail "$desc: snarkjs groth16 verify accepted"
        fi
    fi
}

check_fixture() {
    local f=$1 d=$FIX/$1 o=$TMP/$1
    mkdir -p "$o"
    run "$CUZK" setup "$d/circuit.r1cs" "$o/key.zkey" --threads 2 --verbose
    expect 0 "$f: setup writes a .zkey"
    expect_err 'NOT A TRUSTED CEREMONY' "$f: setup warns that it is not a trusted ceremony"
    expect_err 'timing \(2 threads\): load .* setup .* total' "$f: setup --verbose prints timings"
    [ "$(ls -A "$o")" = key.zkey ] || fail "$f: setup left other files: $(ls -A "$o" | tr '\n' ' ')"

    run "$CUZK" inspect "$o/key.zkey" --deep
    expect 0 "$f: cuzk inspect --deep accepts the key"
    expect_out 'snarkjs Groth16 proving key' "$f: inspect recognizes a .zkey"
    expect_out '^status: valid \(structure and every point, subgroup included\)' "$f: every point checked"
    local want
    want=$(grep -E '^  (variables|public signals|domain|A/B coefficients|points) ' \
        <("$CUZK" inspect "$d/circuit.zkey"))
    if [ "$(grep -E '^  (variables|public signals|domain|A/B coefficients|points) ' "$TMP/stdout")" = "$want" ]; then
        pass "$f: the same counts as snarkjs's key for this circuit"
    else
        fail "$f: counts differ from snarkjs's key for this circuit"
    fi

    if [ "$HAVE_SNARKJS" = 1 ]; then
        run "$SNARKJS" zkey export verificationkey "$o/key.zkey" "$o/vk.json"
        expect 0 "$f: snarkjs zkey export verificationkey reads the key"
        run "$SNARKJS" groth16 prove "$o/key.zkey" "$d/witness.wtns" "$o/sproof.json" "$o/spublic.json"
        expect 0 "$f: snarkjs groth16 prove with the key"
        cmp -s "$o/spublic.json" "$d/public.json" && pass "$f: snarkjs's public.json is the fixture's" ||
            fail "$f: snarkjs's public.json differs from the fixture's"
        verify_both "$f: snarkjs's proof" "$o/vk.json" "$o/spublic.json" "$o/sproof.json" ok
    else
        return 0
    fi

    run "$CUZK" prove "$o/key.zkey" "$d/witness.wtns" "$o/cproof.json" "$o/cpublic.json" --threads 2 \
        --check-witness "$d/circuit.r1cs"
    expect 0 "$f: cuzk prove with the key"
    cmp -s "$o/cpublic.json" "$d/public.json" && pass "$f: cuzk's public.json is the fixture's" ||
        fail "$f: cuzk's public.json differs from the fixture's"
    verify_both "$f: cuzk's proof" "$o/vk.json" "$o/cpublic.json" "$o/cproof.json" ok

    tamper_public "$d/public.json" "$o/bad_public.json"
    cmp -s "$d/public.json" "$o/bad_public.json" && fail "$f: tamper_public changed nothing"
    verify_both "$f: snarkjs's proof, tampered public.json" "$o/vk.json" "$o/bad_public.json" "$o/sproof.json" invalid
    verify_both "$f: cuzk's proof, tampered public.json" "$o/vk.json" "$o/bad_public.json" "$o/cproof.json" invalid
    verify_both "$f: the fixture's proof under the new key" "$o/vk.json" "$d/public.json" "$d/proof.json" invalid

    run "$CUZK" setup "$d/circuit.r1cs" "$o/key2.zkey" --threads 1
    expect 0 "$f: a second setup"
    cmp -s "$o/key.zkey" "$o/key2.zkey" && fail "$f: two setups wrote the same key (toxic waste not fresh?)" ||
        pass "$f: two setups write different keys"
}

# zkey_setup_fails DESCRIPTION R1CS [OUT]: setup must fail with a message and leave the output dir empty.
zkey_setup_fails() {
    local o
    o=$(mktemp -d "$TMP/out.XXXXXX")
    run "$CUZK" setup "$2" "${3:-$o/key.zkey}" --threads 2
    expect_error "zkey setup: $1"
    expect_empty_dir "$o" "zkey setup: $1: nothing left behind"
}

check_errors() {
    local b=$FIX/bits o n
    zkey_setup_fails "missing r1cs" "$TMP/no-such.r1cs"
    expect_err 'no-such.r1cs' "zkey setup: missing r1cs: the message names the file"
    mkdir -p "$TMP/adir"
    zkey_setup_fails "directory as r1cs" "$TMP/adir"
    head -c 5000 /dev/urandom >"$TMP/garbage.r1cs"
    zkey_setup_fails "garbage r1cs" "$TMP/garbage.r1cs"
    n=$(stat -c %s "$b/circuit.r1cs")
    for c in 0 11 12 40 100 $((n / 2)) $((n - 1)); do
        truncate_copy "$b/circuit.r1cs" "$TMP/cut.r1cs" "$c"
        zkey_setup_fails "r1cs cut at byte $c of $n" "$TMP/cut.r1cs"
    done
    zkey_setup_fails "a .zkey as the r1cs" "$b/circuit.zkey"
    zkey_setup_fails "output in a missing directory" "$b/circuit.r1cs" "$TMP/no/such/dir/key.zkey"
    expect_err 'cannot write .*no/such/dir/key.zkey' "zkey setup: missing directory: the message names the output"
    o=$(mktemp -d "$TMP/out.XXXXXX")
    mkdir "$o/dir.zkey"
    run "$CUZK" setup "$b/circuit.r1cs" "$o/dir.zkey"
    expect_error "zkey setup: a directory as the output"
    [ "$(ls -A "$o")" = dir.zkey ] && [ -z "$(ls -A "$o/dir.zkey")" ] && pass "zkey setup: directory untouched" ||
        fail "zkey setup: a directory as the output: something was written"

    o=$(mktemp -d "$TMP/out.XXXXXX")
    run "$CUZK" setup "$b/circuit.r1cs" "$o/key.zkey" "$o/key.vk"
    expect 2 "zkey setup with a third argument: usage error (exit 2)"
    expect_error "zkey setup with a third argument: a message"
    expect_empty_dir "$o" "zkey setup with a third argument: nothing written"

    o=$(mktemp -d "$TMP/out.XXXXXX")
    printf 'previous contents' >"$o/key.zkey"
    truncate_copy "$b/circuit.r1cs" "$TMP/cut.r1cs" 100
    run "$CUZK" setup "$TMP/cut.r1cs" "$o/key.zkey"
    expect_error "zkey setup over an existing file, bad r1cs"
    [ "$(cat "$o/key.zkey")" = 'previous contents' ] && [ "$(ls -A "$o")" = key.zkey ] &&
        pass "zkey setup: the existing output is unchanged and no temporary file remains" ||
        fail "zkey setup: the existing output changed or a temporary file remains: $(ls -A "$o" | tr '\n' ' ')"
    # a key that cannot be written (a 1 KiB file-size limit), SIGXFSZ at its default action or ignored
    local xfsz
    for xfsz in default ignored; do
        run_fsize $xfsz 1 "$CUZK" setup "$b/circuit.r1cs" "$o/key.zkey"
        expect 1 "zkey setup, SIGXFSZ $xfsz: a key that cannot be written: exit 1"
        expect_err 'cannot write .*/key\.zkey: writing .*/key\.zkey\.tmp\.[0-9]+: File too large' \
            "zkey setup: ... says which file and why"
        expect_only "$o" "zkey setup: ... the old key stands, nothing else" "key.zkey=previous contents"
    done

    run "$CUZK" setup --help
    expect 0 "setup --help"
    expect_out '<circuit.r1cs> <out.zkey>' "setup --help shows the .zkey form"
    expect_out 'snarkjs Groth16 \.zkey' "setup --help explains the .zkey output"
}

HAVE_SNARKJS=0
if have_snarkjs; then HAVE_SNARKJS=1; fi
for f in "${FIXTURES[@]}"; do
    check_fixture "$f"
done
check_errors
cli_finish
