#!/bin/sh
# t2760-bisect-sandbox: a bisect step's build goes through the daemon's one
# build path (daemon/kernels.c) with the sandbox of every other build: the
# store hidden and the [build] limits, like the nightly build of t2750.
# A small local tree (tests/fake-kernel.sh): good, then a commit whose
# Makefile fails the build when it can see the daemon's store or write a
# file larger than [build] file_max, then a bad commit.  A regression
# between good and bad is put in the store as a night's analysis opens
# one (state bisecting); the bisect thread takes the probe commit as its
# midpoint and builds it.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/fake-kernel.sh"

command -v bwrap >/dev/null || skip_all "bubblewrap not installed"
command -v jq >/dev/null || skip_all "jq not installed"
command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed"
chmod 755 "$T"

R=$T/tree
fake_kernel_tree "$R" || exit 1
GOOD=$(git -C "$R" rev-parse HEAD)
fake_kernel_probe "$R"
PROBE=$(git -C "$R" rev-parse HEAD)
sed -i 's/^10$/ten/' "$R/mm/swap.c"
git -C "$R" commit -qam "mm: the bad commit"
BAD=$(git -C "$R" rev-parse HEAD)

cat >"$T/matrix.conf" <<'EOF2'
[run "n"]
workload = null
EOF2
kd_config "[tree \"t\"]\npath = $R\nbranch = master\nconfig = tinyconfig\n[track \"t\"]\ntree = t\nmatrix = $T/matrix.conf\nboots = 1\n[build]\nfile_max = 1M"
ok "kperfcid starts with a [track] on a local tree" kd_start
ok "and stops (its store made)" kd_stop

sqlite3 "$T/var/kperfci.db" <<SQL
INSERT INTO regressions (track, tree, workload, params, metric, unit, better,
    good_run, bad_run, good_commit, bad_commit, pct_change, state, created,
    updated)
VALUES ('t', 't', 'null', 'x', 'ops', 'ops/s', 1, 1, 2, '$GOOD', '$BAD',
    -12.5, 'bisecting', 1, 1);
SQL
ok "a regression to bisect is stored" [ $? -eq 0 ]
ok "the store exists where the probe looks" test -e "$T/var/kperfci.db"
ok "kperfcid starts again" kd_start

U=$KD_URL/api/v1/regressions/1
ok "the bisect's first step is built (or waits for boots), not skipped" \
    wait_field "$U" '.steps[0].state' 120 built running skipped
curl -fs "$U" >"$T/reg.json"
echo "# $(jq -c '.steps[0] | {commit, state, reason}' "$T/reg.json")"
is "$(jq -r '.steps[0].commit' "$T/reg.json")" "$PROBE" \
    "the step is the probe commit, the midpoint of good..bad"
isnt_skipped() { jq -e '.steps[0].state != "skipped"' "$T/reg.json" >/dev/null; }
ok "the step's build passed its sandbox probe" isnt_skipped
ok "its build log says the store was hidden and file_max applied" \
    fake_kernel_probe_passed

ok "kperfcid stops cleanly" kd_stop
test_done
