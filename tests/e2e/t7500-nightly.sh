#!/bin/sh
# t7500-nightly: issue 9's end-to-end test of nightly tracking on the real
# pipeline.  A local git repository on top of the 6.12 reference tree (a
# shared clone of kernel-lib.sh's) is tracked by a [track] with a one-run
# matrix (fault-free); runs are triggered with `kperfci track run` across
# "nights", with new commits pushed between them:
#
#   night 1  the reference commit (its build is the shared cache hit)
#   night 2  + two ordinary commits
#   night 3  + an ordinary commit, the lru-delay calibration commit
#              (patches/lru-delay.mbox, git am), another ordinary commit
#   night 4  + one ordinary commit
#   night 5  nothing new: "no new commits", no build, no boot
#
# Checked: the runs' states; the change point is found at night 3 (the
# regression's first bad run) as a fault-free regression; the bisect over
# night 2..3 names the calibration commit with its subject and author; the
# JSON, CLI, report.txt and pages agree; the pages render in headless
# Chromium (screenshot kept in var/screenshots/t7500-*.png).
#
# Heavy: 4 incremental builds of seconds (ordinary commits touch no
# compiled file), 3 boots per night, 3 per bisect step (more when a step is
# not decided), about 15 s per boot under TCG with -icount.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"
. "$SRC/tests/kernel-lib.sh"

for c in qemu-system-x86_64 bwrap jq chromium git; do
	command -v $c >/dev/null || skip_all "$c not installed"
done
[ -x /bin/busybox ] || skip_all "busybox-static not installed"
[ -r "$KERNEL_TARBALL" ] || skip_all "linux-source-6.12 not installed"

REF=$(kernel_ref_tree) || { echo "Bail out! no reference tree"; exit 1; }
kernel_ref_bzimage >/dev/null || { echo "Bail out! reference build failed"; exit 1; }
BASE=$(kernel_ref_commit)

# ---- the tracked repository ---------------------------------------------
W=$(kernel_cache_dir)/t7500-$$
rm -rf "$W"
cleanup_w() { rm -rf "$W"; }
at_exit cleanup_w
# shared objects, and only the two files the commits touch checked out
git clone -q --shared --no-checkout "$REF" "$W" &&
    git -C "$W" sparse-checkout set --no-cone \
	/Documentation/kperfci-nightly.txt /mm/swap.c &&
    git -C "$W" checkout -q master ||
    { echo "Bail out! clone failed"; exit 1; }
chmod 755 "$W"
git -C "$W" config user.name "Nightly Tester"
git -C "$W" config user.email "nightly@kperfci.invalid"
export GIT_COMMITTER_DATE="1731888000 +0000" GIT_AUTHOR_DATE="1731888000 +0000"
nord=0
ordinary() {
	nord=$((nord + 1))
	mkdir -p "$W/Documentation" &&
	echo "ordinary change $nord" >>"$W/Documentation/kperfci-nightly.txt" &&
	git -C "$W" add -f Documentation/kperfci-nightly.txt &&
	git -C "$W" commit -q -m "docs: ordinary change $nord" \
	    -m "Link: https://lore.kernel.org/r/ordinary-$nord@kperfci.invalid"
}

cat >"$T/matrix.conf" <<'EOF'
# t7500: the fault-free workload alone, a few seconds per boot under TCG
[defaults]
seconds = 1
iterations = 3
warmup = 1

[run "fault-free-shmem-node"]
workload = fault-free
mode = shmem
tasks = node
EOF

# ---- configuration errors: -n names file:line -----------------------------
printf '[tree "t"]\npath = %s\n[track "bad"]\ntree = nosuch\n' "$W" >"$T/bad.conf"
"$KPERFCI_BIN/kperfcid" -n -c "$T/bad.conf" >"$T/bad.out" 2>&1
ok "-n refuses a track naming an unknown tree" [ $? -ne 0 ]
like "bad.conf:4: \[track \"bad\"\]: tree \"nosuch\" is not a configured" \
    "$T/bad.out" "and names file:line"

