#!/usr/bin/env bash
# Instructions per pass of a profiling run, from two cachegrind runs that differ only in
# their pass count, so that the setup (input generation, oracle checks, allocation)
# cancels out: (I(N2) - I(N1)) / (N2 - N1). The way BASELINE.md compares variants on
# this machine, which has no hardware counters and a noisy clock.
#
#   benches/scripts/instructions.sh [--functions K] N1 N2 BIN ARGS...
#
# ARGS holds `{N}` where the pass count goes:
#   benches/scripts/instructions.sh 1 3 target/release/zstd_prof game-blocks 1 '{N}'
#   benches/scripts/instructions.sh 1 3 target/release/zstd_prof game-blocks 1 '{N}' native
#   benches/scripts/instructions.sh --functions 15 2 6 target/release/stream_speed --prof ours 6 '{N}'
# With `--functions K`, the K functions with the most instructions per pass follow (build
# with `CARGO_PROFILE_RELEASE_DEBUG=line-tables-only` for file names).
#
# `rep movsb` / `rep stosb` (glibc's memcpy and memset of large blocks) count one
# instruction per byte: those two functions read high against their time.
set -euo pipefail

functions=0
if [[ "${1:-}" == "--functions" ]]; then
    functions=$2
    shift 2
fi
if [[ $# -lt 4 ]]; then
    sed -n '2,20s/^# \{0,1\}//p' "$0" >&2
    exit 2
fi
n1=$1 n2=$2 bin=$3
shift 3
if ! [[ "$n1" =~ ^[0-9]+$ && "$n2" =~ ^[0-9]+$ && "$n2" -gt "$n1" ]]; then
    echo "instructions.sh: N1 and N2 must be pass counts with N2 > N1" >&2
    exit 2
fi
if ! printf '%s\n' "$@" | grep -q '{N}'; then
    echo "instructions.sh: no {N} in the arguments: the pass count has nowhere to go" >&2
    exit 2
fi
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Run BIN with ARGS, `{N}` replaced by PASSES, counting into OUT.
run() { # PASSES OUT
    local args=() a
    for a in "${rest[@]}"; do args+=("${a//\{N\}/$1}"); done
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$2" \
        "$bin" "${args[@]}" >"$work/stdout" 2>"$work/stderr" || {
        echo "instructions.sh: the run with $1 passes failed:" >&2
        tail -5 "$work/stderr" >&2
        exit 1
    }
}
total() { awk '/^summary:/ {print $2}' "$1"; }

rest=("$@")
run "$n1" "$work/a.out"
run "$n2" "$work/b.out"
passes=$((n2 - n1))
echo "$(( ($(total "$work/b.out") - $(total "$work/a.out")) / passes )) instructions per pass ($bin ${rest[*]})"

if [[ "$functions" -gt 0 ]]; then
    cg_diff "$work/a.out" "$work/b.out" >"$work/diff.out" 2>/dev/null
    cg_annotate --show-percs=no "$work/diff.out" 2>/dev/null |
        awk -v passes="$passes" -v k="$functions" '
            /file:function/ { on = 1; next }
            on && /^-+$/ { if (seen) exit; next }
            on && $1 ~ /^[0-9,]+$/ {
                n = $1; gsub(",", "", n); $1 = ""; sub(/^ +/, "")
                printf "%12d  %s\n", n / passes, $0
                seen++; if (seen >= k) exit
            }'
fi
