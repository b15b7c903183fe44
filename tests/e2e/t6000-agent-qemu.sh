#!/bin/sh
# t6000-agent-qemu: kperfcid and real qemu agents on loopback with the
# reference kernel (tests/kernel-lib.sh, built by the project's own code).
#
#  1. a job with the default matrix (etc/workloads.conf): every workload
#     runs inside the guest, the guest sees 2 sockets / 2 NUMA nodes, the
#     samples and the lock profile reach the daemon and the API;
#  2. a kernel that panics at boot ends as boot-failed with its console log.
#     The kernel is the reference tree plus patches/boot-panic.mbox, built
#     incrementally through `kperfci build`; should that build fail, the
#     reference kernel is booted with rdinit=/nonexistent instead (no init:
#     the kernel panics) and the test says so;
#     A kernel that hangs before the workloads (init is an interactive
#     shell waiting on the console: rdinit=/bin/sh) ends boot-failed when the
#     boot timeout passes without the guest's ready marker;
#  3. an agent killed mid-job (SIGKILL, its qemu too) loses its short lease,
#     the job is re-queued and a second agent completes it.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"
. "$SRC/tests/kernel-lib.sh"

command -v qemu-system-x86_64 >/dev/null || skip_all "qemu-system-x86_64 missing"
command -v jq >/dev/null || skip_all "jq missing"
[ -x /bin/busybox ] || skip_all "busybox-static missing"

BZ=$(kernel_ref_bzimage) || { echo "not ok 1 - reference kernel"; exit 1; }

kd_config "[agents]\nlease = 15\n$(ka_section q1 q2)"
ok "daemon starts" kd_start

upload_kernel() {	# upload_kernel FILE -> prints the kernel id
	kd_kernel_post "$1" "$2" | jq -r .id
}
KID=$(upload_kernel "$BZ" reference)
ok "reference kernel uploaded" test "$KID" -ge 1

# ---- 1. the default matrix in a 2-node guest --------------------------------
ka_config q1 "[qemu]\naccel = auto\nboot-timeout = 60\njob-timeout = 1500"
is "$(api_post /api/v1/jobs "{\"kernel\": $KID}")" 201 "job with the default matrix"
J1=$(jq -r .id "$T/r.json")
ka_start q1
ok "the agent registers" ka_wait_log q1 "registered as q1" 20
curl -s "$KD_URL/api/v1/agents" >"$T/agents.json"
is "$(jq -r '.agents[0] | "\(.sockets) \(.nodes) \(.cpus)"' "$T/agents.json")" \
    "2 2 4" "agents API: a 2-socket, 2-node, 4-CPU machine"
ok "KVM probed once (and remembered)" ka_wait_log q1 "KVM probe|/dev/kvm not usable" 60
ok "job 1 done" ka_wait_job "$J1" done --secs 1500
curl -s "$KD_URL/api/v1/jobs/$J1" >"$T/j1.json"
is "$(jq -r '.attempts_detail[0].topology | "\(.sockets) \(.nodes) \(.cpus) \(.node_cpus | join(" "))"' "$T/j1.json")" \
    "2 2 4 0-1 2-3" "the guest saw 2 sockets, 2 nodes, 4 CPUs (0-1, 2-3)"
# Every workload of the default matrix has samples (lock-profile: a profile).
for w in $(sed -n 's/^workload = //p' "$SRC/etc/workloads.conf" | sort -u); do
	if [ "$w" = lock-profile ]; then
		is "$(jq -r '.profiles | length >= 1' "$T/j1.json")" true \
		    "lock profile stored"
		continue
	fi
	n=$(jq -r --arg w "$w" '[.samples[] | select(.workload == $w)] | length' "$T/j1.json")
	ok "workload $w ran in the guest ($n samples)" test "$n" -ge 1
done
is "$(jq -r '[.samples[] | select(.value | type != "number")] | length' "$T/j1.json")" \
    0 "every sample has a numeric value"
curl -s "$KD_URL/api/v1/jobs/$J1/console?attempt=1" >"$T/console1"
like "Linux version" "$T/console1" "console log kept"
ok "the agent's accel answer is remembered" test -s "$T/q1.state/accel"

