#!/bin/sh
# t0100-daemon: kperfcid start-up, -n, config errors with file:line, the
# series API's answers to bad input, mbox upload, graceful stop, and states
# surviving a restart (a queued series is resumed).
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"

D="$KPERFCI_BIN/kperfcid"
LORE_PORT=$(free_port)	# nothing listens there: fetches fail
kd_config "max_body = 64K\n[lore]\nallow = http://127.0.0.1:$LORE_PORT/"

# ---- -n and configuration errors -------------------------------------
ok "-n accepts the config" "$D" -n -c "$T/kperfcid.conf"
"$D" -n -c "$T/kperfcid.conf" >"$T/n.out" 2>&1
like "1 pending migration|[0-9]+ pending migrations" "$T/n.out" \
    "-n reports pending migrations"
like "0001-series.sql" "$T/n.out" "-n names them"
ok "-n creates no store" test ! -e "$T/var/kperfci.db"
ok "-n on the embedded default" "$D" -n

printf '[daemon]\nport = 1\n\n[daemon]\nbogus = 2\n' >"$T/bad.conf"
"$D" -n -c "$T/bad.conf" >"$T/bad.out" 2>&1
is "$?" 1 "unknown key: exit status 1"
like "bad.conf:5: unknown key \"bogus\" in \[daemon\]" "$T/bad.out" \
    "unknown key named with file:line"
printf '[daemon]\nport = 99999\n[nosuch]\n' >"$T/bad2.conf"
"$D" -n -c "$T/bad2.conf" >"$T/bad2.out" 2>&1
like "bad2.conf:2: port 99999" "$T/bad2.out" "bad value with file:line"
like "bad2.conf:3: unknown section \[nosuch\]" "$T/bad2.out" \
    "unknown section with file:line"
"$D" -c "$T/missing.conf" -n >"$T/miss.out" 2>&1
like "missing.conf" "$T/miss.out" "missing file named"
# Checks across keys (settings_load) refuse -n and start-up alike, before
# anything is created, instead of failing the first series' apply stage.
printf '[daemon]\ndata = %s/x\n[tree "a"]\nbranch = main\n[build]\ntree = b\n' \
    "$T" >"$T/cross.conf"
"$D" -n -c "$T/cross.conf" >"$T/cross.out" 2>&1
is "$?" 1 "cross-key errors: -n exits 1"
like '\[tree "a"\] needs path = DIR or url = URL' "$T/cross.out" \
    "a tree without path or url is named"
like '\[build\] tree = "b" is not a configured \[tree\]' "$T/cross.out" \
    "a build tree naming no tree is named"
"$D" -d -c "$T/cross.conf" >"$T/cross2.out" 2>&1
is "$?" 1 "cross-key errors: start exits 1"
like '\[build\] tree = "b"' "$T/cross2.out" "start names the key too"
ok "nothing created on refusal" test ! -e "$T/x"

# ---- a running daemon ------------------------------------------------
ok "daemon starts" kd_start
curl -s "$KD_URL/healthz" >"$T/h.json"
is "$(jfield "$T/h.json" .status)" ok "healthz"
"$D" -n -c "$T/kperfcid.conf" >"$T/n2.out" 2>&1
like "0 pending migrations" "$T/n2.out" "-n after start: nothing pending"

post() {	# post FILE-OR-STRING [CTYPE] -> $T/r.json, prints status
	curl -s -o "$T/r.json" -w '%{http_code}' -X POST \
	    -H "Content-Type: ${2:-application/json}" --data-binary "$1" \
	    "$KD_URL/api/v1/series"
}

is "$(post '{"url": ')" 400 "invalid JSON: 400"
like "invalid JSON at line 1" "$T/r.json" "invalid JSON: says where"
is "$(post '{"version": 2}')" 400 "missing field: 400"
like 'missing field \\"url\\"' "$T/r.json" "missing field named"
is "$(post '{"url": 3}')" 400 "wrong type: 400"
like 'field \\"url\\" must be a string' "$T/r.json" "wrong type named"
is "$(post '{"url": "https://lore.example.net/linux-mm/a@b/"}')" 400 \
    "off-allowlist URL: 400"
