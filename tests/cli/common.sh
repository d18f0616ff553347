# common.sh — helpers sourced by tests/cli/test_*.sh (not a test itself).
#
# Each test script calls cli_init "$@" first: it finds the repository root from
# the script's own location, the cuzk binary in the build directory given as $1,
# makes a scratch directory removed on exit, and locates snarkjs. Every command
# under test goes through `run`, which records stdout, stderr and the exit
# status without stopping the script, and fails the run on its own if the
# process died of a signal (status >= 128) or a sanitizer reported anything
# (an ASan build exits 1 on an error, which a test expecting 1 would miss).
# Checks count passes and failures; cli_finish prints the tally and exits
# non-zero if anything failed, so every check can fail the ctest test.

cli_init() {
    if [ $# -ne 1 ]; then
        echo "usage: bash $0 <build-dir>" >&2
        exit 2
    fi
    ROOT=$(cd "$(dirname "${BASH_SOURCE[1]}")/../.." && pwd)
    CUZK=$(cd "$1" && pwd)/cuzk
    FIX=$ROOT/tests/fixtures
    FIXTURES=(bits mixer mulchain)
    # ThreadSanitizer's runtime takes over signal dispositions and lets SIGXFSZ kill the process even
    # when the program ignores it (a 10-line program with signal(SIGXFSZ, SIG_IGN) dies of it under
    # -fsanitize=thread), so in that build run_fsize gives every command SIGXFSZ ignored already.
    TSAN_BUILD=0
    grep -q '^CUZK_TSAN:BOOL=ON$' "$1/CMakeCache.txt" 2>/dev/null && TSAN_BUILD=1
    TMP=$(mktemp -d)
    trap 'rm -rf "$TMP"' EXIT
    PASSES=0
    FAILS=0
    SNARKJS=$ROOT/scripts/fixtures/node_modules/.bin/snarkjs
    if [ ! -x "$CUZK" ]; then
        echo "FAIL: no cuzk binary at $CUZK" >&2
        exit 1
    fi
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
}

# cli_bench: BENCH = the cuzk-bench binary beside cuzk, or the run stops with a failure.
cli_bench() {
    BENCH=$(dirname "$CUZK")/cuzk-bench
    if [ ! -x "$BENCH" ]; then
        echo "FAIL: no cuzk-bench binary at $BENCH" >&2
        exit 1
    fi
}

pass() {
    PASSES=$((PASSES + 1))
    echo "ok   $*"
}

fail() {
    FAILS=$((FAILS + 1))
    echo "FAIL $*"
    if [ -f "$TMP/stdout" ]; then
        sed 's/^/     stdout: /' "$TMP/stdout" | head -n 20
        sed 's/^/     stderr: /' "$TMP/stderr" | head -n 20
    fi
}

# run CMD...: runs it with stdout and stderr captured in $TMP/stdout, $TMP/stderr; status in $RC.
run() {
    set +e
    "$@" >"$TMP/stdout" 2>"$TMP/stderr"
    RC=$?
    set -e
    if [ "$RC" -ge 128 ]; then
        fail "crashed (status $RC): $*"
    elif grep -qE 'Sanitizer|runtime error:' "$TMP/stderr"; then
        fail "sanitizer report: $*"
    fi
}

# run_fsize XFSZ KIB CMD...: run CMD under a file-size limit of KIB KiB (ulimit -f; its stdout and stderr go
# through pipes, so only the files it writes are under it), with SIGXFSZ at its default action
# (XFSZ=default: a program that lets it kill it shows as a crash) or ignored (XFSZ=ignored: the write fails
# with EFBIG; in the ThreadSanitizer build always ignored, see cli_init).
run_fsize() {
    local disp=-
    [ "$1" = ignored ] || [ "$TSAN_BUILD" = 1 ] && disp=''
    run bash -c 'set -o pipefail; trap "$0" XFSZ
        { (ulimit -f "$1" && shift && exec "$@") 2>&1 >&3 | cat >&2; } 3>&1 | cat' "$disp" "${@:2}"
}

# expect_only DIR DESCRIPTION FILE=CONTENT...: DIR holds exactly these files with these contents (old
# outputs left as they were, no temporary file).
expect_only() {
    local dir=$1 what=$2 kv ok=1
    shift 2
    for kv in "$@"; do
        [ "$(cat "$dir/${kv%%=*}" 2>/dev/null)" = "${kv#*=}" ] || ok=0
    done
    [ "$(ls -A "$dir" | wc -l)" -eq $# ] || ok=0
    if [ $ok = 1 ]; then pass "$what"; else fail "$what (left: $(ls -A "$dir" | tr '\n' ' '))"; fi
}

# expect STATUS DESCRIPTION: the last run exited with STATUS.
expect() {
    if [ "$RC" -eq "$1" ]; then
        pass "$2"
    else
        fail "$2 (exit $RC, expected $1)"
    fi
}

# expect_error DESCRIPTION: the last run failed (1 or 2) and said why on one `cuzk: ` line.
expect_error() {
    if [ "$RC" -ne 0 ] && [ "$RC" -lt 128 ] && grep -q '^cuzk: ' "$TMP/stderr"; then
        pass "$1"
    else
        fail "$1 (exit $RC, expected a failure with a 'cuzk: ' message)"
    fi
}

# expect_out PATTERN DESCRIPTION / expect_err PATTERN DESCRIPTION: grep -E in stdout / stderr.
expect_out() {
    if grep -qE -- "$1" "$TMP/stdout"; then pass "$2"; else fail "$2 (stdout lacks /$1/)"; fi
}
expect_err() {
    if grep -qE -- "$1" "$TMP/stderr"; then pass "$2"; else fail "$2 (stderr lacks /$1/)"; fi
}

# expect_empty_dir DIR DESCRIPTION: nothing (no output, no temporary file) was left in DIR.
expect_empty_dir() {
    if [ -z "$(ls -A "$1")" ]; then
        pass "$2"
    else
        fail "$2 (left behind: $(ls -A "$1" | tr '\n' ' '))"
    fi
}

# Is snarkjs usable? Missing: FAIL under CI=true or CUZK_REQUIRE_SNARKJS=1, else a loud SKIP.
have_snarkjs() {
    if [ -x "$SNARKJS" ] && command -v node >/dev/null 2>&1; then
        return 0
    fi
    if [ "${CI:-}" = true ] || [ "${CUZK_REQUIRE_SNARKJS:-}" = 1 ]; then
        fail "snarkjs is required (CI=true or CUZK_REQUIRE_SNARKJS=1) but $SNARKJS or node is missing"
    else
        echo "SKIP ******** snarkjs cross-checks NOT RUN: $SNARKJS or node is missing" \
            "(run: bash scripts/install-deps.sh) ********"
    fi
    return 1
}

# truncate_copy SRC DST BYTES: DST = the first BYTES bytes of SRC.
truncate_copy() {
    head -c "$3" "$1" >"$2"
}

# flip_byte FILE OFFSET: xors the byte at OFFSET with 0x55 in place.
flip_byte() {
    local b
    b=$(od -An -t u1 -j "$2" -N 1 "$1" | tr -d ' ')
    printf "$(printf '\\%03o' $((b ^ 0x55)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# u32le FILE OFFSET / u64le FILE OFFSET: little-endian integers read from FILE.
u32le() { od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
u64le() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }

# section_offset FILE ID: byte offset of the data of section ID in a zkey/r1cs/wtns container.
section_offset() {
    local pos=12 n i id size
    n=$(u32le "$1" 8)
    for ((i = 0; i < n; i++)); do
        id=$(u32le "$1" "$pos")
        size=$(u64le "$1" $((pos + 4)))
        if [ "$id" -eq "$2" ]; then
            echo $((pos + 12))
            return 0
        fi
        pos=$((pos + 12 + size))
    done
    return 1
}

# decimal_plus_one DIGITS: the decimal string DIGITS + 1 (arbitrary length).
decimal_plus_one() {
    local s=$1 i carry=1 d out=""
    for ((i = ${#s} - 1; i >= 0; i--)); do
        d=$((${s:i:1} + carry))
        carry=$((d / 10))
        out=$((d % 10))$out
    done
    [ "$carry" -eq 1 ] && out=1$out
    echo "$out"
}

# tamper_public SRC DST: DST = SRC with its first value increased by one (snarkjs's layout).
tamper_public() {
    local first
    first=$(grep -m1 -oE '"[0-9]+"' "$1" | tr -d '"')
    awk -v old="\"$first\"" -v new="\"$(decimal_plus_one "$first")\"" \
        '!done && index($0, old) { sub(old, new); done = 1 } { print }' "$1" | head -c -1 >"$2"
}

# swap_a_c SRC DST: DST = proof.json SRC with pi_a and pi_c exchanged (both valid points; invalid proof).
swap_a_c() {
    awk '
        /"pi_a"/ { key = "a" } /"pi_b"/ { key = "b" } /"pi_c"/ { key = "c" } /"protocol"/ { key = "" }
        { line[NR] = $0; owner[NR] = key }
        /^  "[0-9]+",?$/ && (key == "a" || key == "c") { coords[key, ++n[key]] = $0 }
        END {
            for (i = 1; i <= NR; i++) {
                k = owner[i]
                if ((k == "a" || k == "c") && line[i] ~ /^  "[0-9]+",?$/) {
                    other = (k == "a") ? "c" : "a"
                    print coords[other, ++m[k]]
                } else {
                    print line[i]
                }
            }
        }' "$1" | head -c -1 >"$2"
}

# off_curve SRC DST: DST = proof.json SRC with the last digit of pi_a's x changed (a point off the curve).
off_curve() {
    awk '!done && /^  "[0-9]+",$/ {
            n = length($0); d = substr($0, n - 2, 1)
            $0 = substr($0, 1, n - 3) ((d + 1) % 10) "\","; done = 1
        } { print }' "$1" | head -c -1 >"$2"
}

cli_finish() {
    echo "$(basename "$0"): $PASSES passed, $FAILS failed"
    [ "$FAILS" -eq 0 ]
}
