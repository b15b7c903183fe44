#!/bin/sh
# t7700-lava-server: the calibration's boots run by a real LAVA instance.
# tests/lava-lib.sh sets up Debian's lava-server 2023.01 in the test's
# directory (its own PostgreSQL, the server on loopback, the scheduler,
# one lava-worker with one qemu device: tests/fixtures/lava/
# qemu-device.jinja2, the t7000 qemu agent's machine).  kperfcid's one
# agent is a LAVA bridge (backend = lava, [lava] url): it leases jobs as
# any agent does and submits each to the server's REST API, polls it and
# reads its log back (agents/lava_server.c).
#
# Checked, on the fewest boots that decide (3 a side, 6 when the first 3
# leave a row undecided):
#   - the lru-delay series comes out a regression and the no-op series no
#     change, as on the qemu agent (t7000) and through lava-run (t7600);
#   - every boot was a LAVA job of this server, on device kq01, Complete,
#     its log read back (the guest's END among its console lines);
#   - the server down for a while in the middle of a job: the bridge asks
#     again with backoff and the job's result is not lost;
#   - a LAVA job the lab cancels (an infrastructure failure, for kperfci;
#     its device in maintenance, so the job is still queued) is given
#     back and runs again: attempt 1 released, attempt 2 done;
#   - a bridge killed and restarted follows the LAVA job it had
#     submitted instead of submitting another;
#   - cancelling a series cancels its LAVA job (health Canceled);
#   - a kernel that panics at boot is boot-failed, with the panic in the
#     console LAVA read, and not retried;
#   - a token whose sha256 is not token-sha256 is refused by -n.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"
. "$SRC/tests/kernel-lib.sh"
. "$SRC/tests/lava-lib.sh"

lava_skip_unless_installed
for c in qemu-system-x86_64 bwrap jq; do
	command -v $c >/dev/null || skip_all "$c not installed"
done
[ -x /bin/busybox ] || skip_all "busybox-static not installed"
[ -r "$KERNEL_TARBALL" ] || skip_all "linux-source-6.12 not installed"

BOOTS=3

REPO=$(kernel_ref_tree) || { echo "Bail out! no reference tree"; exit 1; }
BZ=$(kernel_ref_bzimage) || { echo "Bail out! reference build failed"; exit 1; }
for p in lru-delay noop; do
	kernel_series_bzimage "$SRC/patches/$p.mbox" >/dev/null ||
	    { echo "Bail out! $p build failed"; exit 1; }
done
ok "reference, lru-delay and no-op kernels built (cached)" test -s "$BZ"

cp "$SRC/tests/fixtures/fault-free-1s.conf" "$T/matrix.conf"

# ---- the LAVA instance ---------------------------------------------------------
T0=$(date +%s)
ok "a LAVA instance starts: PostgreSQL, server, scheduler, worker w1 online" \
    lava_start "$SRC/tests/fixtures/lava/qemu-device.jinja2"
echo "# LAVA set up in $(($(date +%s) - T0)) s"
is "$(lava_api devices/kq01/ | jq -r '"\(.device_type) \(.health) \(.worker_host)"')" \
    "qemu Good w1" "its device kq01: type qemu, health Good, on worker w1"

# ---- kperfcid and the bridge agent ---------------------------------------------
kd_config "[tree \"linux-6.12\"]\npath = $REPO\nbranch = master\nconfig = tinyconfig\nfragment = $SRC/etc/kconfig/perf.config\nfragment = $SRC/etc/kconfig/qemu.config\n[build]\ncache = $(kernel_cache_dir)/builds\njobs = ${KPERFCI_TEST_JOBS:-2}\ntimeout = 3600\n[agents]\nlease = 60\n[sched]\nboots = $BOOTS\nboot_step = $BOOTS\nmax_boots = $((2 * BOOTS))\nmatrix = $T/matrix.conf\n$(ka_section l1)"
ok "kperfcid starts" kd_start
SHA=$(sha256sum "$LAVA_TOKEN_FILE" | cut -d' ' -f1)
LAVA_CONF="backend = lava\nkeep = 64\n[lava]\nurl = $LAVA_URL/\ntoken-file = $LAVA_TOKEN_FILE\ndevice-type = qemu\nsockets = 2\ncores-per-socket = 2\nmemory-per-node = 1024\nboot-timeout = 180\njob-timeout = 600\nqueue-timeout = 900"
ka_config l1 "$LAVA_CONF\ntoken-sha256 = 0000$(echo "$SHA" | cut -c5-)"
"$KPERFCI_BIN/kperfci-agent" -n -c "$T/l1.conf" >"$T/n.out" 2>&1
is "$?" 1 "-n: a token file that is not token-sha256's is refused"
like "token-file .* does not match token-sha256" "$T/n.out" "and the error says so"
ka_config l1 "$LAVA_CONF\ntoken-sha256 = $SHA"
ok "-n: the server mode's config is accepted" sh -c \
    "'$KPERFCI_BIN/kperfci-agent' -n -c '$T/l1.conf' | grep -q 'through the LAVA server $LAVA_URL'"