like "127.0.0.1:$LORE_PORT" "$T/r.json" "400 names the allowed base"
is "$(post "{\"url\": \"http://127.0.0.1:$LORE_PORT/linux-mm/a%20b@c/\"}")" \
    400 "message-id with a space: 400"
like "space" "$T/r.json" "says space"
is "$(post "{\"url\": \"http://127.0.0.1:$LORE_PORT/\"}")" 400 \
    "URL without a message: 400"
head -c 200000 /dev/zero | tr '\0' 'x' >"$T/big.json"
is "$(post @"$T/big.json")" 413 "oversize JSON body: 413"
like "limit of 65536 bytes" "$T/r.json" "413 names the limit"
head -c 70000000 /dev/zero >"$T/huge.mbox"
is "$(post @"$T/huge.mbox" application/mbox)" 413 \
    "mbox over the upload cap: 413 before reading it"
is "$(curl -s -o "$T/r.json" -w '%{http_code}' "$KD_URL/api/v1/series/424242")" \
    404 "unknown id: 404"
like "no series 424242" "$T/r.json" "404 names the id"
is "$(curl -s -o "$T/r.json" -w '%{http_code}' "$KD_URL/api/v1/series/abc")" \
    400 "non-numeric id: 400"
is "$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$KD_URL/api/v1/series/1")" \
    405 "wrong method: 405"

# a submitted matrix is checked with kperfci-load's own parser and workload
# table before anything is stored (not in the guest after two builds)
URL="http://127.0.0.1:$LORE_PORT/linux-mm/m@x/"
nseries() { curl -s "$KD_URL/api/v1/series" | jq '.series | length'; }
N0=$(nseries)
is "$(post "{\"url\": \"$URL\", \"matrix\": \"[run \\\"a\\\"]\\nworkload = null\\nseconds\\n\"}")" \
    400 "matrix syntax error: 400"
like 'matrix:3: expected key = value' "$T/r.json" "400 names matrix:line"
is "$(post "{\"url\": \"$URL\", \"matrix\": \"\\n[run \\\"a\\\"]\\nworkload = fault-free\\nmode = huge\\n\"}")" \
    400 "matrix with a bad workload value: 400"
like 'matrix:2: run \\"a\\": fault-free: --mode \\"huge\\" is not one of anon.shmem' \
    "$T/r.json" "400 names the line, the run and the value"
is "$(post "{\"url\": \"$URL\", \"matrix\": \"[run \\\"a\\\"]\\nworkload = nope\\n\"}")" \
    400 "matrix with an unknown workload: 400"
like 'unknown workload \\"nope\\"' "$T/r.json" "400 names the workload"
is "$(nseries)" "$N0" "nothing stored for a refused matrix"

# an uploaded mbox is picked; an unreachable lore fails with the reason
is "$(post @"$SRC/tests/fixtures/threads/rerolls.mbox" application/mbox)" \
    202 "mbox upload: 202"
UP=$(jfield "$T/r.json" .id)
# later stages (apply, build) may move it on; the fetch result stays
ok "upload is fetched" kd_wait_state "$UP" fetched applied built running done
curl -s "$KD_URL/api/v1/series/$UP" >"$T/up.json"
is "$(jfield "$T/up.json" '.patches | length')" 3 "upload: 3 patches"
is "$(jfield "$T/up.json" .version)" 3 "upload: newest revision v3"
is "$(post "{\"url\": \"http://127.0.0.1:$LORE_PORT/linux-mm/x@y/\"}")" 202 \
    "allowlisted URL: 202"
BAD=$(jfield "$T/r.json" .id)
ok "unreachable lore: failed" kd_wait_state "$BAD" failed
curl -s "$KD_URL/api/v1/series/$BAD" >"$T/bad.json"
like "127.0.0.1:$LORE_PORT" "$T/bad.json" "failure names the server"
curl -s "$KD_URL/series/$BAD" >"$T/bad.html"
like "state-failed" "$T/bad.html" "page shows failed"

