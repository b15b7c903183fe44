#!/bin/sh
# suites-calibration: each mechanism's calibration series against the
# reference kernel, on the suite that measures it, in the qemu guest of
# tests/suites-lib.sh (TCG with icount: guest time is instructions, so one
# boot per side is repeatable to a fraction of a percent; two qemus run at
# once).  Prints, per (suite, run, metric): the reference mean, the
# calibration's mean and the %change, and whether that is the direction
# the calibration's cover letter expects.  A benchmark, not a test: the A/B
# verdicts with boots and statistics are the daemon's (t7000).
#
#   KPERFCI_TEST_CACHE=... tests/bench/suites-calibration.sh [PAIR...]
#   PAIR: list-lru-delay:list-lru split-queue-delay:large-folio
#         root-flush-delay:memcg-flush lru-delay:lru-lock (default: all)
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
: "${KPERFCI_BIN:=$SRC/bin}"
T=$(mktemp -d "${TMPDIR:-/tmp}/kperfci-bench.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$T"' EXIT
. "$SRC/tests/kernel-lib.sh"
. "$SRC/tests/suites-lib.sh"

PAIRS=${*:-"list-lru-delay:list-lru split-queue-delay:large-folio root-flush-delay:memcg-flush lru-delay:lru-lock"}
REF=$(kernel_ref_bzimage) || exit 1

# expected direction per calibration: the runs whose primary metrics (time,
# throughput; not user_sec, thp_fault_share or latency percentiles) must
# regress
expect() {
	case $1 in
	list-lru-delay) echo "file-read swap-memhog" ;;
	split-queue-delay) echo "thp=2048" ;;
	root-flush-delay) echo "root-refault" ;;
	lru-delay) echo "fault-free" ;;
	esac
}

for p in $PAIRS; do
	cal=${p%%:*} suite=${p#*:}
	bz=$(kernel_series_bzimage "$SRC/patches/$cal.mbox") || exit 1
	suites_boot "$REF" "$T/ref-$suite" "" "$suite" &
	suites_boot "$bz" "$T/$cal" "" "$suite"
	wait
	echo "== $cal on the $suite suite (expected to regress: $(expect "$cal"))"
	python3 - "$T/ref-$suite.results" "$T/$cal.results" "$(expect "$cal")" <<'PY'
import json, sys
def load(path):
    by = {}
    for line in open(path, errors="replace"):
        if not line.startswith("{"):
            continue
        s = json.loads(line)
        if "metric" not in s:
            continue
        key = (s["workload"], s["params"], s["metric"])
        by.setdefault(key, [s["better"]]).append(s["value"])
    return by
a, b, exp = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3].split()
for key in sorted(a):
    if key not in b:
        print("%-12s %-60.60s %-22s missing in the calibration boot" % key)
        continue
    better = a[key][0]
    ma = sum(a[key][1:]) / len(a[key][1:])
    mb = sum(b[key][1:]) / len(b[key][1:])
    ch = (mb - ma) / ma * 100 if ma else 0.0
    worse = ch < 0 if better == "higher" else ch > 0
    mark = ""
    primary = key[2] in ("wall_sec", "sys_sec", "ops_per_sec",
        "ops_per_sec_per_task", "refaults_per_sec", "read_mb_per_sec",
        "pages_per_sec")
    if primary and any(e in key[0] or e in key[1] for e in exp):
        mark = "expected regression: " + ("yes" if worse else "NO")
    print("%-12s %-60.60s %-22s %12.5g %12.5g %+7.1f%% %s" %
          (key[0], key[1], key[2], ma, mb, ch, mark))
PY
done
