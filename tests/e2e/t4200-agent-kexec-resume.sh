#!/bin/sh
# t4200-agent-kexec-resume: a real kperfci-agent with backend = kexec,
# started the way systemd starts it after a reboot, with the job file the
# agent writes before `systemctl kexec` already in its state directory.
# This machine never boots the job kernel (we are in the "home" kernel: no
# kperfci.job= marker on /proc/cmdline), which is exactly the case of a job
# kernel that panicked and came back through the firmware: the job must be
# recorded as boot-failed, not retried.  A reboot during the workloads is
# recorded as failed.  A kexec that cannot load is reported and the lease
# let go.  The kexec, exec and reboot commands are /bin/false: whatever
# happens, this test cannot reboot the machine.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"

command -v jq >/dev/null || skip_all "jq missing"
grep -q 'kperfci.job=' /proc/cmdline && skip_all "running inside a job kernel"

kd_config "[agents]\nlease = 60\nmax_attempts = 2\n$(ka_section k1)"
ok "daemon starts" kd_start
ka_fake_bzimage "$T/bz"
KID=$(kd_kernel_post "$T/bz" | jq -r .id)
ka_config k1 "backend = kexec\nkeep = 3\n[kexec]\nbinary = /bin/false\nexec = /bin/false\nreboot = /bin/false\nappend = root=/dev/sda1 ro"
mkdir -p "$T/k1.state"

# The agent registers this machine's own topology (kexec: no emulation).
REG=$(jq -n --argjson t "$(jq -n '{sockets:1,nodes:1,cpus:1,cpu_model:"x",memory_mb:1}')" \
    '{agent:"k1", backend:"kexec", topology:$t}')
api_post /api/v1/agents/register "$REG" k1 >/dev/null

# persist JOBID PHASE: writes the job file as the agent would have.
persist() {
	jq -n --argjson j "$(jq .job "$T/lease.json")" --arg p "$2" \
	    '{phase: $p, job: $j, release: "6.12.0-kperfci"}' >"$T/k1.state/job.json"
}
lease_one() {
	api_post /api/v1/jobs "{\"kernel\": $KID, \"matrix\": \"x\"}" >/dev/null
	J=$(jq -r .id "$T/r.json")
	api_post /api/v1/agents/lease '{"agent":"k1"}' k1 >/dev/null
	cp "$T/r.json" "$T/lease.json"
	is "$(jq -r .job.id "$T/lease.json")" "$J" "job $J leased to k1"
}

# ---- came back in the home kernel while booting the job kernel ------------
lease_one
J1=$J
persist "$J1" booting
# Old kernels and job directories, oldest first: only `keep` (3) survive
# the next upload.
mkdir -p "$T/k1.state/kernels"
for i in 1 2 3 4 5 6; do
	: >"$T/k1.state/kernels/old$i.bzImage"
	mkdir -p "$T/k1.state/job-9$i-1"
	: >"$T/k1.state/job-9$i-1/console.log"
	touch -d "@$((1700000000 + i * 100))" "$T/k1.state/kernels/old$i.bzImage" \
	    "$T/k1.state/job-9$i-1"
done
ka_start k1 --once
ok "the agent handles the job and exits (--once)" sh -c "
	i=0; while kill -0 \$(cat '$T/k1.pid') 2>/dev/null; do
		[ \$i -gt 300 ] && exit 1; sleep 0.1; i=\$((i+1)); done"
ka_stop k1
curl -s "$KD_URL/api/v1/jobs/$J1" >"$T/j1.json"
is "$(jq -r .state "$T/j1.json")" boot-failed "job $J1: boot-failed"
like "the job kernel 6.12.0-kperfci did not come up; the machine is back in $(uname -r)" \
    "$T/j1.json" "the reason names both kernels"
is "$(jq -r .attempts "$T/j1.json")" 1 "not retried"
like '"phase":"idle"' "$T/k1.state/job.json" "the job file is back to idle"
is "$(cd "$T/k1.state/kernels" && ls | sort | tr '\n' ' ')" \
    "old4.bzImage old5.bzImage old6.bzImage " "the 3 newest kernels are kept"
is "$(cd "$T/k1.state" && ls -d job-* | sort | tr '\n' ' ')" \
    "job-94-1 job-95-1 job-96-1 " "the 3 newest job directories are kept"
ok "nothing was loaded or rebooted" sh -c "! grep -Eq 'kexec -l|returning to the home' '$T/k1.log'"
curl -s "$KD_URL/api/v1/agents" >"$T/agents.json"
is "$(jq -r '.agents[0].backend' "$T/agents.json")" kexec "registered as a kexec agent"
HOSTSOCK=$(cat /sys/devices/system/cpu/cpu[0-9]*/topology/physical_package_id | sort -u | wc -l)
is "$(jq -r '.agents[0].sockets' "$T/agents.json")" "$HOSTSOCK" \
    "with this machine's own socket count"
is "$(jq -r '.agents[0].cpus' "$T/agents.json")" "$(getconf _NPROCESSORS_ONLN)" \
    "and CPU count"

# ---- rebooted while the workloads ran --------------------------------------
lease_one
J2=$J
persist "$J2" running
: >"$T/k1.log"
ka_start k1 --once
ok "the agent handles it and exits" sh -c "
	i=0; while kill -0 \$(cat '$T/k1.pid') 2>/dev/null; do
		[ \$i -gt 300 ] && exit 1; sleep 0.1; i=\$((i+1)); done"
ka_stop k1
curl -s "$KD_URL/api/v1/jobs/$J2" >"$T/j2.json"
is "$(jq -r .state "$T/j2.json")" failed "job $J2: failed"
like "rebooted while the workloads ran" "$T/j2.json" "reason says so"

# ---- a kexec that cannot load ------------------------------------------------
api_post /api/v1/jobs "{\"kernel\": $KID, \"matrix\": \"x\"}" >/dev/null
J3=$(jq -r .id "$T/r.json")
: >"$T/k1.log"
ka_start k1
ok "the agent leases the job and downloads the kernel" ka_wait_log k1 "job $J3: kernel [0-9a-f]{64} \(6.12.0-fake\) verified" 20
ok "the failed kexec -l is reported" ka_wait_log k1 "job $J3: kexec -l failed" 20
ok "its cmdline carries the job marker" ka_wait_log k1 "command-line=root=/dev/sda1 ro kperfci.job=$J3.1" 5
ok "the job fails after max_attempts" ka_wait_job "$J3" failed --secs 30
ok "the agent is still running" kill -0 "$(cat "$T/k1.pid")"
ka_stop k1
ok "daemon stops" kd_stop
test_done
