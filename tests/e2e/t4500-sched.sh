#!/bin/sh
# t4500: the A/B scheduler in the real daemon.  A fake kernel tree (a
# Makefile project whose "bzImage" carries the setup header kperfci checks)
# takes series through apply and build to `built`; the scheduler makes the
# comparison; an agent simulated with curl over the real agent protocol
# leases, downloads and uploads.  Checked: A B interleaving, the kernels each
# side boots, the progress JSON and page, a finished comparison, a series
# whose every patched boot panicked failing with the console log linked,
# and a submission's own boots and matrix.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/fake-kernel.sh"

command -v bwrap >/dev/null || skip_all "bubblewrap not installed"
command -v jq >/dev/null || skip_all "jq not installed"
# the sandboxed build runs as an unprivileged user: it must reach the tree
chmod 755 "$T"

R=$T/tree
W=$T/work
fake_kernel_tree "$R" || exit 1
BASE=$(git -C "$R" rev-parse HEAD)

mk() {	# mk NAME COMMANDS: a one-patch series against $BASE
	rm -rf "$W"
	git clone -q "$R" "$W"
	(cd "$W" && sh -ec "$2")
	git -C "$W" commit -qam "$1: change"
	git -C "$W" format-patch -q --cover-letter --base="$BASE" \
	    --stdout -1 >"$T/$1.mbox"
	sed -i 's/\*\*\* SUBJECT HERE \*\*\*/'"$1"'/' "$T/$1.mbox"
}
mk good "sed -i 's/^10\$/ten/' mm/swap.c"
mk panics "sed -i 's/^20\$/twenty/' mm/swap.c"

TOKEN=sim-agent-token
TSHA=$(printf %s "$TOKEN" | sha256sum | cut -d' ' -f1)
kd_config "[tree \"fake\"]\npath = $R\nbranch = master\nconfig = tinyconfig\nfragment = $T/frag.config\n[build]\ntimeout = 30\njobs = 2\n[agent \"sim\"]\ntoken_sha256 = $TSHA\n[sched]\nboots = 2\nboot_step = 2\nmax_boots = 4"
ok "daemon starts with [tree], [agent] and [sched]" kd_start

submit() {	# submit MBOX [QUERY] -> prints the id
	curl -s -o "$T/r.json" -X POST -H "Content-Type: application/mbox" \
	    --data-binary @"$1" "$KD_URL/api/v1/series${2:+?$2}"
	jq -r .id "$T/r.json"
}
get() {		# get ID -> $T/s.json
	curl -s "$KD_URL/api/v1/series/$1" >"$T/s.json"
}
agent() {	# agent PATH JSON -> body in $T/a.json, prints the status
	curl -s -o "$T/a.json" -w '%{http_code}' -X POST \
	    -H "Authorization: Bearer $TOKEN" \
	    -H "Content-Type: application/json" -d "$2" "$KD_URL$1"
}
# upload ID ATTEMPT STATUS VALUE: one metric, 3 iterations around VALUE
upload() {
	if [ "$3" = done ]; then
		s=$(jq -cn --argjson v "$4" '[range(3) as $i | {workload:
		    "fault-free", params: "mode=shmem,tasks=2", iteration: $i,
		    metric: "pages_per_sec", value: ($v + $i), unit: "pages/s",
		    better: "higher"}]')
		extra=
	else
		s='[]'
		extra=', "reason": "kernel panic", "console": "Kernel panic - not syncing: test\n"'
	fi
	agent "/api/v1/jobs/$1/results" "{\"agent\": \"sim\", \"attempt\": $2,
	    \"status\": \"$3\", \"samples\": $s $extra}"
}

TOPO='{"sockets": 2, "nodes": 2, "cpus": 4, "cores": 4, "cpu_model": "Sim CPU", "memory_mb": 2048}'
is "$(agent /api/v1/agents/register "{\"agent\": \"sim\", \"backend\": \"qemu\", \"topology\": $TOPO}")" \
    200 "simulated agent registers"
CLASS=$(jq -r .class "$T/a.json")

G=$(submit "$T/good.mbox")
ok "series reaches running" kd_wait_series "$G" 60 running
get "$G"
is "$(jq -r .schedule.state "$T/s.json")" running "comparison running"
is "$(jq -r .schedule.base.planned "$T/s.json")/$(jq -r .schedule.patched.planned "$T/s.json")" \
    2/2 "2 boots per side planned ([sched] boots)"
