#!/bin/sh
# t0150-auth: the real daemon on loopback against the attacks of issue 10:
# DNS rebinding (Host), cross-site POSTs (Origin, text/plain), the web
# form's CSRF token, submitter and admin tokens (loopback not trusted, as
# behind a reverse proxy), the CLI's --token and $KPERFCI_TOKEN, cancel and
# re-run from the CLI and the page, escape sequences in `kperfci status`,
# and a read-only store (503 naming the path, not "ok" and 400).
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"

K="$KPERFCI_BIN/kperfci"
FX="$SRC/tests/fixtures/threads"
ALICE=alice-token-not-secret
BOB=bob-token-not-secret
sha() { printf %s "$1" | sha256sum | cut -d' ' -f1; }

has_ctl() {	# has_ctl FILE: an ESC or BEL byte in it
	grep -q "$(printf '\033')" "$1" || grep -q "$(printf '\007')" "$1"
}
no_ctl() { ! has_ctl "$1"; }
RO=
_ro_cleanup() { [ -z "$RO" ] || umount "$T/var"; return 0; }
at_exit _ro_cleanup

code() {	# code CURL_ARGS... -> the status; body in $T/r.out
	curl -s -o "$T/r.out" -w '%{http_code}' "$@"
}

# ---- a daemon that trusts loopback (the default) ---------------------------
kd_config "[lore]\nallow = http://127.0.0.1:9/"
ok "daemon starts" kd_start

is "$(code -H 'Host: attacker.example' "$KD_URL/")" 403 \
    "DNS rebinding: GET / with Host attacker.example is refused"
like "attacker.example" "$T/r.out" "the page names the Host"
is "$(code -H "Host: localhost:$KD_PORT" "$KD_URL/healthz")" 200 \
    "Host localhost is served"
# two Host headers (curl sends one): the first ours, the second not
two_hosts() {
	python3 - "$KD_PORT" "$1" "$2" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(("GET /healthz HTTP/1.1\r\nHost: %s\r\nHost: %s\r\n"
           "Connection: close\r\n\r\n" % (sys.argv[2], sys.argv[3])).encode())
out = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    out += b
print(out.split(b" ")[1].decode() if b" " in out else "none")
PY
}
is "$(two_hosts "127.0.0.1:$KD_PORT" attacker.example)" 400 \
    "two Host headers (ours, then another): 400"
is "$(two_hosts attacker.example "127.0.0.1:$KD_PORT")" 400 \
    "two Host headers (another, then ours): 400"
is "$(code -X POST -H 'Content-Type: text/plain' \
    --data-binary '{"url": "http://127.0.0.1:9/l/a@b/"}' \
    "$KD_URL/api/v1/series")" 415 "a text/plain POST (a cross-site form) is refused"
is "$(code -X POST -H 'Content-Type: application/json' \
    -H 'Origin: http://attacker.example' \
    --data-binary '{"url": "http://127.0.0.1:9/l/a@b/"}' \
    "$KD_URL/api/v1/series")" 403 "a POST with a foreign Origin is refused"
like "cross-site" "$T/r.out" "and says why"

# the front page's form and its CSRF token
CSRF=$(kd_csrf)
ok "the front page's form carries a CSRF token" test "${#CSRF}" -eq 64
is "$(code --data-urlencode "url=http://127.0.0.1:9/l/form-a@b/" \
    "$KD_URL/submit")" 403 "the form without its CSRF token is refused"
is "$(code --data-urlencode "url=http://127.0.0.1:9/l/form-a@b/" \
    --data-urlencode "csrf=$(printf '%064d' 0)" "$KD_URL/submit")" 403 \
    "... and with a forged one"
is "$(code -H "Origin: http://attacker.example" \
    --data-urlencode "url=http://127.0.0.1:9/l/form-a@b/" \
    --data-urlencode "csrf=$CSRF" "$KD_URL/submit")" 403 \
    "... and from another site even with a valid token"
is "$(code -H "Origin: $KD_URL" \
    --data-urlencode "url=http://127.0.0.1:9/l/form-a@b/" \
    --data-urlencode "csrf=$CSRF" "$KD_URL/submit")" 303 \
    "the form with its token from our own page is accepted"

