#!/bin/sh
# t2750-track-sandbox: a nightly track's build goes through the daemon's one
# build path (daemon/kernels.c), with the series builds' sandbox: the store
# hidden and the [build] limits (issue 18 finding 10, issue 17).  A track
# on a small local tree (tests/fake-kernel.sh) whose head commit's Makefile
# fails the build when it can see the daemon's store, or when it can write
# a file larger than [build] file_max.  Before, the track's copy of the
# build path ran without either.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/fake-kernel.sh"

command -v bwrap >/dev/null || skip_all "bubblewrap not installed"
command -v jq >/dev/null || skip_all "jq not installed"
chmod 755 "$T"

R=$T/tree
fake_kernel_tree "$R" || exit 1
fake_kernel_probe "$R"

cat >"$T/matrix.conf" <<'EOF2'
[run "n"]
workload = null
EOF2
kd_config "[tree \"t\"]\npath = $R\nbranch = master\nconfig = tinyconfig\n[track \"t\"]\ntree = t\nmatrix = $T/matrix.conf\nboots = 1\n[build]\nfile_max = 1M"
ok "kperfcid starts with a [track] on a local tree" kd_start
ok "the store exists where the probe looks" test -e "$T/var/kperfci.db"

code=$(curl -s -o "$T/post.json" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/json' -d '{}' "$KD_URL/api/v1/tracks/t/runs")
is "$code" 202 "a track run is queued"
RID=$(jq -r .id "$T/post.json")
ok "its build ends (the run waits for boots, or fails)" \
    wait_field "$KD_URL/api/v1/tracks/t/runs" \
    ".runs[] | select(.id == $RID) | .state" 120 running done failed
curl -fs "$KD_URL/api/v1/tracks/t/runs" >"$T/runs.json"
echo "# $(jq -c ".runs[] | select(.id == $RID) | {state, error}" "$T/runs.json")"
isnt_failed() { jq -e ".runs[] | select(.id == $RID) | .state != \"failed\"" "$T/runs.json" >/dev/null; }
ok "the track's build passed its sandbox probe" isnt_failed
ok "its build log says the store was hidden and file_max applied" \
    fake_kernel_probe_passed

ok "kperfcid stops cleanly" kd_stop
test_done