kd_config "[tree \"nightly\"]\npath = $W\nbranch = master\nconfig = tinyconfig\nfragment = $SRC/etc/kconfig/perf.config\nfragment = $SRC/etc/kconfig/qemu.config\n[build]\ncache = $(kernel_cache_dir)/builds\njobs = ${KPERFCI_TEST_JOBS:-2}\ntimeout = 3600\n[agents]\nlease = 300\n[track \"mm\"]\ntree = nightly\nmatrix = $T/matrix.conf\nboots = 3\nmax_boots = 9\n$(ka_section q1)"
ok "kperfcid starts with the [track]" kd_start
ka_config q1 "backend = qemu\n[qemu]\nicount = shift=3,sleep=off\naccel = tcg\nsockets = 2\ncores-per-socket = 2\nmemory-per-node = 512\nboot-timeout = 180\njob-timeout = 900"
ka_start q1
ok "the agent registers" ka_wait_log q1 "registered|class" 60
export KPERFCI_SERVER=$KD_URL

ok "/api/v1/tracks lists the track" sh -c \
    "curl -fs '$KD_URL/api/v1/tracks' | jq -e '.tracks[0].name == \"mm\" and .tracks[0].tree == \"nightly\"' >/dev/null"

# night RUN_ID STATE: waits for run RUN_ID to end, prints its state
wait_run() {
	i=0
	while [ $i -lt 1800 ]; do
		s=$(curl -fs "$KD_URL/api/v1/tracks/mm/runs" |
		    jq -r ".runs[] | select(.id == $1) | .state")
		case $s in done|failed) echo "$s"; return 0 ;; esac
		sleep 1
		i=$((i + 1))
	done
	echo timeout
}
night() {
	"$KPERFCI_BIN/kperfci" track run mm >"$T/run.out" || return 1
	id=$(sed -n 's/^run \([0-9]*\).*/\1/p' "$T/run.out")
	st=$(wait_run "$id")
	echo "# night: run $id $st ($(git -C "$W" log -1 --format=%h%x20%s))"
	[ "$st" = done ]
}

ok "night 1 (the reference commit) is done" night
ordinary && ordinary || { echo "Bail out! cannot commit"; exit 1; }
ok "night 2 (+2 ordinary commits) is done" night
H2=$(git -C "$W" rev-parse HEAD)
ordinary || { echo "Bail out! cannot commit"; exit 1; }
# the mbox starts with its cover letter: an empty patch to git am, skipped
{ git -C "$W" am -q "$SRC/patches/lru-delay.mbox" >/dev/null 2>&1 ||
    git -C "$W" am -q --skip; } &&
    git -C "$W" log -1 --format=%s | grep -q "hold lru_lock longer" ||
    { echo "Bail out! the calibration commit does not apply"; exit 1; }
CAL=$(git -C "$W" rev-parse HEAD)
CAL_SUBJ=$(git -C "$W" log -1 --format=%s "$CAL")
ordinary || { echo "Bail out! cannot commit"; exit 1; }
ok "night 3 (+ordinary, calibration, ordinary) is done" night
H3=$(git -C "$W" rev-parse HEAD)
ordinary || { echo "Bail out! cannot commit"; exit 1; }
ok "night 4 (+1 ordinary) is done" night
ok "night 5 (nothing new) is done" night
curl -fs "$KD_URL/api/v1/tracks/mm" >"$T/track.json"
is "$(jq -r '.runs[0].note' "$T/track.json")" "no new commits" \
    "night 5 records no new commits"
is "$(jq -r '.runs[0].kernel' "$T/track.json")" null "and built and booted nothing"
is "$(jq -r '[.runs[] | select(.kernel != null)] | length' "$T/track.json")" 4 \
    "four nights tested a kernel"
is "$(jq -r '.runs[3].head' "$T/track.json")" "$H2" "night 2's head recorded"

# ---- the regression and its bisect ---------------------------------------
i=0
while [ $i -lt 1800 ]; do
	curl -fs "$KD_URL/api/v1/tracks/mm" >"$T/track.json"
	st=$(jq -r '.regressions[0].state // "none"' "$T/track.json")
	[ "$st" != none ] && [ "$st" != bisecting ] && break
	sleep 2
	i=$((i + 2))
done
echo "# regressions: $(jq -c '[.regressions[] | {id, metric, pct_change, last_good_run, first_bad_run, state, first_bad_commit}]' "$T/track.json")"
RID=$(jq -r '.regressions[0].id' "$T/track.json")
N3=$(jq -r ".runs[] | select(.head == \"$H3\") | .id" "$T/track.json")
N2=$(jq -r ".runs[] | select(.head == \"$H2\") | .id" "$T/track.json")
is "$(jq -r '[.regressions[] | select(.workload == "fault-free")] | length > 0' "$T/track.json")" \
    true "a fault-free regression was opened"
