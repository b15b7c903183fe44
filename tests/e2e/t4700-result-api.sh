#!/bin/sh
# t4700-result-api: the comparison JSON, report.txt and `kperfci submit
# --wait` on a real daemon without kernels or agents (fast): answers before
# any comparison exists, bad ids, a series that fails (a lore that does not
# answer) followed to its failed verdict with exit status 1, and links in
# report.txt only from a plain Host header.  t7000 runs the real thing.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"

command -v jq >/dev/null || skip_all "jq not installed"
K="$KPERFCI_BIN/kperfci"
DEAD=$(free_port)	# nothing listens there: fetches fail
kd_config "[lore]\nallow = http://127.0.0.1:$DEAD/"
ok "daemon starts" kd_start

# ---- bad ids ---------------------------------------------------------------
code() {
	curl -s -o "$T/r.out" -w '%{http_code}' "$@"
}
is "$(code "$KD_URL/api/v1/series/999/comparison")" 404 "unknown series: 404"
like "no series 999" "$T/r.out" "404 names the series"
is "$(code "$KD_URL/api/v1/series/abc/comparison")" 400 "id not a number: 400"
like "must be a positive integer" "$T/r.out" "400 says what an id is"
is "$(code "$KD_URL/series/999/report.txt")" 404 "report.txt of nothing: 404"
is "$(code "$KD_URL/series/0/report.txt")" 400 "report.txt of id 0: 400"

# ---- a series resting before any comparison: live, "running" -------------
is "$(code -X POST -H 'Content-Type: application/mbox' \
    --data-binary @"$SRC/tests/fixtures/threads/basic.mbox" \
    "$KD_URL/api/v1/series")" 202 "mbox upload: 202"
ID=$(jq -r .id "$T/r.out")
ok "it is fetched" kd_wait_state "$ID" fetched
is "$(code "$KD_URL/api/v1/series/$ID/comparison")" 200 "comparison JSON: 200"
cp "$T/r.out" "$T/c.json"
is "$(jq -r '.live' "$T/c.json")" false "no tree: the series rests (not live)"
is "$(jq -r '.verdict' "$T/c.json")" "waiting: $(jq -r .rest "$T/c.json")" \
    "verdict: waiting, with the reason it rests"
like '"rest": "no \[tree\]' "$T/c.json" "the reason names the missing [tree]"
is "$(jq -r '.comparison' "$T/c.json")" null "no comparison yet"
is "$(jq -r '.rows | length' "$T/c.json")" 0 "no rows"
ok "series JSON links its result" sh -c "curl -fs '$KD_URL/api/v1/series/$ID' | jq -e '.result.comparison == \"/api/v1/series/$ID/comparison\" and .result.report == \"/series/$ID/report.txt\"'"
is "$(code "$KD_URL/series/$ID/report.txt")" 200 "report.txt: 200"
like "^kperfci result for series $ID: waiting: no \[tree\]" "$T/r.out" \
    "report.txt: waiting"
ok "report.txt: no boots or matrix lines before a comparison exists" sh -c \
    "! grep -Eq 'boots done|matrix.conf' '$T/r.out'"
like "Full result: http://127.0.0.1:$KD_PORT/series/$ID" "$T/r.out" \
    "links use the request's Host"
code -H 'Host: evil.example.com/"><script>' "$KD_URL/series/$ID/report.txt" >/dev/null
ok "a Host header with markup gives no links" sh -c "! grep -q 'Full result' '$T/r.out'"

# a resting series: --wait stops (nothing more will happen) with status 1
"$K" -s "$KD_URL" submit --mbox "$SRC/tests/fixtures/threads/basic.mbox" \
    --wait >"$T/rest.out" 2>"$T/rest.err"
is "$?" 1 "submit --wait: a series resting before the end exits 1"
like "^verdict: waiting: no \[tree\]" "$T/rest.out" "and says why it waits"

# ---- submit --wait to a failed verdict ---------------------------------------
URL="http://127.0.0.1:$DEAD/test/nothing-here@example.org/"
"$K" -s "$KD_URL" submit "$URL" --wait >"$T/w.out" 2>"$T/w.err"
is "$?" 1 "submit --wait: a failed series exits 1"
like "^verdict: failed: " "$T/w.out" "it prints the failed verdict"
like "^kperfci result for series [0-9]+: failed: " "$T/w.out" \
    "and the text report"
like "^state queued|^state failed" "$T/w.out" "plain progress lines (not a tty)"
ok "no terminal escapes when not on a tty" sh -c "! grep -q \"$(printf '\033')\" '$T/w.out'"
WID=$(head -1 "$T/w.out")
curl -fs "$KD_URL/api/v1/series/$WID/comparison" >"$T/f.json"
is "$(jq -r .live "$T/f.json")" false "failed: not live"
ok "failed: the JSON verdict agrees with the terminal" sh -c \
    "grep -qF \"verdict: \$(jq -r .verdict '$T/f.json')\" '$T/w.out'"

# on a terminal: one line redrawn in place, with a bar
if command -v script >/dev/null; then
	script -qec "'$K' -s '$KD_URL' submit '$URL' --wait" /dev/null \
	    >"$T/tty.out" 2>&1
	is "$?" 1 "on a tty: a failed series exits 1"
	ok "on a tty: the progress line is redrawn with a bar" sh -c \
	    "tr '\\r' '\\n' <'$T/tty.out' | grep -Eq '^\\[[#.]{20}\\] state '"
	like "verdict: failed: " "$T/tty.out" "on a tty: the verdict"
fi

test_done