# kernels and jobs: the admin token even from loopback
ka_fake() {
	python3 - "$1" <<-'EOF'
	import sys
	b = bytearray(4096)
	b[0x202:0x206] = b"HdrS"
	open(sys.argv[1], "wb").write(bytes(b))
	EOF
}
ka_fake "$T/bz"
is "$(code -H 'Content-Type: application/octet-stream' --data-binary @"$T/bz" \
    "$KD_URL/api/v1/kernels")" 403 "a kernel upload without the admin token: 403"
is "$(code -H 'Content-Type: application/json' -d '{"kernel": 1}' \
    "$KD_URL/api/v1/jobs")" 403 "a job without the admin token: 403"
is "$(code -H 'Content-Type: application/json' -d '{"kernel": 1, "priority": 1099511627776}' \
    -H "Authorization: Bearer $KD_ADMIN_TOKEN" "$KD_URL/api/v1/jobs")" 400 \
    "priority 2^40 is a 400"
is "$(code -H 'Content-Type: application/json' \
    -d '{"url": "http://127.0.0.1:9/l/a@b/", "priority": 1}' \
    "$KD_URL/api/v1/series")" 400 "a local submitter may not go ahead of interactive work"
is "$(code -H 'Content-Type: application/json' \
    -d '{"url": "http://127.0.0.1:9/l/a@b/", "bogus": 1}' \
    "$KD_URL/api/v1/series")" 400 "an unknown field is refused"
like 'unknown field \\"bogus\\"' "$T/r.out" "and named"
is "$(code "$KD_URL/api/v1/series?limit=1x")" 400 "?limit=1x is refused"

# ---- a read-only store -----------------------------------------------------
if mount --bind "$T/var" "$T/var" 2>/dev/null && RO=1 &&
    mount -o remount,bind,ro "$T/var" 2>/dev/null; then
	is "$(code "$KD_URL/healthz")" 503 "a read-only store: /healthz is 503"
	like "$T/var" "$T/r.out" "naming the path"
	like "Read-only file system|read-only" "$T/r.out" "and the cause"
	is "$(code -H 'Content-Type: application/json' \
	    -d '{"url": "http://127.0.0.1:9/l/ro@b/"}' \
	    "$KD_URL/api/v1/series")" 503 "a submission to it is 503, not 400"
	like "cannot take writes" "$T/r.out" "and says why"
	umount "$T/var"
	RO=
	is "$(code "$KD_URL/healthz")" 200 "writable again: /healthz is 200"
else
	[ -z "$RO" ] || umount "$T/var"
	RO=
	for n in 1 2 3 4 5 6; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n # SKIP cannot bind-mount read-only here"
	done
fi
kd_stop

# ---- loopback not trusted: tokens for everyone ------------------------------
kd_config "[lore]\nallow = http://127.0.0.1:9/\n[auth]\ntrust_loopback = false\n[submitter \"alice\"]\ntoken_sha256 = $(sha $ALICE)\n[submitter \"bob\"]\ntoken_sha256 = $(sha $BOB)"
ok "daemon starts without trusting loopback" kd_start

is "$(code -H 'Content-Type: application/mbox' --data-binary @"$FX/basic.mbox" \
    "$KD_URL/api/v1/series")" 401 "an upload without a token: 401"
is "$(code -H 'Content-Type: application/mbox' --data-binary @"$FX/basic.mbox" \
    -H 'Authorization: Bearer guess' "$KD_URL/api/v1/series")" 403 \
    "with a wrong token: 403"
"$K" -s "$KD_URL" submit --mbox "$FX/basic.mbox" --no-follow \
    >"$T/cli0.out" 2>&1
is "$?" 1 "the CLI without a token fails"
like "401" "$T/cli0.out" "and shows the 401"
"$K" -s "$KD_URL" --token "$ALICE" submit --mbox "$FX/basic.mbox" \
    --no-follow >"$T/cli1.out" 2>&1
A1=$(head -1 "$T/cli1.out")
ok "the CLI with --token submits" test "$A1" -gt 0
KPERFCI_TOKEN=$BOB "$K" -s "$KD_URL" submit --mbox "$FX/basic.mbox" \
    --no-follow >"$T/cli2.out" 2>&1
B1=$(head -1 "$T/cli2.out")
ok "the CLI with \$KPERFCI_TOKEN submits" test "$B1" -gt 0
is "$(curl -s "$KD_URL/api/v1/series/$A1" | jq -r .owner)" alice \
    "the series is alice's"