is "$(jq -r .schedule.class "$T/s.json")" "$CLASS" "pinned to the agent's class"
is "$(jq -r '.schedule.jobs | length' "$T/s.json")" 4 "4 jobs queued"
BK=$(jq -r .schedule.base.kernel "$T/s.json")
PK=$(jq -r .schedule.patched.kernel "$T/s.json")
curl -s "$KD_URL/series/$G" >"$T/g.html"
like "<h2>Boots</h2>" "$T/g.html" "series page shows the boots section"

# lease everything, the way kperfci-agent does, and remember the order
ORDER=
KOK=yes
while [ "$(agent /api/v1/agents/lease '{"agent": "sim"}')" = 200 ]; do
	id=$(jq -r .job.id "$T/a.json")
	att=$(jq -r .job.attempt "$T/a.json")
	kid=$(jq -r .job.kernel.id "$T/a.json")
	ksha=$(jq -r .job.kernel.sha256 "$T/a.json")
	side=$(curl -s "$KD_URL/api/v1/jobs/$id" | jq -r .side)
	[ "$side" = base ] && ORDER="${ORDER}A" || ORDER="${ORDER}B"
	{ [ "$side" = base ] && [ "$kid" = "$BK" ]; } ||
	    { [ "$side" = patched ] && [ "$kid" = "$PK" ]; } || KOK=no
	got=$(curl -s -H "Authorization: Bearer $TOKEN" \
	    "$KD_URL/api/v1/kernels/$kid/bzImage" | sha256sum | cut -d" " -f1)
	[ "$got" = "$ksha" ] || KOK=no
	if [ "$ORDER" = A ]; then
		get "$G"
		is "$(jq -r '.schedule.agents[0]' "$T/s.json")" sim \
		    "progress names the current agent"
	fi
	upload "$id" "$att" done 1000 >/dev/null
	if [ "$ORDER" = AB ]; then
		# a restart mid-comparison resumes it from the store
		ok "daemon stops mid-comparison" kd_stop
		ok "daemon restarts" kd_start
		get "$G"
		is "$(jq -r .state "$T/s.json")/$(jq -r .schedule.base.done "$T/s.json")/$(jq -r .schedule.patched.queued "$T/s.json")" \
		    running/1/1 "after the restart: still running, progress kept"
	fi
done
is "$ORDER" ABAB "leases alternate base and patched"
is "$KOK" yes "each side downloads its own kernel, sha256 as announced"
ok "series done" kd_wait_series "$G" 30 done
get "$G"
is "$(jq -r .schedule.state "$T/s.json")" done "comparison done"
is "$(jq -r .schedule.base.done "$T/s.json")/$(jq -r .schedule.patched.done "$T/s.json")" \
    2/2 "2 boots done per side"
jq -r .schedule.summary "$T/s.json" >"$T/sum"
like "1 no change" "$T/sum" "summary: identical sides are no change"

# every patched boot panics: the series fails with the console linked
# (submitted as a quick run: one boot per side)
code=$(curl -s -o "$T/r.json" -w '%{http_code}' -X POST \
    -H "Content-Type: application/mbox" --data-binary @"$T/panics.mbox" \
    "$KD_URL/api/v1/series?boots=x")
is "$code" 400 "?boots=x refused"
# through the CLI: its --boots must reach the scheduler
"$KPERFCI_BIN/kperfci" -s "$KD_URL" submit --mbox "$T/panics.mbox" --boots 0 \
    --no-follow >"$T/cli.out" 2>&1
is "$?" 2 "kperfci submit --boots 0: a usage error"
like "between 1 and 1000" "$T/cli.out" "it says the range"
"$KPERFCI_BIN/kperfci" -s "$KD_URL" submit --mbox "$T/panics.mbox" \
    --matrix "$T/none" --no-follow >"$T/cli.out" 2>&1
is "$?" 2 "kperfci submit --mbox with --matrix: a usage error"
# a bad matrix is refused before anything is sent, naming the file and line
n0=$(curl -s "$KD_URL/api/v1/series" | jq '.series | length')
printf '# mine\n[run "a"]\nworkload = fault-free\nmode = huge\n' >"$T/bad.conf"
"$KPERFCI_BIN/kperfci" -s "$KD_URL" submit --matrix "$T/bad.conf" \
    --no-follow "$KD_URL/no/such@thread/" >"$T/cli.out" 2>&1
