#!/bin/sh
# t7600-lava: a comparison whose boots run through LAVA's real dispatcher.
# kperfcid on loopback takes the lru-delay calibration series
# (patches/lru-delay.mbox) as an uploaded mbox, builds base and patched
# (cache hits of kernel-lib.sh's reference and lru-delay builds) and
# schedules 3 A/B boots per side (6 if the first 3 leave the row
# undecided) on one kperfci-agent with backend = lava:
# for each job the agent builds the qemu backend's initramfs, writes a
# LAVA job definition and runs the real /usr/bin/lava-run (Debian's
# lava-dispatcher 2023.01) on the qemu device dictionary of
# tests/fixtures/lava/qemu-device.yaml (2 sockets, 2 nodes, TCG with
# -icount like t7000's qemu agent; both serial ports muxed onto the
# console LAVA reads), then reads the guest's samples out of LAVA's job
# log and uploads them as the qemu backend does.
#
# Checked: the agent registers with backend lava and the device's
# topology; every job ran through lava-run (its job log names LAVA's
# deploy, boot and finalize actions and the job passed; the definition
# waits for the guest's KPERFCI END); the consoles reach the daemon; the
# comparison's fault-free row is a regression, as on the qemu agent
# (t7000); old job directories, lava-run's files included, are pruned.
#
# Not exercised here: a LAVA server (t7700 has one), LAVA's retry path
# on a real infrastructure error (t-lava parses recorded logs of one).
#
# Heavy but cheap: the shared reference build (kernel-lib.sh), the
# lru-delay build from it (seconds once cached), and 6 LAVA jobs of
# 21-69 s each (a 1-second fault-free matrix): 206 s measured here.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"
. "$SRC/tests/kernel-lib.sh"

LAVA_RUN=${LAVA_RUN:-/usr/bin/lava-run}
[ -x "$LAVA_RUN" ] || skip_all "lava-run missing (package lava-dispatcher)"
[ "$(id -u)" = 0 ] || skip_all "lava-run runs as root only"
for c in qemu-system-x86_64 bwrap jq; do
	command -v $c >/dev/null || skip_all "$c not installed"
done
[ -x /bin/busybox ] || skip_all "busybox-static not installed"
[ -r "$KERNEL_TARBALL" ] || skip_all "linux-source-6.12 not installed"

BOOTS=3
DEVICE=$SRC/tests/fixtures/lava/qemu-device.yaml

REPO=$(kernel_ref_tree) || { echo "Bail out! no reference tree"; exit 1; }
BZ=$(kernel_ref_bzimage) || { echo "Bail out! reference build failed"; exit 1; }
LBZ=$(kernel_series_bzimage "$SRC/patches/lru-delay.mbox") ||
    { echo "Bail out! lru-delay build failed"; exit 1; }
ok "reference and lru-delay kernels built (cached)" test -s "$BZ" -a -s "$LBZ"

cp "$SRC/tests/fixtures/fault-free-1s.conf" "$T/matrix.conf"

# ---- kperfcid and one LAVA agent ------------------------------------------
kd_config "[tree \"linux-6.12\"]\npath = $REPO\nbranch = master\nconfig = tinyconfig\nfragment = $SRC/etc/kconfig/perf.config\nfragment = $SRC/etc/kconfig/qemu.config\n[build]\ncache = $(kernel_cache_dir)/builds\njobs = ${KPERFCI_TEST_JOBS:-2}\ntimeout = 3600\n[agents]\nlease = 60\n[sched]\nboots = $BOOTS\nboot_step = $BOOTS\nmax_boots = $((2 * BOOTS))\nmatrix = $T/matrix.conf\n$(ka_section l1)"
ok "kperfcid starts" kd_start
# keep = 4: the 6 jobs leave 4 job directories, lava-run's files in them
ka_config l1 "backend = lava\nkeep = 4\n[lava]\nlava-run = $LAVA_RUN\ndevice = $DEVICE\ndevice-type = qemu\nsockets = 2\ncores-per-socket = 2\nmemory-per-node = 1024\nboot-timeout = 180\njob-timeout = 600"
ok "kperfci-agent -n accepts backend = lava" sh -c \
    "'$KPERFCI_BIN/kperfci-agent' -n -c '$T/l1.conf' | grep -q 'backend lava'"
ka_start l1
ok "the agent registers" ka_wait_log l1 "registered as l1" 60
curl -fs "$KD_URL/api/v1/agents" >"$T/agents.json"
is "$(jq -r '.agents[] | select(.name == "l1") | "\(.backend) \(.sockets) \(.nodes) \(.cpus)"' "$T/agents.json")" \
    "lava 2 2 4" "agents API: backend lava, the device's 2 sockets, 2 nodes, 4 CPUs"