is "$(jq -r '.regressions[0].first_bad_run' "$T/track.json")" "$N3" \
    "its first bad run is night 3"
is "$(jq -r '.regressions[0].last_good_run' "$T/track.json")" "$N2" \
    "its last good run is night 2"
ok "its size is a large drop with a CI below zero" jq -e \
    '.regressions[0].pct_change < -10 and .regressions[0].ci95[1] < 0' \
    "$T/track.json"
curl -fs "$KD_URL/api/v1/regressions/$RID" >"$T/reg.json"
is "$(jq -r .state "$T/reg.json")" found "the bisect ended with a first bad commit"
is "$(jq -r .first_bad_commit "$T/reg.json")" "$CAL" \
    "the bisect names the calibration commit"
ok "named only once verified: the commit read bad, its parent good" jq -e \
    --arg c "$(printf %.12s "$CAL")" '.verified | test("the commit " + $c +
    ": [0-9]+ boots .*: bad") and test("its parent [0-9a-f]{12}: [0-9]+ boots .*: good")' \
    "$T/reg.json"
echo "# verified: $(jq -r .verified "$T/reg.json")"
is "$(jq -r .subject "$T/reg.json")" "$CAL_SUBJ" "with its subject"
ok "and its author" jq -e '.author | test("<.*@.*>")' "$T/reg.json"
ok "every step has evidence against both ends" jq -e \
    '(.steps | length) >= 1 and ([.steps[] | select(.verdict == "good" or .verdict == "bad") |
      .vs_good.pct_change != null and .to_bad.pct_change != null] | all)' "$T/reg.json"
echo "# steps: $(jq -c '[.steps[] | {commit: .commit[0:12], verdict, boots, g: .vs_good.pct_change, b: .to_bad.pct_change}]' "$T/reg.json")"

# ---- CLI, report, pages --------------------------------------------------
"$KPERFCI_BIN/kperfci" track list >"$T/list.out"
like "^mm +tree nightly branch master" "$T/list.out" "track list"
"$KPERFCI_BIN/kperfci" track show mm >"$T/show.out"
like "no new commits" "$T/show.out" "track show lists the runs"
like "#$RID fault-free .* found $(printf %.12s "$CAL")" "$T/show.out" \
    "track show names the first bad commit"
curl -fs "$KD_URL/regressions/$RID/report.txt" >"$T/report.txt"
like "^commit: $CAL" "$T/report.txt" "report.txt: the commit"
like "regression of fault-free\.pages_per_sec" "$T/report.txt" "report.txt: the metric"
like "Reported-by: kperfci nightly" "$T/report.txt" "report.txt: the tag"

chrome() {
	timeout 180 chromium --headless --no-sandbox --disable-gpu \
	    --disable-quic --no-first-run --disable-background-networking \
	    --disable-component-update --disable-sync \
	    --disable-dev-shm-usage --user-data-dir="$T/chrome" "$@" 2>>"$T/chrome.log"
}
chrome --dump-dom "$KD_URL/tracks" >"$T/tracks.dom"
like "<a href=\"/tracks/mm\">mm</a>" "$T/tracks.dom" "Chromium: /tracks lists the track"
like "href=\"/regressions/$RID\"" "$T/tracks.dom" "and links the regression"
chrome --dump-dom "$KD_URL/tracks/mm" >"$T/track.dom"
like "<svg class=\"chart\"" "$T/track.dom" "Chromium: /tracks/mm draws the history chart"
like "change point at run $N3" "$T/track.dom" "with the change point at night 3"
like "no new commits" "$T/track.dom" "and the runs table"
chrome --dump-dom "$KD_URL/regressions/$RID" >"$T/reg.dom"
like "class=\"first-bad\"><code>$CAL</code>" "$T/reg.dom" \
    "Chromium: /regressions/$RID shows the first bad commit"
like "<tr class=\"step\">" "$T/reg.dom" "and the bisect steps"
mkdir -p "$SRC/var/screenshots"
chrome --screenshot="$T/track.png" --window-size=1200,1600 "$KD_URL/tracks/mm" >/dev/null
chrome --screenshot="$T/reg.png" --window-size=1200,1600 "$KD_URL/regressions/$RID" >/dev/null
ok "screenshots of both pages" [ -s "$T/track.png" -a -s "$T/reg.png" ]
cp "$T/track.png" "$SRC/var/screenshots/t7500-track.png" 2>/dev/null
cp "$T/reg.png" "$SRC/var/screenshots/t7500-regression.png" 2>/dev/null

test_done
