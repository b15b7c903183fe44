#!/bin/sh
# load-native: the native half of `make bench-load`.  Runs each workload of
# kperfci-load on this machine where the host allows it (the cgroup v2 ones
# are reported as skipped on a cgroup v1 host) and prints, per workload and
# metric: the mean over iterations, the %stddev across iterations, and the
# harness's own overhead: wall time of the whole command beyond the measured
# windows, and the null workload's per-iteration start/pin/stop cost.
# A benchmark, not a test: it prints figures and fails only if nothing ran.
#
#   SECONDS_PER_ITER=1 ITERATIONS=5 tests/bench/load-native.sh
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
: "${KPERFCI_BIN:=$SRC/bin}"
L=$KPERFCI_BIN/kperfci-load
S=${SECONDS_PER_ITER:-1}
N=${ITERATIONS:-5}
W=${WARMUP:-1}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kperfci-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
NCPU=$(getconf _NPROCESSORS_ONLN)
ran=0

summary() {	# summary LABEL FILE WALL TIMED
	python3 - "$@" <<'PY'
import json, statistics, sys
label, path, wall, timed = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
by = {}
for line in open(path):
    s = json.loads(line)
    if "metric" in s:
        by.setdefault((s["metric"], s["unit"]), []).append(s["value"])
for (m, unit), v in sorted(by.items()):
    mean = statistics.mean(v)
    sd = statistics.stdev(v) if len(v) > 1 else 0.0
    print("%-34s %-22s %14.1f %-8s %6.2f%%  (n=%d)" % (label, m, mean, unit,
          100 * sd / mean if mean else 0.0, len(v)))
if timed > 0:
    print("%-34s %-22s %14.3f s        outside the measured windows" % (label, "harness_overhead", wall - timed))
PY
}

run() {	# run LABEL TIMED_SECONDS ARGS...
	rl=$1 rt=$2; shift 2
	t0=$(date +%s.%N)
	if "$L" run "$@" --seconds "$S" --iterations "$N" --warmup "$W" >"$TMP/out" 2>"$TMP/err"; then
		t1=$(date +%s.%N)
		summary "$rl" "$TMP/out" "$(echo "$t1 - $t0" | bc)" "$rt"
		ran=$((ran + 1))
	else
		printf '%-34s skipped: %s\n' "$rl" "$(tail -1 "$TMP/err" | sed 's/^kperfci-load: //')"
	fi
}

echo "# kperfci-load native benchmark: $NCPU CPUs, ${S}s x $N iterations (+$W warm-up)"
printf '%-34s %-22s %14s %-8s %7s\n' workload metric mean unit stddev
iters=$((N + W))
timed=$(echo "$S * $iters" | bc)
run "null tasks=all" 0 null --tasks all
run "page-fault v1 tasks=1" "$timed" page-fault --variant 1 --tasks 1
run "page-fault v1 tasks=all" "$timed" page-fault --variant 1 --tasks all
run "page-fault v1 tasks=all threads" "$timed" page-fault --variant 1 --tasks all --mode thread
run "page-fault v2 tasks=all" "$timed" page-fault --variant 2 --tasks all
run "page-fault v3 tasks=all" "$timed" page-fault --variant 3 --tasks all
run "fault-free shmem tasks=all" "$timed" fault-free --mode shmem --tasks all
run "fault-free anon tasks=all" "$timed" fault-free --mode anon --tasks all
run "memcg-flush" 0 memcg-flush --reads 100
run "swap-memhog" 0 swap-memhog
run "file-read" 0 file-read
if "$L" run lock-profile --target page-fault --tasks all --seconds "$S" --iterations 1 >"$TMP/lp" 2>"$TMP/err"; then
	python3 -c "
import json; p=json.load(open('$TMP/lp'))
top=', '.join('%s %.1f%%' % (t['symbol'], 100*t['share']) for t in p['top'][:3])
print('%-34s %d kernel samples; top: %s' % ('lock-profile page-fault', p['total_samples'], top))"
else
	printf '%-34s skipped: %s\n' "lock-profile page-fault" "$(tail -1 "$TMP/err" | sed 's/^kperfci-load: //')"
fi
[ $ran -gt 0 ]