# ---- 2. a kernel that panics at boot ------------------------------------------
panic_bzimage() {	# builds ref + boot-panic.mbox; prints its bzImage
	repo=$(kernel_ref_tree) || return 1
	export GIT_INDEX_FILE="$T/panic.index"
	git -C "$repo" read-tree master || return 1
	git -C "$repo" apply --cached "$SRC/patches/boot-panic.mbox" || return 1
	tree=$(git -C "$repo" write-tree) || return 1
	unset GIT_INDEX_FILE
	# Fixed identity and dates: the same commit every run, so the build
	# cache serves it after the first time.
	c=$(GIT_AUTHOR_NAME=kperfci GIT_AUTHOR_EMAIL=t@kperfci \
	    GIT_COMMITTER_NAME=kperfci GIT_COMMITTER_EMAIL=t@kperfci \
	    GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' \
	    GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
	    git -C "$repo" commit-tree "$tree" -p master \
	    -m "calibration: boot panic") || return 1
	out=$(_kernel_locked "$KPERFCI_BIN/kperfci" build --quiet --tree "$repo" \
	    --commit "$c" --base master --cache "$(kernel_cache_dir)/builds" \
	    $(kernel_ref_config_args) --jobs "${KPERFCI_TEST_JOBS:-2}") || return 1
	dir=${out##* dir=}
	[ -f "$dir/bzImage" ] && echo "$dir/bzImage"
}
if PBZ=$(panic_bzimage 2>"$T/panic-build.err"); then
	echo "# panic kernel: reference + patches/boot-panic.mbox ($PBZ)"
	PKID=$(upload_kernel "$PBZ" boot-panic)
	PJOB="{\"kernel\": $PKID}"
else
	echo "# boot-panic.mbox did not build ($(tail -1 "$T/panic-build.err"));"
	echo "# booting the reference kernel with rdinit=/nonexistent instead"
	PJOB="{\"kernel\": $KID, \"cmdline\": \"rdinit=/nonexistent\"}"
fi
is "$(api_post /api/v1/jobs "$PJOB")" 201 "job for the panicking kernel"
J2=$(jq -r .id "$T/r.json")
ok "it ends boot-failed" ka_wait_job "$J2" boot-failed --secs 300
curl -s "$KD_URL/api/v1/jobs/$J2" >"$T/j2.json"
like '"reason": "Kernel panic' "$T/j2.json" "the reason is the panic line"
is "$(jq -r .attempts "$T/j2.json")" 1 "not retried"
curl -s "$KD_URL/api/v1/jobs/$J2/console?attempt=1" >"$T/console2"
like "Kernel panic - not syncing" "$T/console2" "console log with the panic"
curl -s "$KD_URL/jobs/$J2" >"$T/j2.html"
like "boot-failed" "$T/j2.html" "job page says boot-failed"

is "$(api_post /api/v1/jobs "{\"kernel\": $KID, \"cmdline\": \"rdinit=/bin/sh\"}")" \
    201 "job whose init never reaches the workloads"
JH=$(jq -r .id "$T/r.json")
ok "it ends boot-failed after the boot timeout" ka_wait_job "$JH" boot-failed --secs 300
curl -s "$KD_URL/api/v1/jobs/$JH" >"$T/jh.json"
like "no ready marker" "$T/jh.json" "the reason names the missing ready marker"
curl -s "$KD_URL/api/v1/jobs/$JH/console?attempt=1" >"$T/consoleh"
like "Run /bin/sh as init process" "$T/consoleh" "console log shows where it stopped"

# ---- 3. an agent killed mid-job ------------------------------------------
printf '[defaults]\nseconds = 1\niterations = 3\nwarmup = 1\n\n[run "ff"]\nworkload = fault-free\nmode = anon\ntasks = node\n\n[run "pf"]\nworkload = page-fault\ntasks = all\n' \
    >"$T/small.conf"
is "$(api_post /api/v1/jobs "$(jq -n --rawfile m "$T/small.conf" --argjson k "$KID" '{kernel: $k, matrix: $m}')")" \
    201 "job 3 (a small matrix)"
J3=$(jq -r .id "$T/r.json")
ok "q1 runs it" sh -c "i=0; while [ \$i -lt 600 ]; do
	[ \"\$(curl -s $KD_URL/api/v1/jobs/$J3 | jq -r .progress)\" = running ] && exit 0
	sleep 0.2; i=\$((i+1)); done; exit 1"
AP=$(cat "$T/q1.pid")
QP=$(pgrep -P "$AP" || :)
ok "q1's qemu found" test -n "$QP"
kill -KILL "$AP"
[ -n "$QP" ] && kill -KILL $QP
wait "$AP" 2>/dev/null
rm -f "$T/q1.pid"
ka_config q2 "[qemu]\naccel = tcg\nboot-timeout = 120"
ka_start q2
ok "the job is re-queued and q2 completes it" ka_wait_job "$J3" done --secs 400
curl -s "$KD_URL/api/v1/jobs/$J3" >"$T/j3.json"
is "$(jq -r '[.attempts_detail[] | "\(.attempt):\(.agent):\(.status)"] | join(" ")' "$T/j3.json")" \
    "1:q1:expired 2:q2:done" "attempt 1 expired with q1, attempt 2 done by q2"
is "$(jq -r '[.samples[] | .attempt] | unique | join(",")' "$T/j3.json")" 2 \
    "samples only from attempt 2"
ka_stop q2
ok "daemon stops" kd_stop
test_done