ka_start l1
ok "the agent registers" ka_wait_log l1 "registered as l1" 60
curl -fs "$KD_URL/api/v1/agents" >"$T/agents.json"
is "$(jq -r '.agents[] | select(.name == "l1") | "\(.backend) \(.sockets) \(.nodes) \(.cpus)"' "$T/agents.json")" \
    "lava 2 2 4" "agents API: backend lava, the device's 2 sockets, 2 nodes, 4 CPUs"

# lava_jobs_where JQ: the number of this server's jobs matching JQ
lava_jobs_where() {
	lava_api "jobs/?limit=100&ordering=id" | jq "[.results[] | select($1)] | length"
}
# wait_lava_running N SECS: until LAVA job N is Running
wait_lava_running() {
	i=0
	while [ $i -lt "$2" ]; do
		[ "$(lava_api "jobs/$1/" | jq -r .state)" = Running ] && return 0
		sleep 1
		i=$((i + 1))
	done
	echo "# LAVA job $1: $(lava_api "jobs/$1/" | jq -c '{state, health}')"
	return 1
}
# wait_lava_id N SECS: until the bridge has submitted its Nth LAVA job;
# prints that job's id
wait_lava_id() {
	i=0
	while [ $i -lt "$2" ]; do
		id=$(grep -o 'LAVA job [0-9]* on ' "$T/l1.log" | sed -n "$1p" |
		    cut -d' ' -f3)
		[ -n "$id" ] && { echo "$id"; return 0; }
		sleep 1
		i=$((i + 1))
	done
	return 1
}
submit_bg() {
	timeout 2400 "$KPERFCI_BIN/kperfci" -s "$KD_URL" submit \
	    --mbox "$SRC/patches/$1.mbox" --wait >"$T/$1.out" 2>"$T/$1.err"
	echo $? >"$T/$1.rc"
}

# ---- lru-delay, the server down in the middle of a job ----------------------
T0=$(date +%s)
submit_bg lru-delay &
SUB=$!
J1=$(wait_lava_id 1 1200)
ok "the bridge submitted the first boot to LAVA" test -n "$J1"
ok "LAVA runs it" wait_lava_running "$J1" 300
lava_server_stop
sleep 15
ok "with the server down, the bridge asks again with backoff" \
    grep -q "LAVA job $J1: .*asking again in [0-9]* s" "$T/l1.log"
ok "the server is back" lava_server_start
wait $SUB
is "$(cat "$T/lru-delay.rc")" 0 "submit --wait: the lru-delay run finished (exit 0)"
echo "# lru-delay: $(($(date +%s) - T0)) s; last lines:"
tail -8 "$T/lru-delay.out" | sed 's/^/#   /'
LRU=$(head -1 "$T/lru-delay.out")
curl -fs "$KD_URL/api/v1/series/$LRU/comparison" >"$T/lru.json"
echo "# fault-free: $(jq -c '[.rows[] | select(.workload == "fault-free") | {metric, pct_change, verdict}]' "$T/lru.json")"
is "$(jq -r '[.rows[] | select(.workload == "fault-free" and .metric == "pages_per_sec") | .verdict] | join(",")' "$T/lru.json")" \
    regression "lru-delay: the fault-free row (pages/s) is a regression, as on the qemu agent"
is "$(jq -r .verdict "$T/lru.json")" regression "lru-delay: the verdict is regression"
ok "lru-delay: the machine is the LAVA device's class (2 sockets, 2 nodes, 4 CPUs)" \
    jq -e '.machine.class | test("^2s-2n-4c-")' "$T/lru.json"
N_LRU=$(jq -r '.progress.base.done + .progress.patched.done' "$T/lru.json")
is "$(lava_jobs_where '.health == "Complete" and .actual_device == "kq01" and (.description | startswith("kperfci-"))')" \
    "$N_LRU" "every lru-delay boot ($N_LRU) is a Complete LAVA job on kq01"
ok "the job whose server went away still has its result" sh -c \
    "grep -q 'LAVA job $J1 finished: Complete' '$T/l1.log'"
is "$(grep -c 'LAVA server: [0-9]* log lines, the guest ran (LAVA server: job passed)' "$T/l1.log")" \
    "$N_LRU" "each LAVA job's log was read back: the guest ran, the job passed"

# lava_health HEALTH: the lab sets device kq01's health (MAINTENANCE: it
# takes no job, so a LAVA job stays queued as long as the test needs;
# a guest here runs in seconds, too fast to cancel reliably while it runs)
lava_health() {
	lava-server manage devices update --health "$1" kq01 >>"$LAVA_D/setup.log" 2>&1
}