# ---- the comparison ------------------------------------------------------------
T0=$(date +%s)
timeout 1500 "$KPERFCI_BIN/kperfci" -s "$KD_URL" submit \
    --mbox "$SRC/patches/lru-delay.mbox" --wait >"$T/wait.out" 2>"$T/wait.err"
is "$?" 0 "submit --mbox --wait: the lru-delay run finished (exit 0)"
echo "# comparison: $(($(date +%s) - T0)) s; submit --wait, last lines:"
tail -15 "$T/wait.out" | sed 's/^/#   /'
sed 's/^/#   err: /' "$T/wait.err" | tail -5
ID=$(head -1 "$T/wait.out")

curl -fs "$KD_URL/api/v1/series/$ID/comparison" >"$T/c.json"
is "$(jq -r .series_state "$T/c.json")" done "the series is done"
echo "# fault-free: $(jq -c '[.rows[] | select(.workload == "fault-free") | {metric, pct_change, verdict}]' "$T/c.json")"
is "$(jq -r '[.rows[] | select(.workload == "fault-free" and .metric == "pages_per_sec") | .verdict] | join(",")' "$T/c.json")" \
    regression "the fault-free row (pages/s) is a regression, as on the qemu agent"
is "$(jq -r .verdict "$T/c.json")" regression "the comparison's verdict: regression"
ok "the regression is large (< -10%)" jq -e \
    '[.rows[] | select(.workload == "fault-free" and .metric == "pages_per_sec") | .pct_change < -10] | all' \
    "$T/c.json"
ok "$BOOTS boots per side, or $((2 * BOOTS)) when the first $BOOTS left it undecided" jq -e \
    ".progress.base.done == .progress.patched.done and ([.progress.base.done] | inside([$BOOTS, $((2 * BOOTS))]))" "$T/c.json"
NJOBS=$(jq -r '.progress.base.done + .progress.patched.done' "$T/c.json")
ok "the machine: the LAVA device's class (2 sockets, 2 nodes, 4 CPUs)" jq -e \
    '.machine.class | test("^2s-2n-4c-")' "$T/c.json"

# ---- every job through lava-run ----------------------------------------------
curl -fs "$KD_URL/api/v1/jobs" >"$T/jobs.json"
is "$(jq -r '[.jobs[] | .state] | unique | join(",")' "$T/jobs.json")" done \
    "every job is done"
is "$(jq -r '.jobs | length' "$T/jobs.json")" "$NJOBS" \
    "$NJOBS jobs"
JOB=$(jq -r '.jobs[0].id' "$T/jobs.json")
curl -fs "$KD_URL/api/v1/jobs/$JOB" >"$T/job.json"
is "$(jq -r '.attempts_detail[0] | "\(.agent) \(.status) \(.topology.nodes)"' "$T/job.json")" \
    "l1 done 2" "a job's attempt: agent l1, done, the guest saw 2 nodes"
curl -fs "$KD_URL/api/v1/jobs/$JOB/console?attempt=1" >"$T/console"
like "Linux version 6\.12" "$T/console" "its console: the device's console as LAVA read it"
like "^KPERFCI END" "$T/console" "with the guest's end marker LAVA waited for"

is "$(grep -c 'lava-run on device type qemu' "$T/l1.log")" "$NJOBS" \
    "the agent ran lava-run once per job"
is "$(grep -c 'lava-run: [0-9]* log lines, the guest ran (lava-run: job passed)' "$T/l1.log")" \
    "$NJOBS" "each LAVA job passed and the guest ran"
DIRS=$(ls -d "$T/l1.state"/job-* 2>/dev/null | wc -l)
is "$DIRS" 4 "old job directories pruned (keep = 4)"
LOG=$(ls -t "$T/l1.state"/job-*/lava.log | head -1)
for a in "0 validate" "1 deployimages" "2 boot-image-retry" "2.1.1 execute-qemu" \
    "2.2.1 login-action" "3 finalize"; do
	like "\"msg\": \"start: $a" "$LOG" "lava-run's log: the action $a"
done
like '"case": "job", "definition": "lava", "result": "pass"' "$LOG" \
    "lava-run's log: the LAVA job passed"
like "Matched prompt #[0-9]+: KPERFCI END" "$LOG" \
    "LAVA's boot ended on the guest's KPERFCI END"
DEF=$(dirname "$LOG")/job.yaml
like "prompts: \['KPERFCI END'\]" "$DEF" "the job definition waits for the end marker"
like "url: 'file://$T/l1.state/job-[0-9]+-1/initramfs.cpio'" "$DEF" \
    "it deploys the agent's initramfs"
ok "no pruning warnings" sh -c "! grep -E 'job-[0-9]+-[0-9]+: Directory not empty' '$T/l1.log'"
ok "lava-run removed its download directory" sh -c \
    "! ls -d /var/lib/lava/dispatcher/tmp/kperfci-$(cat "$T/l1.pid")-* 2>/dev/null | grep -q ."

ka_stop l1
ok "daemon stops" kd_stop
test_done
