#!/bin/sh
# t4100-agent-backoff: a real kperfci-agent against a daemon that is down,
# one that answers garbage, and kernels that arrive corrupt or truncated.
# The agent waits with backoff and recovers; a bad download is never booted
# and a job whose kernel never arrives intact ends failed, not in a loop.
# An agent that cannot build its guest (no busybox) gives its job back,
# and the daemon offers it again at once, not when the lease runs out.
# No qemu runs here: nothing gets past the sha256 check or the initramfs.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"

command -v jq >/dev/null || skip_all "jq missing"

kd_config "[agents]\nlease = 60\n$(ka_section q1 q2 q3)"
ka_config q1 "[qemu]\naccel = tcg"

# ---- configuration -----------------------------------------------------------
ok "-n accepts the agent's config" "$KPERFCI_BIN/kperfci-agent" -n -c "$T/q1.conf"
ok "-n accepts etc/agent.conf" "$KPERFCI_BIN/kperfci-agent" -n -c "$SRC/etc/agent.conf"
printf '[agent]\nname = x\n[qemu]\nsockets = lots\n' >"$T/bad.conf"
"$KPERFCI_BIN/kperfci-agent" -n -c "$T/bad.conf" >"$T/bad.out" 2>&1
is "$?" 1 "a bad config: exit 1"
like "bad.conf:4: sockets: expected an integer" "$T/bad.out" "named with file:line"

# ---- the daemon is down --------------------------------------------------
ka_start q1
ok "agent waits for a daemon that is down" ka_wait_log q1 "retrying in" 10
sleep 4
ok "and keeps trying, waiting longer each time" sh -c "
	grep -o 'retrying in [0-9.]*' '$T/q1.log' | awk '{print \$3}' >'$T/waits'
	[ \$(wc -l <'$T/waits') -ge 2 ] &&
	awk 'NR==1{f=\$1} END{exit !(\$1 > f)}' '$T/waits'"
ok "the agent is still running" kill -0 "$(cat "$T/q1.pid")"
ok "daemon starts" kd_start
ok "the agent registers once the daemon is up" ka_wait_log q1 "registered as q1" 15
is "$(curl -s "$KD_URL/api/v1/agents" | jq -r '.agents[0].name')" q1 \
    "agents API lists q1"
is "$(curl -s "$KD_URL/api/v1/agents" | jq -r '.agents[0] | "\(.sockets) \(.nodes) \(.cpus)"')" \
    "2 2 4" "a qemu agent registers its 2-socket, 2-node guest"

# ---- a corrupt kernel --------------------------------------------------------
ka_fake_bzimage "$T/bz"
kd_kernel_post "$T/bz" >"$T/k.json"
KID=$(jq -r .id "$T/k.json")
SHA=$(jq -r .sha256 "$T/k.json")
# Flip a byte of the stored artifact: what the agent downloads no longer
# matches the sha256 in the job.
printf 'X' | dd of="$T/var/kernels/$SHA.bzImage" bs=1 seek=100 conv=notrunc 2>/dev/null
api_post /api/v1/jobs "{\"kernel\": $KID, \"matrix\": \"[run \\\"n\\\"]\\nworkload = null\\n\"}" >/dev/null
J1=$(jq -r .id "$T/r.json")
ok "the agent detects the sha256 mismatch" ka_wait_log q1 "sha256 [0-9a-f]{64}, expected $SHA \(corrupt\)" 20
ok "the job fails after max_attempts bad downloads" ka_wait_job "$J1" failed --secs 30
curl -s "$KD_URL/api/v1/jobs/$J1" >"$T/j.json"
is "$(jq -r .attempts "$T/j.json")" 3 "three attempts, then no more"
ok "no corrupt kernel kept in the agent's cache" test ! -e "$T/q1.state/kernels/$SHA.bzImage"
ok "nothing was booted" sh -c "! grep -q booting '$T/q1.log'"

