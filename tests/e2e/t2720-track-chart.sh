#!/bin/sh
# t2720-track-chart: /tracks/NAME draws the change points the nightly rule
# stored (the regressions opened when their runs finished), and never runs
# a detection of its own inside the GET (issue 17: change points were
# recomputed on every view, and could show points the daemon never acted
# on).  A store with four runs: metric "ops" steps down at run 3 and has a
# regression; metric "lat" steps too, but no regression was opened for it.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed"

kd_config "[tree \"far\"]\nurl = $T/no-such-repo.git\npath = $T/far.git\nbranch = master\n[track \"far\"]\ntree = far\nboots = 2"
ok "kperfcid starts with a [track]" kd_start
ok "and stops (its store made)" kd_stop

{
	echo "BEGIN;"
	for r in 1 2 3 4; do
		echo "INSERT INTO track_runs (id, track, trigger, state, head,"
		echo "    boots, created, updated) VALUES ($r, 'far', 'timer',"
		echo "    'done', '$(printf '%040d' $r)', 2, $r, $r);"
		for b in 1 2; do
			ops=$([ $r -lt 3 ] && echo 1000 || echo 800)
			lat=$([ $r -lt 3 ] && echo 10 || echo 20)
			echo "INSERT INTO track_points (run_id, boot, workload,"
			echo "    params, metric, unit, better, value) VALUES"
			echo "    ($r, $b, 'wl', '', 'ops', 'ops/s', 1, $ops.$b);"
			echo "INSERT INTO track_points (run_id, boot, workload,"
			echo "    params, metric, unit, better, value) VALUES"
			echo "    ($r, $b, 'wl', '', 'lat', 'us', -1, $lat.$b);"
		done
	done
	echo "INSERT INTO regressions (track, tree, workload, params, metric,"
	echo "    unit, better, good_run, bad_run, good_commit, bad_commit,"
	echo "    pct_change, ci_lo, ci_hi, p_value, state, created, updated)"
	echo "    VALUES ('far', 'far', 'wl', '', 'ops', 'ops/s', 1, 2, 3,"
	echo "    '$(printf '%040d' 2)', '$(printf '%040d' 3)', -20.0, -21.0,"
	echo "    -19.0, 0.001, 'undecided', 3, 3);"
	echo "COMMIT;"
} | sqlite3 "$T/var/kperfci.db"
ok "a history and one regression stored" [ $? -eq 0 ]
ok "kperfcid starts again" kd_start

curl -fs "$KD_URL/tracks/far" >"$T/far.html"
like "<svg class=\"chart\"" "$T/far.html" "the history is charted"
like "change point at run 3: -20.0% \[-21.0%, -19.0%\], p = 0.001" \
    "$T/far.html" "the ops chart shows the stored regression's change point"
like "href=\"/regressions/1\">regression #1</a>" "$T/far.html" "linking it"
is "$(grep -c 'change point at run' "$T/far.html")" 1 \
    "the lat step, for which nothing was opened, shows no change point"

ok "kperfcid stops cleanly" kd_stop
test_done
