#!/bin/sh
# t4000-agent-protocol: the daemon's side of the agent protocol, spoken with
# curl as a raw client: tokens, registration and hardware class, kernel
# upload and download, job enqueue, leases, heartbeats, uploads with wrong
# types, for unknown jobs, oversize (40 MB and 1 GB) and twice, lease expiry
# and re-queue to another agent, a job given back by its agent (offered
# again at once, not when the lease runs out), the console log, the pages.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"

# A lease of 60 s until the expiry section: under a loaded machine (ASan,
# the heavy tests beside) the checks between a lease and its upload took
# more than a 2 s lease.
kd_config "[agents]\nlease = 60\n$(ka_section a1 a2)"
ok "daemon starts" kd_start

TOPO='{"sockets":2,"nodes":2,"cpus":4,"cores":4,"cpu_model":"Test CPU","memory_mb":2048,"node_cpus":["0-1","2-3"]}'
REG="{\"agent\":\"a1\",\"backend\":\"qemu\",\"kernel_release\":\"6.1.0\",\"topology\":$TOPO}"

# ---- registration ------------------------------------------------------
is "$(api_post /api/v1/agents/register "$REG")" 401 "register without a token: 401"
like "Authorization" "$T/r.json" "401 names the Authorization header"
is "$(api_post /api/v1/agents/register "$REG" a2)" 403 "a2's token for a1: 403"
like 'wrong token for agent \\"a1\\"' "$T/r.json" "403 says whose token"
is "$(api_post /api/v1/agents/register "$(printf "%s" "$REG" | sed 's/"a1"/"zz"/')" a1)" \
    403 "unconfigured agent: 403"
like 'agent: \\"zz\\" is not a configured agent' "$T/r.json" "names the agent"
is "$(api_post /api/v1/agents/register "$(printf "%s" "$REG" | sed 's/"sockets":2/"sockets":"2"/')" a1)" \
    400 "sockets as a string: 400"
like "topology.sockets: expected a non-negative integer" "$T/r.json" \
    "400 names topology.sockets"
is "$(api_post /api/v1/agents/register '{"agent":"a1"' a1)" 400 "broken JSON: 400"
is "$(api_post /api/v1/agents/register "$REG" a1)" 200 "a1 registers"
like '"class": "2s-2n-4c-[0-9a-f]{8}"' "$T/r.json" "class derived from the topology"
is "$(api_post /api/v1/agents/register "$(printf "%s" "$REG" | sed 's/"a1"/"a2"/')" a2)" \
    200 "a2 registers"
curl -s "$KD_URL/api/v1/agents" >"$T/agents.json"
is "$(jq -r '.agents[] | select(.name=="a1") | "\(.sockets) \(.nodes) \(.cpus) \(.state)"' "$T/agents.json")" \
    "2 2 4 idle" "agents API: 2 sockets, 2 nodes, 4 CPUs, idle"

# ---- kernels and jobs ----------------------------------------------------
printf 'not a kernel' >"$T/junk"
is "$(kd_admin_curl -s -o "$T/r.json" -w '%{http_code}' --data-binary @"$T/junk" \
    -H 'Content-Type: application/octet-stream' \
    "$KD_URL/api/v1/kernels")" 400 "a non-bzImage is refused"
like "not a bzImage" "$T/r.json" "and says so"
ka_fake_bzimage "$T/bz"
is "$(curl -s -o "$T/r.json" -w '%{http_code}' --data-binary @"$T/bz" \
    -H 'Content-Type: application/octet-stream' \
    "$KD_URL/api/v1/kernels?note=fake")" 403 "a kernel without the admin token: 403"
is "$(kd_admin_curl -s -o "$T/k.json" -w '%{http_code}' --data-binary @"$T/bz" \
    -H 'Content-Type: application/octet-stream' \
    "$KD_URL/api/v1/kernels?note=fake")" 201 "kernel stored"
KID=$(jq -r .id "$T/k.json")
is "$(jq -r .sha256 "$T/k.json")" "$(sha256sum <"$T/bz" | cut -d' ' -f1)" \
    "kernel sha256 reported"