kd_wait_rest "$A1"
kd_wait_rest "$B1"

KPERFCI_TOKEN=$BOB "$K" -s "$KD_URL" cancel "$A1" >"$T/c.out" 2>&1
is "$?" 1 "bob may not cancel alice's series"
like "403.*alice" "$T/c.out" "the CLI shows why"
KPERFCI_TOKEN=$ALICE "$K" -s "$KD_URL" cancel "$A1" >"$T/c.out" 2>&1
is "$?" 0 "alice cancels it with kperfci cancel"
is "$(curl -s "$KD_URL/api/v1/series/$A1" | jq -r '.state + " " + .error')" \
    "cancelled cancelled by alice" "the series is cancelled, by alice"
KPERFCI_TOKEN=$ALICE "$K" -s "$KD_URL" cancel "$A1" >"$T/c.out" 2>&1
like "409.*already cancelled" "$T/c.out" "cancelling it again: 409"
KPERFCI_TOKEN=$ALICE "$K" -s "$KD_URL" rerun "$A1" >"$T/r0.out" 2>&1
like "409.*upload it again" "$T/r0.out" \
    "an upload whose mbox was consumed cannot be re-run, and says so"
is "$(code -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $ALICE" \
    -d '{"url": "http://127.0.0.1:9/l/rerun@b/", "boots": 3}' \
    "$KD_URL/api/v1/series")" 202 "alice submits a URL"
U1=$(jq -r .id "$T/r.out")
kd_wait_rest "$U1"
KPERFCI_TOKEN=$ALICE "$K" -s "$KD_URL" rerun "$U1" >"$T/r1.out" 2>"$T/r1.err"
U2=$(head -1 "$T/r1.out")
ok "kperfci rerun gives a new series" test "$U2" -gt "$U1"
is "$(curl -s "$KD_URL/api/v1/series/$U2" | jq -r '.owner + " " + .source')" \
    "alice http://127.0.0.1:9/l/rerun@b/" "alice's, the same URL"

# the page's cancel button (form + CSRF + the submitter's token field)
CSRF=$(kd_csrf)
is "$(code --data-urlencode "csrf=$CSRF" --data-urlencode "token=$ALICE" \
    "$KD_URL/series/$B1/cancel")" 403 "the page's button with alice's token may not cancel bob's"
is "$(code --data-urlencode "token=$BOB" "$KD_URL/series/$B1/cancel")" 403 \
    "bob's button without the CSRF token is refused"
is "$(code --data-urlencode "csrf=$CSRF" --data-urlencode "token=$BOB" \
    "$KD_URL/series/$B1/cancel")" 303 "bob's button with the CSRF token cancels it"
is "$(curl -s "$KD_URL/api/v1/series/$B1" | jq -r .state)" cancelled \
    "bob's series is cancelled"

# escape sequences in a subject never reach the terminal raw
printf 'From x Mon Sep 17 00:00:00 2001\nMessage-Id: <esc-1@example.org>\nFrom: Eve <eve@example.org>\nDate: Tue, 14 Nov 2023 22:29:00 +0000\nSubject: [PATCH] =?utf-8?q?mm:_evil_=1B]0;pwned=07_=1B[2J?=\n\nx\n---\ndiff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n' >"$T/esc.mbox"
E1=$(KPERFCI_TOKEN=$ALICE "$K" -s "$KD_URL" submit --mbox "$T/esc.mbox" \
    --no-follow 2>/dev/null | head -1)
kd_wait_rest "$E1"
curl -s "$KD_URL/api/v1/series/$E1" >"$T/e.json"
jq -r .title "$T/e.json" >"$T/e.title"
ok "the stored subject holds the escape bytes" has_ctl "$T/e.title"
"$K" -s "$KD_URL" status "$E1" >"$T/s1.out" 2>&1
"$K" -s "$KD_URL" status >"$T/s2.out" 2>&1
ok "kperfci status ID prints no escape byte" no_ctl "$T/s1.out"
ok "kperfci status prints no escape byte" no_ctl "$T/s2.out"
like "mm: evil \?\]0;pwned\? \?\[2J" "$T/s1.out" "but shows them as ?"

test_done