# ---- a truncated kernel ------------------------------------------------------
ka_fake_bzimage "$T/bz2"
printf 'different' >>"$T/bz2"
kd_kernel_post "$T/bz2" >"$T/k2.json"
K2=$(jq -r .id "$T/k2.json")
SHA2=$(jq -r .sha256 "$T/k2.json")
truncate -s 1000 "$T/var/kernels/$SHA2.bzImage"
api_post /api/v1/jobs "{\"kernel\": $K2, \"matrix\": \"x\"}" >/dev/null
J2=$(jq -r .id "$T/r.json")
ok "the agent detects the truncated download" ka_wait_log q1 "got 1000 bytes, expected [0-9]+ \(truncated\)" 20
ok "that job fails too" ka_wait_job "$J2" failed --secs 30

# ---- a server that answers garbage ---------------------------------------
GPORT=$(free_port)
mkdir -p "$T/garbage"
printf 'not json' >"$T/garbage/index.html"
(cd "$T/garbage" && exec python3 -m http.server -b 127.0.0.1 "$GPORT") \
    >"$T/garbage.log" 2>&1 &
GPID=$!
stop_garbage() { kill "$GPID" 2>/dev/null; wait "$GPID" 2>/dev/null; return 0; }
at_exit stop_garbage
wait_http "http://127.0.0.1:$GPORT/" 10
ka_config q2
sed -i "s|^server = .*|server = http://127.0.0.1:$GPORT|" "$T/q2.conf"
ka_start q2
ok "garbage answers are named" ka_wait_log q2 "not a JSON object" 15
ok "and retried with backoff" ka_wait_log q2 "retrying in" 15
ok "the agent survives them" kill -0 "$(cat "$T/q2.pid")"
ka_stop q2

# ---- the daemon goes away and comes back ----------------------------------
ok "daemon stops" kd_stop
: >"$T/q1.log"
ok "the agent notices and backs off" ka_wait_log q1 "retrying in" 15
ok "daemon restarts" kd_start
ok "the agent carries on (asks for work again)" sh -c "
	i=0; while [ \$i -lt 150 ]; do
		n=\$(curl -s '$KD_URL/api/v1/agents' | jq -r '.agents[0].last_seen')
		[ \"\$n\" -ge $(date +%s) ] 2>/dev/null && exit 0
		sleep 0.1; i=\$((i+1))
	done; exit 1"
ka_stop q1
ok "SIGTERM stops the agent cleanly" grep -q "stopping" "$T/q1.log"

# ---- an agent that cannot run its job gives it back --------------------------
# No busybox: the initramfs cannot be built, the agent's fault, not the
# kernel's.  Each give-back re-queues the job at once; three of them fail
# it, well inside one 60 s lease.
ka_fake_bzimage "$T/bz3"
printf 'third' >>"$T/bz3"
kd_kernel_post "$T/bz3" >"$T/k3.json"
K3=$(jq -r .id "$T/k3.json")
ka_config q3 "[qemu]\naccel = tcg\nbusybox = $T/no-busybox"
ka_start q3
api_post /api/v1/jobs "{\"kernel\": $K3, \"matrix\": \"[run \\\"n\\\"]\\nworkload = null\\n\"}" >/dev/null
J3=$(jq -r .id "$T/r.json")
ok "the agent gives the job back" ka_wait_log q3 "job $J3.1 given back" 20
ok "the job fails after max_attempts give-backs, before one lease ran out" \
    ka_wait_job "$J3" failed --secs 40
curl -s "$KD_URL/api/v1/jobs/$J3" >"$T/j3.json"
is "$(jq -r '[.attempts_detail[].status] | join(" ")' "$T/j3.json")" \
    "released released released" "each attempt released, none expired"
like "given back 3 times, last: by q3: .*no-busybox" "$T/j3.json" \
    "the job's reason names the agent and the missing busybox"
ok "nothing was booted" sh -c "! grep -q booting '$T/q3.log'"
ka_stop q3
test_done