is "$?" 2 "kperfci submit --matrix with a bad matrix: refused"
like "bad.conf:2: run \"a\": fault-free: --mode \"huge\"" "$T/cli.out" \
    "the error names the user's file, line, run and value"
is "$(curl -s "$KD_URL/api/v1/series" | jq '.series | length')" "$n0" \
    "nothing was submitted"
"$KPERFCI_BIN/kperfci" -s "$KD_URL" submit --mbox "$T/panics.mbox" \
    --boots auto --no-follow >"$T/auto.out" 2>&1
is "$?" 0 "kperfci submit --boots auto: accepted"
P=$("$KPERFCI_BIN/kperfci" -s "$KD_URL" submit --mbox "$T/panics.mbox" \
    --boots 1 --no-follow)
ok "second series reaches running" kd_wait_series "$P" 180 running
get "$P"
is "$(jq -r .schedule.boots "$T/s.json")/$(jq -r '.schedule.jobs | length' "$T/s.json")" \
    1/2 "kperfci submit --boots 1: one boot per side"
while [ "$(agent /api/v1/agents/lease '{"agent": "sim"}')" = 200 ]; do
	id=$(jq -r .job.id "$T/a.json")
	att=$(jq -r .job.attempt "$T/a.json")
	side=$(curl -s "$KD_URL/api/v1/jobs/$id" | jq -r .side)
	if [ "$side" = patched ]; then
		upload "$id" "$att" boot-failed 0 >/dev/null
	else
		upload "$id" "$att" done 1000 >/dev/null
	fi
done
ok "series failed" kd_wait_series "$P" 30 failed
get "$P"
jq -r .error "$T/s.json" >"$T/err"
like "^every patched boot panicked" "$T/err" "reason: every patched boot panicked"
CON=$(grep -o '/api/v1/jobs/[0-9]*/console?attempt=[0-9]*' "$T/err")
curl -s "$KD_URL$CON" >"$T/console"
like "Kernel panic - not syncing" "$T/console" "the linked console log is the panic"
is "$(jq -r .schedule.patched.boot_failed "$T/s.json")" 1 "the patched boot failure counted"
is "$(jq -r '.schedule.jobs | length' "$T/s.json")" 2 "kernel failures are not retried"

# suites chosen at submission instead of those the series touches
printf '{"url": "http://127.0.0.1:9/x/s@b/", "suites": ["nope"]}' >"$T/req.json"
code=$(curl -s -o "$T/r.json" -w '%{http_code}' -X POST \
    -H "Content-Type: application/json" --data-binary @"$T/req.json" \
    "$KD_URL/api/v1/series")
is "$code" 400 "an unknown suite is refused"
like 'no suite \\"nope\\" \(no etc/suites/nope.conf\)' "$T/r.json" "and named"
ok "kperfci submit --suite with a bad name fails" sh -c \
    "! '$KPERFCI_BIN/kperfci' -s '$KD_URL' submit --mbox '$T/panics.mbox' \
    --suite 'lru-lock;x' --no-follow >'$T/cli.out' 2>&1"
like "suites\[0\]: expected a suite name" "$T/cli.out" "the server's reason is printed"
code=$(curl -s -o "$T/r.json" -w '%{http_code}' -X POST \
    -H "Content-Type: application/mbox" --data-binary @"$T/panics.mbox" \
    "$KD_URL/api/v1/series?suites=lru-lock,list-lru&boots=1")
is "$code" 202 "?suites= naming suites that exist is accepted"

# a submission's own boots and matrix (a lore URL that will not fetch: the
# options are stored with the series regardless)
printf '{"url": "http://127.0.0.1:9/x/a@b/", "boots": 0}' >"$T/req.json"
code=$(curl -s -o "$T/r.json" -w '%{http_code}' -X POST \
    -H "Content-Type: application/json" --data-binary @"$T/req.json" \
    "$KD_URL/api/v1/series")
is "$code" 400 "boots 0 refused"
like '\\"boots\\"' "$T/r.json" "the error names the field"

kd_stop
test_done
