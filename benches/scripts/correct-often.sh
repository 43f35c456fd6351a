#!/usr/bin/env bash
# Runs a differential harness (`zstd_diff`, `stream_diff`, `dict_diff`) with the encoder's
# window indices corrected as often as libzstd corrects them when built with
# `-DZSTD_WINDOW_OVERFLOW_CORRECT_FREQUENTLY=1`, against the oracle built that way: the
# index overflow correction, which otherwise first runs past 3500 MiB of input, then runs
# on inputs of a few MiB at every level (each block whose start lies a cycle and a window
# past the last correction). Its own target directory keeps that oracle and that encoder
# away from every other build.
#
#   benches/scripts/correct-often.sh BIN [ARGS...]
# e.g. every level on inputs past their windows:
#   benches/scripts/correct-often.sh zstd_diff --big --random 0
#   benches/scripts/correct-often.sh zstd_diff --huge --sizes 17M,33M+5 --levels 13,16,19
set -euo pipefail

if [[ $# -lt 1 ]]; then
    sed -n '2,13s/^# \{0,1\}//p' "$0" >&2
    exit 2
fi
bin=$1
shift
cd "$(dirname "$0")/../.."
export CFLAGS="${CFLAGS:-} -DZSTD_WINDOW_OVERFLOW_CORRECT_FREQUENTLY=1"
export CARGO_TARGET_DIR="${CORRECT_OFTEN_TARGET_DIR:-target/correct-often}"
exec cargo run --locked --release -p zarkit-benches --features correct-overflow-often \
    --bin "$bin" -- "$@"
