#!/bin/sh
# load: `make bench-load`.  First the native half (tests/bench/load-native.sh,
# each workload on this host where it allows), then the same workloads in
# the qemu guest the way CI runs them: kperfcid and a qemu agent on
# loopback, the reference kernel (tests/kernel-lib.sh), one job with the
# default matrix.  Prints per workload and metric: the mean, %stddev across
# iterations, and the harness's own overhead: initramfs build time, boot
# time to the guest's ready marker, and the job's wall time beyond the
# measured windows.  A benchmark: it prints figures, it asserts nothing
# beyond "it ran".
#
#   MATRIX=etc/workloads.conf ACCEL=auto tests/bench/load.sh
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"
. "$SRC/tests/kernel-lib.sh"

MATRIX=${MATRIX:-$SRC/etc/workloads.conf}

echo "== native (tests/bench/load-native.sh)"
"$SRC/tests/bench/load-native.sh" || echo "(native half failed)"

echo
echo "== qemu guest (2 sockets x 2 cores, 2 NUMA nodes)"
BZ=$(kernel_ref_bzimage) || { echo "no reference kernel"; exit 1; }
kd_config "[agents]\nlease = 120\n$(ka_section bench)"
kd_start || exit 1
KID=$(kd_kernel_post "$BZ" | jq -r .id)
api_post /api/v1/jobs "$(jq -n --rawfile m "$MATRIX" --argjson k "$KID" \
    '{kernel: $k, matrix: $m}')" >/dev/null
JOB=$(jq -r .id "$T/r.json")
ka_config bench "[qemu]\naccel = ${ACCEL:-auto}\njob-timeout = 3000"
start=$(date +%s.%N)
ka_start bench --once
wait "$(cat "$T/bench.pid")"
end=$(date +%s.%N)
curl -s "$KD_URL/api/v1/jobs/$JOB" >"$T/job.json"
echo "job $JOB: $(jq -r .state "$T/job.json")"
python3 - "$T/job.json" "$T/bench.log" "$start" "$end" "$MATRIX" <<'PY'
import json, re, statistics, sys
job = json.load(open(sys.argv[1]))
log = open(sys.argv[2]).read()
wall = float(sys.argv[4]) - float(sys.argv[3])
by = {}
for s in job["samples"]:
    by.setdefault((s["workload"], s["params"], s["metric"], s["unit"]),
                  []).append(s["value"])
print("%-14s %-44s %-18s %14s %-9s %8s" % ("workload", "params", "metric",
      "mean", "unit", "%stddev"))
for (w, p, m, u), v in sorted(by.items()):
    mean = statistics.mean(v)
    sd = statistics.stdev(v) if len(v) > 1 else 0.0
    print("%-14s %-44s %-18s %14.1f %-9s %7.2f%%  (n=%d)" % (w, p[:44], m,
          mean, u, 100 * sd / mean if mean else 0.0, len(v)))
print("lock profiles: %d" % len(job["profiles"]))
# Measured windows: seconds x (iterations + warmup) per run of the matrix.
d = {"seconds": 1, "iterations": 3, "warmup": 1}
runs, cur = [], None
for line in open(sys.argv[5]):
    line = line.split("#")[0].strip()
    if line.startswith("[defaults]"):
        cur = d
    elif line.startswith("[run"):
        cur = {}
        runs.append(cur)
    elif "=" in line and cur is not None:
        k, v = [x.strip() for x in line.split("=", 1)]
        if k in ("seconds", "iterations", "warmup"):
            cur[k] = float(v)
measured = sum(r.get("seconds", d["seconds"]) *
               (r.get("iterations", d["iterations"]) + r.get("warmup", d["warmup"]))
               for r in runs)
m = re.search(r"initramfs ([0-9.]+) s", log)
a = job["attempts_detail"][-1]
print("harness: initramfs build %s s, boot to ready %.1f s, agent wall %.1f s,"
      " measured windows %.0f s, overhead %.1f s (%.0f%%)" % (
      m.group(1) if m else "?", a.get("boot_seconds") or 0, wall, measured,
      wall - measured, 100 * (wall - measured) / wall if wall else 0))
m = re.search(r"booting .* under (\w+)", log)
print("accelerator: %s" % (m.group(1) if m else "?"))
PY
kd_stop
