#!/bin/sh
# bench-changepoint: detection and false-alarm rates of the nightly
# change-point detector (core/changepoint.c) on generated histories of 60
# nights, per-boot noise 1-3%, a 3% step; for 1, 2 and 3 boots per night
# and for a step 5 nights before the end (t-changepoint --bench).
# KPERFCI_CHANGEPOINT_BENCH_REPS (default 1000) histories of each kind.
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
: "${KPERFCI_BIN:=$SRC/bin}"
case "$KPERFCI_BIN" in
*/build/san/bin) T=$SRC/build/san/tests/t-changepoint ;;
*) T=$SRC/build/std/tests/t-changepoint ;;
esac
"$T" --bench "${KPERFCI_CHANGEPOINT_BENCH_REPS:-1000}"