# the CLI
K="$KPERFCI_BIN/kperfci"
"$K" -s "$KD_URL" submit --mbox "$SRC/tests/fixtures/threads/basic.mbox" \
    >"$T/cli.out" 2>"$T/cli.err"
CLI_RC=$?
CLI_ID=$(head -1 "$T/cli.out")
curl -s "$KD_URL/api/v1/series/$CLI_ID" >"$T/cli.json"
is "$(jfield "$T/cli.json" .final)" true \
    "kperfci submit --mbox followed the series to a rest"
LAST=$(grep -E '^(queued|fetched|applied|built|running|done|failed)$' \
    "$T/cli.out" "$T/cli.err" -h | tail -1)
[ -z "$LAST" ] && grep -q "failed:" "$T/cli.err" && LAST=failed
is "$LAST" "$(jfield "$T/cli.json" .state)" "CLI's last state is the stored one"
is "$CLI_RC" "$([ "$LAST" = failed ] && echo 1 || echo 0)" \
    "CLI exit status: 0 unless failed"
ok "the CLI's series has its patches" \
    test "$(jfield "$T/cli.json" '.patches | length')" -ge 1
KPERFCI_SERVER="$KD_URL" "$K" status "$CLI_ID" >"$T/st.out" 2>&1
like "series $CLI_ID: $LAST" "$T/st.out" "kperfci status ID (env server)"
"$K" -s "$KD_URL" status 999999 >"$T/st2.out" 2>&1
is "$?" 1 "status of an unknown id fails"
like "no series 999999" "$T/st2.out" "and says why"
"$K" -s "$KD_URL" submit "https://evil.example/l/a@b/" >"$T/cli2.out" 2>&1
is "$?" 1 "submit of an off-list URL fails"
like "not on an allowed lore base" "$T/cli2.out" "CLI shows the server's reason"

# ---- restart keeps states and resumes queued work --------------------
ok "everything at rest before the restart" kd_wait_rest "$UP"
curl -s "$KD_URL/api/v1/series" | jq -S '[.series[] | {id, state, error}]' \
    >"$T/before.json"
ok "SIGTERM stops the daemon cleanly" kd_stop
like "stopping" "$T/kperfcid.log" "stop is logged"
# a series queued while the daemon was down (as if it died mid-fetch)
sqlite3 "$T/var/kperfci.db" "INSERT INTO series (source, upload, state,
    submitted, updated) VALUES ('upload',
    readfile('$SRC/tests/fixtures/threads/basic.mbox'), 'queued', 0, 0)"
Q=$(sqlite3 "$T/var/kperfci.db" "SELECT max(id) FROM series")
ok "daemon restarts" kd_start
curl -s "$KD_URL/api/v1/series" | jq -S "[.series[] | select(.id != $Q) |
    {id, state, error}]" >"$T/after.json"
ok "states survive a restart" cmp "$T/before.json" "$T/after.json"
ok "a queued series is resumed after a restart" kd_wait_state "$Q" fetched \
    applied built running done failed
curl -s "$KD_URL/api/v1/series/$Q" >"$T/q.json"
ok "the resumed series was fetched" \
    test "$(jfield "$T/q.json" '.patches | length')" -ge 1
kd_stop

# ---- listen = :: is every address, IPv4 too ---------------------------------
if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' \
    2>/dev/null; then
	P6=$(free_port)
	mkdir -p "$T/v6"
	printf '[daemon]\nlisten = ::\nport = %s\ndata = %s\n' "$P6" "$T/v6" \
	    >"$T/v6.conf"
	"$KPERFCI_BIN/kperfcid" -c "$T/v6.conf" >"$T/v6.log" 2>&1 &
	V6=$!
	wait_http "http://127.0.0.1:$P6/healthz" 15
	is "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P6/healthz")" \
	    200 "listen = :: answers an IPv4 client"
	is "$(curl -s -o /dev/null -w '%{http_code}' "http://[::1]:$P6/healthz")" \
	    200 "and an IPv6 one"
	kill -TERM "$V6"
	wait "$V6"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP listen = :: (no IPv6 on this host)"
fi
test_done