is "$(api_post /api/v1/jobs '{"kernel": 999}')" 400 "job for an unknown kernel: 400"
like "kernel: no kernel with id 999" "$T/r.json" "names the kernel"
is "$(api_post /api/v1/jobs "{\"kernel\": $KID, \"cmdline\": \"a\\\"b\"}")" 400 \
    "quote in cmdline: 400"
like "cmdline" "$T/r.json" "names cmdline"
is "$(api_post /api/v1/jobs "{\"kernel\": $KID, \"matrx\": \"x\"}")" 400 \
    "unknown field: 400"
like "matrx: unknown field" "$T/r.json" "names it"
is "$(api_post /api/v1/jobs "{\"kernel\": \"$KID\"}")" 400 "kernel as a string: 400"
is "$(api_post /api/v1/jobs "{\"kernel\": $KID}")" 201 "job 1 with the default matrix"
J1=$(jq -r .id "$T/r.json")
curl -s "$KD_URL/api/v1/jobs/$J1" >"$T/j.json"
like "fault-free" "$T/j.json" "default matrix is etc/workloads.conf"

# ---- lease, heartbeat, download -------------------------------------------
is "$(api_post /api/v1/agents/lease '{"agent":"a1"}' a1)" 200 "a1 leases"
cp "$T/r.json" "$T/lease.json"
is "$(jq -r '.job.id' "$T/lease.json")" "$J1" "job 1"
is "$(jq -r '.job.attempt' "$T/lease.json")" 1 "attempt 1"
is "$(jq -r '.job.kernel.url' "$T/lease.json")" "/api/v1/kernels/$KID/bzImage" \
    "kernel URL"
is "$(api_post /api/v1/agents/lease '{"agent":"a2"}' a2)" 204 "nothing left for a2: 204"
is "$(api_post /api/v1/agents/lease '{"agent":5}' a2)" 400 "agent as a number: 400"

is "$(api_post /api/v1/jobs/$J1/heartbeat '{"agent":"a1","attempt":7}' a1)" 409 \
    "heartbeat for another attempt: 409"
is "$(api_post /api/v1/jobs/$J1/heartbeat '{"agent":"a1","attempt":1,"progress":"booting"}' a1)" \
    200 "heartbeat: 200"

is "$(curl -s -o /dev/null -w '%{http_code}' "$KD_URL/api/v1/kernels/$KID/bzImage")" \
    401 "download without a token: 401"
curl -s -o "$T/dl" -H "Authorization: Bearer $(ka_token a2)" \
    "$KD_URL/api/v1/kernels/$KID/bzImage"
ok "download with an agent's token: same bytes" cmp "$T/dl" "$T/bz"
is "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(ka_token a1)" \
    "$KD_URL/api/v1/kernels/999/bzImage")" 404 "unknown kernel: 404"
is "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(ka_token a1)" \
    "$KD_URL/api/v1/kernels/..%2F..%2Fetc/bzImage")" 404 "a path as a kernel id: 404"

# ---- uploads ------------------------------------------------------------
S='{"workload":"fault-free","params":"mode=anon","iteration":1,"metric":"pages_per_sec","value":10.5,"unit":"pages/s","better":"higher"}'
GOOD="{\"agent\":\"a1\",\"attempt\":1,\"status\":\"done\",\"topology\":$TOPO,\"samples\":[$S,$S],\"profiles\":[{\"type\":\"lock-profile\",\"workload\":\"lock-profile\",\"locks\":[]}],\"console\":\"Linux version 6.12\\nKPERFCI console line\\n\",\"boot_seconds\":3.5}"

is "$(api_post /api/v1/jobs/$J1/results "$(printf "%s" "$GOOD" | sed 's/"value":10.5/"value":"fast"/')" a1)" \
    400 "sample value as a string: 400"
like 'samples\[0\].value: expected a number' "$T/r.json" "names samples[0].value"
is "$(api_post /api/v1/jobs/$J1/results "$(printf "%s" "$GOOD" | sed 's/"status":"done"/"status":1/')" a1)" \
    400 "status as a number: 400"