# ---- noop, one of its LAVA jobs cancelled by the lab --------------------------
T0=$(date +%s)
ok "the lab puts kq01 in maintenance" lava_health MAINTENANCE
submit_bg noop &
SUB=$!
J2=$(wait_lava_id $((N_LRU + 1)) 1200)
ok "noop's first boot is a LAVA job" test -n "$J2"
is "$(lava_api "jobs/$J2/" | jq -r .state)" Submitted "it waits in LAVA's queue"
ok "the lab cancels it (LAVA's REST API)" lava_api "jobs/$J2/cancel/"
ok "the bridge gives the job back" ka_wait_log l1 "given back: .*LAVA job $J2" 120
ok "the lab puts kq01 back" lava_health GOOD
wait $SUB
is "$(cat "$T/noop.rc")" 0 "submit --wait: the no-op run finished (exit 0)"
echo "# noop: $(($(date +%s) - T0)) s"
NOOP=$(head -1 "$T/noop.out")
curl -fs "$KD_URL/api/v1/series/$NOOP/comparison" >"$T/noop.json"
echo "# fault-free: $(jq -c '[.rows[] | select(.workload == "fault-free") | {metric, pct_change, verdict}]' "$T/noop.json")"
is "$(jq -r .verdict "$T/noop.json")" "no change" "noop: the verdict is no change, as on the qemu agent"
is "$(lava_api "jobs/$J2/" | jq -r '"\(.state) \(.health)"')" "Finished Canceled" \
    "LAVA job $J2 ended Canceled"
curl -fs "$KD_URL/api/v1/jobs" >"$T/jobs.json"
is "$(jq -r '[.jobs[] | select(.attempts > 1)] | length' "$T/jobs.json")" 1 \
    "one kperfci job ran twice: the boot the lab cancelled"
KJ=$(jq -r '[.jobs[] | select(.attempts > 1) | .id] | first // empty' "$T/jobs.json")
curl -fs "$KD_URL/api/v1/jobs/$KJ" >"$T/kj.json"
is "$(jq -r '[.attempts_detail[] | .status] | join(",")' "$T/kj.json")" "released,done" \
    "its attempts: the first given back, the second done"
like "Canceled" "$T/kj.json" "the given-back attempt says LAVA's Canceled"

# ---- a cancelled series cancels its LAVA job ------------------------------------
N=$(grep -c 'LAVA job [0-9]* on ' "$T/l1.log")
ok "kq01 in maintenance again" lava_health MAINTENANCE
"$KPERFCI_BIN/kperfci" -s "$KD_URL" submit --mbox "$SRC/patches/lru-delay.mbox" \
    --no-follow >"$T/again.out" 2>"$T/again.err"
is "$?" 0 "the lru-delay mbox submitted again (--no-follow)"
RE=$(head -1 "$T/again.out")
J3=$(wait_lava_id $((N + 1)) 600)
ok "its first boot is a LAVA job" test -n "$J3"
is "$(lava_api "jobs/$J3/" | jq -r .state)" Submitted "queued in LAVA"
# the bridge killed and started again meanwhile: it resumes the job and
# follows the LAVA job it submitted, not a second one
ka_stop l1 KILL
ka_start l1
ok "restarted, the bridge follows LAVA job $J3 again" \
    ka_wait_log l1 "following LAVA job $J3 again" 120
is "$(grep -c 'LAVA job [0-9]* on ' "$T/l1.log")" $((N + 1)) \
    "and submitted no second LAVA job"
KPERFCI_TOKEN=$KD_ADMIN_TOKEN "$KPERFCI_BIN/kperfci" -s "$KD_URL" cancel "$RE" \
    >"$T/cancel.out" 2>&1
is "$?" 0 "kperfci cancel: the series is cancelled"
ok "the bridge cancels its LAVA job" ka_wait_log l1 "LAVA job $J3 cancelled \\(lease lost\\)" 120
ok "LAVA says Canceled" wait_field "$LAVA_URL/api/v0.2/jobs/$J3/" .health 120 Canceled
ok "kq01 back" lava_health GOOD

# ---- a kernel panic through LAVA: boot-failed, with the console -------------
# The reference kernel told to run an init that is not there panics at
# boot: a real panic, seen through LAVA's console.
KID=$(kd_kernel_post "$BZ" reference | jq -r .id)
is "$(api_post /api/v1/jobs "{\"kernel\": $KID, \"cmdline\": \"rdinit=/nonexistent root=/dev/nonexistent\"}")" \
    201 "a job whose kernel panics at boot"
JP=$(jq -r .id "$T/r.json")
ok "through LAVA it ends boot-failed" ka_wait_job "$JP" boot-failed --secs 600
curl -fs "$KD_URL/api/v1/jobs/$JP" >"$T/jp.json"
like '"reason": "Kernel panic' "$T/jp.json" "the reason is the panic line"
is "$(jq -r .attempts "$T/jp.json")" 1 "not retried (the kernel's fault, not the lab's)"
curl -fs "$KD_URL/api/v1/jobs/$JP/console?attempt=1" >"$T/console-panic"
like "Kernel panic - not syncing" "$T/console-panic" "its console, as LAVA read it, has the panic"

ka_stop l1
ok "daemon stops" kd_stop
test_done
