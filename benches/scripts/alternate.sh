#!/usr/bin/env bash
# Alternating timings of two commands pinned to one core: A, B, A, B, ... ROUNDS times
# each, each run's CPU time from `perf stat -e task-clock`, then the median of each side
# and A's median over B's (above 1: B is faster). On a shared, noisy machine, alternation
# keeps both sides under the same load; compare builds with this, never with two separate
# runs.
#
#   benches/scripts/alternate.sh ROUNDS 'COMMAND A' 'COMMAND B'
# e.g. an old and a new build of zstd_prof:
#   benches/scripts/alternate.sh 7 '/tmp/old_prof game-blocks 6 10' \
#       'target/release/zstd_prof game-blocks 6 10'
# CORE=N pins to another core than 1.
set -euo pipefail

if [[ $# -ne 3 ]] || ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; then
    sed -n '2,14s/^# \{0,1\}//p' "$0" >&2
    exit 2
fi
rounds=$1 cmd_a=$2 cmd_b=$3
core=${CORE:-1}
command -v perf >/dev/null || { echo "alternate.sh: perf is not installed" >&2; exit 2; }

# One run's task-clock in milliseconds; the command's own output is dropped.
time_ms() {
    local out
    # shellcheck disable=SC2086 # the command is a word list on purpose
    out=$(perf stat -x, -e task-clock taskset -c "$core" $1 2>&1 >/dev/null) || {
        echo "alternate.sh: '$1' failed:" >&2
        echo "$out" | tail -5 >&2
        exit 1
    }
    echo "$out" | awk -F, '$3 == "task-clock" || $3 ~ /^task-clock/ {printf "%.1f\n", $1}' | tail -1
}
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

a=() b=()
for ((i = 0; i < rounds; i++)); do
    a+=("$(time_ms "$cmd_a")")
    b+=("$(time_ms "$cmd_b")")
done
ma=$(median "${a[@]}") mb=$(median "${b[@]}")
echo "A: median $ma ms  [${a[*]}]"
echo "B: median $mb ms  [${b[*]}]"
awk -v a="$ma" -v b="$mb" 'BEGIN {printf "A / B: %.3f (above 1: B is faster)\n", a / b}'