like "status: expected a string" "$T/r.json" "names status"
is "$(api_post /api/v1/jobs/4242/results "$GOOD" a1)" 404 "unknown job: 404"
like "id: no job 4242" "$T/r.json" "names the job"
is "$(api_post /api/v1/jobs/$J1/results "$(printf "%s" "$GOOD" | sed 's/"agent":"a1"/"agent":"a2"/')" a2)" \
    409 "upload by an agent without the lease: 409"
head -c $((40 * 1024 * 1024)) /dev/zero >"$T/big"
is "$(curl -s -o "$T/r.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $(ka_token a1)" --data-binary @"$T/big" \
    "$KD_URL/api/v1/jobs/$J1/results")" 413 "40 MB upload: 413"
rm -f "$T/big"
code=$(head -c 1073741824 /dev/zero | curl -s -o "$T/r.json" -w '%{http_code}' \
    -X POST -T - -H 'Content-Length: 1073741824' -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $(ka_token a1)" "$KD_URL/api/v1/jobs/$J1/results")
is "$code" 413 "1 GB upload: 413 before the body is read"
curl -s "$KD_URL/api/v1/jobs/$J1" >"$T/j.json"
is "$(jq -r '.state' "$T/j.json")" leased "refused uploads changed nothing"
is "$(jq -r '.samples | length' "$T/j.json")" 0 "no samples stored by them"

is "$(api_post /api/v1/jobs/$J1/results "$GOOD" a1)" 200 "good upload: 200"
is "$(api_post /api/v1/jobs/$J1/results "$(printf "%s" "$GOOD" | sed 's/KPERFCI console line/REPLACED/')" a1)" \
    409 "the same upload again: 409"
like "already stored" "$T/r.json" "says already stored"
curl -s "$KD_URL/api/v1/jobs/$J1" >"$T/j.json"
is "$(jq -r '.state' "$T/j.json")" done "job 1 done"
is "$(jq -r '.samples | length' "$T/j.json")" 2 "two samples, stored once"
is "$(jq -r '.profiles | length' "$T/j.json")" 1 "one lock profile"
is "$(jq -r '.attempts_detail[0].topology.nodes' "$T/j.json")" 2 \
    "the topology the kernel saw is kept"
curl -s "$KD_URL/api/v1/jobs/$J1/console?attempt=1" >"$T/console"
like "KPERFCI console line" "$T/console" "console log served (not replaced by the duplicate)"
is "$(curl -s -o /dev/null -w '%{http_code}' "$KD_URL/api/v1/jobs/$J1/console?attempt=x")" \
    400 "console with a bad attempt: 400"

# ---- a job given back -------------------------------------------------------
# The lease is 60 s here: a job queued again at once was given back, not
# expired, and the attempt's status says so too.
is "$(api_post /api/v1/jobs "{\"kernel\": $KID}")" 201 "job 3"
J3=$(jq -r .id "$T/r.json")
is "$(api_post /api/v1/agents/lease '{"agent":"a1"}' a1)" 200 "a1 leases job 3"
is "$(jq -r .job.id "$T/r.json")" "$J3" "it is job 3"
is "$(api_post /api/v1/jobs/$J3/release '{"agent":"a2","attempt":1,"reason":"x"}' a2)" \
    409 "a2 gives back a1's job: 409"
is "$(api_post /api/v1/jobs/$J3/release '{"agent":"a1","attempt":2,"reason":"x"}' a1)" \
    409 "a1 gives back another attempt: 409"
is "$(api_post /api/v1/jobs/$J3/release '{"agent":"a1","attempt":1}' a1)" \
    400 "a release without a reason: 400"
is "$(api_post /api/v1/jobs/$J3/release "$(printf '{"agent":"a1","attempt":1,"reason":"a\\u001b[2Jb"}')" a1)" \
    400 "a reason with an escape byte: 400"
curl -s "$KD_URL/api/v1/jobs/$J3" >"$T/j.json"
is "$(jq -r .state "$T/j.json")" leased "refused releases changed nothing"
is "$(api_post /api/v1/jobs/$J3/release '{"agent":"a1","attempt":1,"reason":"lava-run: Infrastructure error: no device"}' a1)" \
    200 "a1 gives job 3 back"
curl -s "$KD_URL/api/v1/jobs/$J3" >"$T/j.json"
is "$(jq -r .state "$T/j.json")" queued "job 3 queued again at once"
like "given back \\(by a1: lava-run: Infrastructure error: no device\\)" "$T/j.json" \
    "its reason names the agent and its words"
is "$(jq -r '.attempts_detail[0].status' "$T/j.json")" released "attempt 1 released"
is "$(api_post /api/v1/jobs/$J3/heartbeat '{"agent":"a1","attempt":1}' a1)" 409 \
    "a heartbeat for the given-back attempt: 409"
is "$(api_post /api/v1/jobs/$J3/results "$(printf "%s" "$GOOD" | sed 's/"agent":"a1","attempt":1/"agent":"a1","attempt":1/')" a1)" \
    409 "an upload for it: 409"
is "$(api_post /api/v1/agents/lease '{"agent":"a2"}' a2)" 200 "a2 leases job 3"
is "$(jq -r '"\(.job.id) \(.job.attempt)"' "$T/r.json")" "$J3 2" "as attempt 2"
is "$(api_post /api/v1/jobs/$J3/results "$(printf "%s" "$GOOD" | sed 's/"agent":"a1","attempt":1/"agent":"a2","attempt":2/')" a2)" \
    200 "and finishes it"

# ---- lease expiry ----------------------------------------------------------
# the same store under a daemon whose leases last 2 s
ok "daemon stops for the expiry checks" kd_stop
kd_config "[agents]\nlease = 2\n$(ka_section a1 a2)"
ok "daemon restarts with a 2 s lease" kd_start
is "$(api_post /api/v1/jobs "{\"kernel\": $KID}")" 201 "job 2"
J2=$(jq -r .id "$T/r.json")
is "$(api_post /api/v1/agents/lease '{"agent":"a1"}' a1)" 200 "a1 leases job 2"
is "$(jq -r .job.id "$T/r.json")" "$J2" "it is job 2"
# the lease timer settles it within a second of the lease running out;
# reading the job changes nothing (no GET handler writes)
sleep 3.5
i=0
while curl -s "$KD_URL/api/v1/jobs/$J2" >"$T/j.json" &&
    [ "$(jq -r .state "$T/j.json")" = leased ] && [ $i -lt 40 ]; do
	sleep 0.25
	i=$((i + 1))
done
is "$(jq -r .state "$T/j.json")" queued "lease expired: job 2 re-queued by the timer"
like "expired; re-queued" "$T/j.json" "reason says so"
is "$(api_post /api/v1/agents/lease '{"agent":"a2"}' a2)" 200 "a2 leases it"
is "$(jq -r '"\(.job.id) \(.job.attempt)"' "$T/r.json")" "$J2 2" "as attempt 2"
is "$(api_post /api/v1/jobs/$J2/results "$(printf "%s" "$GOOD" | sed 's/"attempt":1/"attempt":1/')" a1)" \
    409 "a1's late upload for attempt 1: 409"
is "$(api_post /api/v1/jobs/$J2/results "$(printf "%s" "$GOOD" | sed 's/"agent":"a1","attempt":1/"agent":"a2","attempt":2/')" a2)" \
    200 "a2's upload for attempt 2: 200"

# ---- pages ------------------------------------------------------------------
curl -s "$KD_URL/agents" >"$T/agents.html"
like "<td>a1</td><td>2s-2n-4c-" "$T/agents.html" "agents page lists a1 with its class"
like "Test CPU" "$T/agents.html" "and its CPU model"
curl -s "$KD_URL/jobs/$J1" >"$T/job.html"
like "pages_per_sec" "$T/job.html" "job page shows samples"
like "console\?attempt=1" "$T/job.html" "and links the console log"
like "2 sockets, 2 nodes, 4 CPUs" "$T/job.html" "and the topology seen"
is "$(curl -s -o /dev/null -w '%{http_code}' "$KD_URL/jobs/999")" 404 "unknown job page: 404"

ok "daemon stops cleanly" kd_stop
test_done
