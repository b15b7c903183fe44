#!/bin/sh
# t2700-track-light: the nightly track's API, CLI, pages and faults without
# a kernel (light: runs under ASan in make check too).  A [track] on a
# tree whose url cannot be fetched: `kperfci track run` queues a run, it
# fails with the fetch's reason; a second POST returns the run in progress
# or queues one after it (never two in progress); the
# pages render; bad ids and unknown tracks get clear errors; a track
# naming an unknown tree is a -n error with file:line.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"

command -v jq >/dev/null || skip_all "jq not installed"

printf '[tree "t"]\npath = %s/none\n[track "x"]\ntree = t\nmatrix = %s/nope.conf\n' \
    "$T" "$T" >"$T/bad.conf"
"$KPERFCI_BIN/kperfcid" -n -c "$T/bad.conf" >"$T/bad.out" 2>&1
ok "-n refuses a track with an unreadable matrix" [ $? -ne 0 ]
like "bad.conf:5: \[track \"x\"\]: matrix .*nope.conf" "$T/bad.out" \
    "naming file:line"

kd_config "[tree \"far\"]\nurl = $T/no-such-repo.git\npath = $T/far.git\nbranch = master\n[track \"far\"]\ntree = far\nboots = 2"
ok "kperfcid starts with a [track]" kd_start
export KPERFCI_SERVER=$KD_URL

curl -fs "$KD_URL/api/v1/tracks" >"$T/tracks.json"
is "$(jq -r '.tracks[0].name + " " + .tracks[0].tree + " " + (.tracks[0].boots|tostring)' "$T/tracks.json")" \
    "far far 2" "/api/v1/tracks lists the track"
is "$(jq -r '.tracks[0].last_run' "$T/tracks.json")" null "no run yet"

"$KPERFCI_BIN/kperfci" track run far >"$T/run.out"
like "^run [0-9]+ (queued|\(already in progress\))" "$T/run.out" "track run queues a run"
RID=$(sed -n 's/^run \([0-9]*\).*/\1/p' "$T/run.out")
ok "the run fails" wait_field "$KD_URL/api/v1/tracks/far/runs" \
    ".runs[] | select(.id == $RID) | .state" 30 failed
curl -fs "$KD_URL/api/v1/tracks/far/runs" >"$T/runs.json"
ok "with the fetch's reason" jq -e ".runs[] | select(.id == $RID) |
    .error | test(\"git|fetch|repository\")" "$T/runs.json"
echo "# $(jq -c ".runs[] | select(.id == $RID) | {state, error}" "$T/runs.json")"

code=$(curl -s -o "$T/post.json" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/json' -d '{}' "$KD_URL/api/v1/tracks/far/runs")
is "$code" 202 "POST .../runs: 202"
NEW=$(jq -r .id "$T/post.json")
code=$(curl -s -o "$T/post2.json" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/json' -d '{}' "$KD_URL/api/v1/tracks/far/runs")
is "$(jq -r '.existing or (.id > '"$NEW"')' "$T/post2.json")" true \
    "a second POST returns the run in progress or a new one after it"
is "$(curl -fs "$KD_URL/api/v1/tracks/far/runs" | jq '[.runs[] | select(.state != "done" and .state != "failed")] | length <= 1')" \
    true "never two runs of the track in progress"

code=$(curl -s -o "$T/e.json" -w '%{http_code}' "$KD_URL/api/v1/tracks/nosuch")
is "$code" 404 "an unknown track: 404"
like "no track \\\\\"nosuch\\\\\" is configured" "$T/e.json" "saying which"
code=$(curl -s -o "$T/e.json" -w '%{http_code}' "$KD_URL/api/v1/regressions/x1")
is "$code" 400 "a bad regression id: 400"
code=$(curl -s -o "$T/e.json" -w '%{http_code}' "$KD_URL/api/v1/regressions/99")
is "$code" 404 "an unknown regression: 404"
code=$(curl -s -o "$T/e.json" -w '%{http_code}' "$KD_URL/regressions/99/report.txt")
is "$code" 404 "its report: 404"

curl -fs "$KD_URL/tracks" >"$T/tracks.html"
like "<a href=\"/tracks/far\">far</a>" "$T/tracks.html" "/tracks lists it"
curl -fs "$KD_URL/tracks/far" >"$T/far.html"
like "<tr class=\"run\"><td>$RID</td>" "$T/far.html" "/tracks/far shows the failed run"
like "No run has finished yet" "$T/far.html" "and no history yet"
code=$(curl -s -o /dev/null -w '%{http_code}' "$KD_URL/tracks/nosuch")
is "$code" 404 "/tracks/nosuch: 404"
"$KPERFCI_BIN/kperfci" track show far >"$T/show.out"
like "failed" "$T/show.out" "track show lists the failed run"
"$KPERFCI_BIN/kperfci" track show 'a/b' >/dev/null 2>&1
ok "track show refuses a name that is not a name" [ $? -eq 2 ]

ok "kperfcid stops cleanly" kd_stop
test_done
