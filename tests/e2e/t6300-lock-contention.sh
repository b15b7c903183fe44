#!/bin/sh
# t6300-lock-contention: lock contention as the kernel reports it, on the
# real reference kernel in qemu.  kperfcid and one qemu agent (TCG with
# icount, 2 sockets, 2 nodes, 4 vCPUs) run lock-profile's contention pass
# (the lock:contention_begin/end tracepoints read through perf_event_open,
# no perf binary) around fault-free shmem at all CPUs, once on the
# reference kernel and once on the lru-delay calibration kernel
# (patches/lru-delay.mbox: 20 us more under lru_lock per folio).
#
# Checked: the guest found tracefs and the tracepoints; the samples reach
# the daemon as ordinary samples (wait_share, wait_total, wait_count,
# wait_max per lock=NAME, and an "(all)" row); the lruvec lock has a row
# named lru_lock (it is allocated, so lockstat.c names it from the
# functions that take it: folio_lruvec_lock_irqsave, folio_batch_move_lru,
# folios_put_refs...) with a non-zero wait on both kernels, and no row is
# left with the guess "lru_lock?"; and its wait share is higher on the
# lru-delay kernel than on the base.  The agent has 4 vCPUs per node:
# lock:contention_begin fires only from a lock's third contender.  Under TCG with icount the vCPUs run one at a time, so the
# contention is emulated (a holder descheduled under the lock makes the
# others spin): the shares are printed, not asserted beyond "higher".
#
# Heavy: the shared reference build (kernel-lib.sh), an incremental build
# of lru-delay (seconds once cached) and two boots of about a minute.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"
. "$SRC/tests/kernel-lib.sh"

command -v qemu-system-x86_64 >/dev/null || skip_all "qemu-system-x86_64 missing"
command -v jq >/dev/null || skip_all "jq missing"
command -v bwrap >/dev/null || skip_all "bwrap missing"
[ -x /bin/busybox ] || skip_all "busybox-static missing"
[ -r "$KERNEL_TARBALL" ] || skip_all "linux-source-6.12 not installed"

BZ=$(kernel_ref_bzimage) || { echo "Bail out! reference build failed"; exit 1; }
LBZ=$(kernel_series_bzimage "$SRC/patches/lru-delay.mbox") ||
    { echo "Bail out! lru-delay build failed"; exit 1; }
ok "reference and lru-delay kernels built" test -s "$BZ" -a -s "$LBZ"

kd_config "[agents]\nlease = 300\n$(ka_section q1)"
ok "daemon starts" kd_start

upload_kernel() {	# upload_kernel FILE NOTE -> prints the kernel id
	kd_kernel_post "$1" "$2" | jq -r .id
}
KB=$(upload_kernel "$BZ" reference)
KL=$(upload_kernel "$LBZ" lru-delay)
ok "both kernels uploaded ($KB, $KL)" test "${KB:-0}" -ge 1 -a "${KL:-0}" -ge 1

cat >"$T/matrix.conf" <<'EOF'
# t6300: the contention pass alone, sized for a 4-vCPU TCG guest
[defaults]
seconds = 3
iterations = 1

[run "lock-contention-fault-free-shmem-all"]
workload = lock-profile
pass = contention
target = fault-free
mode = shmem
tasks = all
EOF

post_job() {	# post_job KERNEL_ID -> prints the job id
	body=$(jq -n --argjson k "$1" --rawfile m "$T/matrix.conf" \
	    '{kernel: $k, matrix: $m}')
	[ "$(api_post /api/v1/jobs "$body")" = 201 ] || return 1
	jq -r .id "$T/r.json"
}
JB=$(post_job "$KB")
JL=$(post_job "$KL")
ok "jobs queued (base $JB, lru-delay $JL)" test -n "$JB" -a -n "$JL"

ka_config q1 "[qemu]\naccel = tcg\nicount = shift=3,sleep=off\nsockets = 2\ncores-per-socket = 4\nmemory-per-node = 512\nboot-timeout = 180\njob-timeout = 900"
ka_start q1
ok "the agent registers" ka_wait_log q1 "registered as q1" 30
ok "base job done" ka_wait_job "$JB" done --secs 900
ok "lru-delay job done" ka_wait_job "$JL" done --secs 900
curl -s "$KD_URL/api/v1/jobs/$JB" >"$T/jb.json"
curl -s "$KD_URL/api/v1/jobs/$JL" >"$T/jl.json"
for j in JB JL; do
	eval id=\$$j
	curl -s "$KD_URL/api/v1/jobs/$id/console?attempt=1" >"$T/$j.console"
	echo "# $j console: $(grep -a 'lock-contention:' "$T/$j.console" | tail -1)"
done

# every lock row as "share name"
shares() {
	jq -r '.samples[] | select(.workload == "lock-profile" and
	    .metric == "wait_share") | "\(.value) \(.params)"' "$1" |
	    sed 's/^\([^ ]*\) .*lock=\([^,]*\).*/\1 \2/' | sort -rn
}
shares "$T/jb.json" >"$T/jb.shares"
shares "$T/jl.json" >"$T/jl.shares"
echo "# base locks (wait share %, lock):"
head -8 "$T/jb.shares" | sed 's/^/#   /'
echo "# lru-delay locks:"
head -8 "$T/jl.shares" | sed 's/^/#   /'

ok "base: contention samples reached the daemon" grep -q . "$T/jb.shares"
is "$(jq -r '[.samples[] | select(.workload == "lock-profile") | .metric] |
    unique | join(",")' "$T/jb.json")" \
    "wait_count,wait_max,wait_share,wait_total" \
    "four metrics per lock"
ok "an (all) row" grep -q ' (all)$' "$T/jb.shares"

# lru_lock: the row of that name (every caller of the lruvec lock)
lru_share() {
	awk '$2 == "lru_lock" { s += $1 } END { printf "%.4f\n", s + 0 }' "$1"
}
ok "lru-delay: a row named lru_lock" grep -q ' lru_lock$' "$T/jl.shares"
ok "no row named by the guess lru_lock?" sh -c \
    "! grep -q ' lru_lock?' '$T/jb.shares' '$T/jl.shares'"
B=$(lru_share "$T/jb.shares")
L=$(lru_share "$T/jl.shares")
echo "# lru_lock wait share: base $B %, lru-delay $L %"
ok "base: lru_lock has a non-zero wait" \
    awk -v b="$B" 'BEGIN { exit !(b > 0) }'
ok "lru-delay: lru_lock has a non-zero wait" \
    awk -v l="$L" 'BEGIN { exit !(l > 0) }'
ok "lru-delay: lru_lock's wait share is higher than the base's ($L > $B)" \
    awk -v b="$B" -v l="$L" 'BEGIN { exit !(l > b) }'
is "$(jq -r '[.samples[] | select(.metric == "wait_count" and
    (.params | test("lock=lru_lock"))) | .value > 0] |
    length > 0 and all' "$T/jl.json")" \
    true "lru_lock rows count their waits"

ok "daemon stops" kd_stop
test_done
