#!/bin/sh
# t4750-lava-bad-server: the LAVA bridge (kperfci-agent backend = lava,
# [lava] url) against a LAVA server that misbehaves in ways the real one
# of t7700 cannot be made to (tests/lava-fake.py): 503s and HTML where
# JSON belongs, a refused definition, a job that disappears, a
# multinode answer.  The bridge asks again with backoff where waiting can
# help, gives the job back with LAVA's words where it cannot, and never
# uploads a result it did not get; the daemon fails the job after
# max_attempts (1 here) with that reason.  No guest boots: the kernel is
# a fake bzImage, and nothing is ever run on it.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"

for c in jq python3; do
	command -v $c >/dev/null || skip_all "$c missing"
done
[ -x /bin/busybox ] || skip_all "busybox-static not installed"

TOKEN=fake-lava-token-0123
printf '%s\n' "$TOKEN" >"$T/lava.token"
SHA=$(sha256sum "$T/lava.token" | cut -d' ' -f1)
LPORT=$(free_port)
python3 "$SRC/tests/lava-fake.py" "$LPORT" "$TOKEN" "$T/lava.requests" &
LPID=$!
stop_fake() { kill "$LPID" 2>/dev/null; return 0; }
at_exit stop_fake

kd_config "[agents]\nlease = 60\nmax_attempts = 1\n$(ka_section b1 b2 b3 b4 b5)"
ok "kperfcid starts" kd_start
ok "the fake LAVA answers" sh -c "curl -s -o /dev/null -w '%{http_code}' \
    http://127.0.0.1:$LPORT/flaky/api/v0.2/jobs/7/ | grep -q 401"
ka_fake_bzimage "$T/bz"
KID=$(kd_kernel_post "$T/bz" | jq -r .id)

# bridge NAME MODE [TOKEN_SHA]: agent.conf of a bridge to /MODE/
bridge() {
	ka_config "$1" "backend = lava\n[lava]\nurl = http://127.0.0.1:$LPORT/$2/\ntoken-file = $T/lava.token\ntoken-sha256 = ${3:-$SHA}\ndevice-type = qemu\njob-timeout = 600\nqueue-timeout = 120"
}
# one_job NAME: starts agent NAME, gives it one job, waits until it has
# ended (failed: max_attempts is 1); prints the job's id
one_job() {
	ka_start "$1"
	ka_wait_log "$1" "registered as $1" 30 >/dev/null || return 1
	api_post /api/v1/jobs "{\"kernel\": $KID, \"matrix\": \"[run \\\"n\\\"]\\nworkload = null\\n\"}" >/dev/null
	j=$(jq -r .id "$T/r.json")
	ka_wait_job "$j" failed done --secs 120 >/dev/null || return 1
	ka_stop "$1"
	echo "$j"
}
reason() {
	curl -fs "$KD_URL/api/v1/jobs/$1" | jq -r .reason
}

# ---- 503s on submission, HTML for the state, no log -------------------------
bridge b1 flaky
J=$(one_job b1)
ok "flaky: the job ended" test -n "$J"
ok "a 503 on submission: asked again with backoff" \
    grep -q "submitting to LAVA http://127.0.0.1:$LPORT/flaky: HTTP 503; again in" "$T/b1.log"
is "$(grep -c 'POST /flaky/api/v0.2/jobs/' "$T/lava.requests")" 3 \
    "submitted three times: two 503s, then accepted"
ok "HTML where the job's state belongs: asked again" \
    grep -q "LAVA job 7: not a LAVA job's state; asking again" "$T/b1.log"
is "$(reason "$J")" "given back 1 times, last: by b1: LAVA job 7 has no log; LAVA's health: Complete" \
    "no log: no result, given back with why (max_attempts 1: failed)"
ok "nothing uploaded" sh -c "! grep -q 'results uploaded' '$T/b1.log'"

# ---- the definition refused ------------------------------------------------------
bridge b2 refuse
J=$(one_job b2)
is "$(reason "$J")" \
    "given back 1 times, last: by b2: LAVA http://127.0.0.1:$LPORT/refuse refused the job (HTTP 400: Problem with submitted job data: Invalid device type)" \
    "a 400: given back at once with LAVA's message"
is "$(grep -c 'POST /refuse/api/v0.2/jobs/' "$T/lava.requests")" 1 \
    "a refusal is not asked again"

# ---- the job disappears -------------------------------------------------------------
bridge b3 gone
J=$(one_job b3)
is "$(reason "$J")" "given back 1 times, last: by b3: LAVA job 7 is gone (HTTP 404)" \
    "a 404 for the submitted job: given back at once"

# ---- two job ids (a multinode answer) ----------------------------------------------
bridge b4 multi
J=$(one_job b4)
reason "$J" >"$T/b4.reason"
like "^given back 1 times, last: by b4: LAVA http://127.0.0.1:$LPORT/multi accepted the job but did not answer one job id .*\[41, 42\]" \
    "$T/b4.reason" "two job ids are not one: given back, with LAVA's answer"
is "$(grep -c 'POST /multi/api/v0.2/jobs/' "$T/lava.requests")" 1 \
    "submitted once (asking again would make more LAVA jobs)"

# ---- a token LAVA does not know ----------------------------------------------------
printf 'other-token\n' >"$T/other.token"
ka_config b5 "backend = lava\n[lava]\nurl = http://127.0.0.1:$LPORT/flaky/\ntoken-file = $T/other.token\ntoken-sha256 = $(sha256sum "$T/other.token" | cut -d' ' -f1)\ndevice-type = qemu"
J=$(one_job b5)
like "refused the job \(HTTP 401\)" "$T/b5.log" "a 401: the token, given back at once"

ok "the daemon is still up" curl -fs -o /dev/null "$KD_URL/healthz"
ok "daemon stops" kd_stop
test_done
