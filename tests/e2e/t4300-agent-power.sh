#!/bin/sh
# t4300-agent-power: power control of a machine that hangs, without a
# machine.  [agent "k1"] power_cycle is tests/qmp-reset talking to a fake
# QMP socket.  A kexec agent leases a job and goes silent (as a machine
# whose job kernel hung does): the lease runs out and, power_margin
# seconds later, the daemon runs the command once, records the cycle and
# the job is boot-failed (never re-queued); the job's page and JSON show
# the cycle; the agent, back in its home kernel, brings the console, which
# is kept.  A second hang within the hour is past power_max_per_hour: not
# cycled, said so.  An agent without power_cycle keeps the old rule: its
# expired lease is re-queued.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"

command -v jq >/dev/null || skip_all "jq missing"
command -v python3 >/dev/null || skip_all "python3 missing"

# A fake qemu QMP socket: greets, says yes, notes each command.
python3 - "$T/qmp.sock" "$T/qmp.log" <<'EOF2' &
import json, os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(4)
while True:
    c, _ = s.accept()
    f = c.makefile("rw")
    f.write(json.dumps({"QMP": {"version": {}, "capabilities": []}}) + "\n"); f.flush()
    for line in f:
        cmd = json.loads(line)["execute"]
        with open(sys.argv[2], "a") as log:
            log.write(cmd + "\n")
        f.write(json.dumps({"return": {}}) + "\n"); f.flush()
    c.close()
EOF2
QMP_PID=$!
stop_qmp() { kill "$QMP_PID" 2>/dev/null; wait "$QMP_PID" 2>/dev/null; return 0; }
at_exit stop_qmp

POWER="power_cycle = python3 $SRC/tests/qmp-reset $T/qmp.sock\npower_margin = 2\npower_max_per_hour = 1\npower_timeout = 10"
kd_config "[agents]\nlease = 2\nmax_attempts = 3\n$(ka_section k1)$POWER\n$(ka_section k2)"
ok "daemon starts" kd_start
ka_fake_bzimage "$T/bz"
KID=$(kd_kernel_post "$T/bz" | jq -r .id)
for a in k1 k2; do
	api_post /api/v1/agents/register "$(jq -n --arg a $a '{agent:$a, backend:"kexec",
	    topology:{sockets:1,nodes:1,cpus:1,cpu_model:"x",memory_mb:1}}')" $a >/dev/null
done

new_job() {
	api_post /api/v1/jobs "{\"kernel\": $KID, \"matrix\": \"x\"}" >/dev/null
	jq -r .id "$T/r.json"
}
lease() {
	api_post /api/v1/agents/lease "{\"agent\":\"$1\"}" "$1" >/dev/null
	jq -r .job.id "$T/r.json"
}

# ---- a machine that hangs: power-cycled once, the job boot-failed ---------
J1=$(new_job)
is "$(lease k1)" "$J1" "k1 leases job $J1 and goes silent"
ok "job $J1 is boot-failed after lease + margin" ka_wait_job "$J1" boot-failed --secs 20
curl -s "$KD_URL/api/v1/jobs/$J1" >"$T/j1.json"
is "$(jq -r .attempts "$T/j1.json")" 1 "never re-queued (one attempt)"
like "agent k1 missed its lease by [0-9]+ s \\(last progress: leased\\): power-cycled with .python3 $SRC/tests/qmp-reset $T/qmp.sock. \\(exit 0\\)" \
    "$T/j1.json" "the reason says what happened"
is "$(jq -r '.power_cycles | length' "$T/j1.json")" 1 "one power cycle recorded"
is "$(jq -r '.power_cycles[0].status' "$T/j1.json")" "exit 0" "with its status"
is "$(jq -r '.attempts_detail[0].status' "$T/j1.json")" boot-failed "the attempt too"
is "$(grep -c system_reset "$T/qmp.log")" 1 "qemu got one system_reset"
ok "the daemon log says it" grep -q "job $J1: agent k1 missed its lease by .*; power-cycling" "$T/kperfcid.log"
curl -s "$KD_URL/jobs/$J1" >"$T/j1.html"
like "<h2>Power cycles</h2>" "$T/j1.html" "the job's page lists the cycle"
like "<code>python3 $SRC/tests/qmp-reset $T/qmp.sock</code>" "$T/j1.html" "with its command"

# Back in its home kernel the agent reports boot-failed with the console.
UP='{"agent":"k1","attempt":1,"status":"boot-failed","reason":"the job kernel did not come up","samples":[],"console":"[ 1.0] Kernel panic - not syncing: VFS: Unable to mount root fs\n"}'
is "$(api_post /api/v1/jobs/$J1/results "$UP" k1)" 200 "the late console is accepted"
curl -s "$KD_URL/api/v1/jobs/$J1/console?attempt=1" >"$T/c1.txt"
like "Kernel panic - not syncing: VFS: Unable to mount root fs" "$T/c1.txt" "and served as the attempt's console"
is "$(curl -s "$KD_URL/api/v1/jobs/$J1" | jq -r .state)" boot-failed "the job stays boot-failed"
is "$(api_post /api/v1/jobs/$J1/results "$UP" k1)" 409 "a second upload is a duplicate"
is "$(api_post /api/v1/jobs/$J1/results "$(printf %s "$UP" | sed 's/"k1"/"k2"/')" k2)" 409 \
    "another agent's is refused"

# ---- the same machine hangs again within the hour: not cycled -------------
J2=$(new_job)
is "$(lease k1)" "$J2" "k1 leases job $J2 and goes silent"
ok "job $J2 is boot-failed" ka_wait_job "$J2" boot-failed --secs 20
curl -s "$KD_URL/api/v1/jobs/$J2" >"$T/j2.json"
like "not power-cycled, 1 cycles in the last hour \\(power_max_per_hour = 1\\)" \
    "$T/j2.json" "past power_max_per_hour: said so"
is "$(jq -r '.power_cycles[0].status' "$T/j2.json")" \
    "skipped: 1 cycles in the last hour (power_max_per_hour = 1)" "recorded as skipped"
is "$(grep -c system_reset "$T/qmp.log")" 1 "qemu got no second reset"

# ---- an agent without power control: the lease expires as before ----------
J3=$(new_job)
is "$(lease k2)" "$J3" "k2 leases job $J3 and goes silent"
ok "job $J3 is re-queued" ka_wait_job "$J3" queued --secs 20
is "$(curl -s "$KD_URL/api/v1/jobs/$J3" | jq -r '.power_cycles | length')" 0 "no power cycle"
ok "daemon stops" kd_stop

# ---- configuration -----------------------------------------------------------
printf '[agent "k9"]\ntoken_sha256 = %064d\npower_cycle = ipmitool chassis power cycle\npower_margin = 0\n' 1 >"$T/bad.conf"
"$KPERFCI_BIN/kperfcid" -n -c "$T/bad.conf" >"$T/n.out" 2>&1
is "$?" 1 "kperfcid -n refuses power_margin = 0"
like "bad.conf:4" "$T/n.out" "naming file:line"
test_done
