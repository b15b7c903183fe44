#!/bin/sh
# bench-e2e: submission -> verdict on the demo agent with a warm base, as a
# developer would see it, split into its phases: fetch (lore thread, pick),
# apply, build (the patched kernel, incremental from the cached base),
# boots (A/B on the qemu agent) and analysis (last upload -> verdict).
#
# The series is the lru-delay calibration with its delay changed to
# 21..99 us, a value of the clock's (new source, so the patched build is a
# real incremental build, not a cache hit of an earlier run) under fresh
# message-ids, on a local public-inbox.  The matrix
# is the daemon's default for the series (the suites its files touch),
# unless BENCH_MATRIX names a file.  Target (issue 11): a verdict within
# 15 minutes of submission on a warm base.  The boots are the daemon's
# default plan (3 per side at the first look, up to 12, the verdict
# published at the first look that decides), unless BENCH_BOOTS sets the
# first look (BENCH_BOOTS=6: 6 per side, up to 12).
#
# The base build is kernel-lib.sh's shared reference build: the first run
# on a fresh machine builds it (~10 min) before the clock starts.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
: "${KPERFCI_BIN:=$SRC/bin}"
# the test libraries, as the e2e tests use them
T=$(mktemp -d "${TMPDIR:-/tmp}/kperfci-bench.XXXXXX")
cleanup_fns=
at_exit() { cleanup_fns="$1 $cleanup_fns"; }
trap 'for f in $cleanup_fns; do "$f" || :; done; [ "${KEEP:-0}" = 1 ] || rm -rf "$T"' EXIT
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_http() {
	i=0
	while [ $i -lt $((${2:-10} * 10)) ]; do
		curl -fs -o /dev/null "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"
. "$SRC/tests/pi-lib.sh"
. "$SRC/tests/kernel-lib.sh"

BOOTS=${BENCH_BOOTS:-}
plan=
[ -n "$BOOTS" ] && plan="\n[sched]\nboots = $BOOTS\nboot_step = $BOOTS\nmax_boots = $((2 * BOOTS))"
die() { echo "bench-e2e: $*" >&2; exit 1; }

REPO=$(kernel_ref_tree) || die "no reference tree"
echo "== warming the base build (not timed)"
kernel_ref_bzimage >/dev/null || die "reference build failed"

# the series: lru-delay at 21 us, new message-ids
tag=bench-e2e-$(date +%s)
sed -e "s/kperfci-calibration-lru-delay/kperfci-$tag/g" \
    -e "s/lru_delay_us = 20;/lru_delay_us = $((21 + $(date +%s) % 79));/" \
    "$SRC/patches/lru-delay.mbox" >"$T/series.mbox"
pi_start test >/dev/null || die "public-inbox did not start"
pi_import test "$T/series.mbox" || die "import failed"
URL="${PI_URL}test/kperfci-$tag-0@kperfci.invalid/"

matrix=
[ -n "${BENCH_MATRIX:-}" ] && matrix="\n[sched]\nmatrix = $BENCH_MATRIX"
kd_config "[lore]\nallow = $PI_URL\n[tree \"linux-6.12\"]\npath = $REPO\nbranch = master\nconfig = tinyconfig\nfragment = $SRC/etc/kconfig/perf.config\nfragment = $SRC/etc/kconfig/qemu.config\n[build]\ncache = $(kernel_cache_dir)/builds\njobs = ${KPERFCI_TEST_JOBS:-2}\ntimeout = 3600\n[agents]\nlease = 300$plan$matrix\n$(ka_section q1)"
kd_start || die "kperfcid did not start"
ka_config q1 "backend = qemu\n[qemu]\nicount = shift=3,sleep=off\naccel = tcg\nsockets = 2\ncores-per-socket = 2\nmemory-per-node = 512\nboot-timeout = 180\njob-timeout = 900"
ka_start q1
ka_wait_log q1 "registered|class" 60 >/dev/null || die "the agent did not register"

echo "== submitting $URL (${BOOTS:-the default plan's} boots per side)"
t0=$(date +%s)
id=$(curl -fs -H 'Content-Type: application/json' \
    -d "{\"url\": \"$URL\"}" "$KD_URL/api/v1/series" | jq -r .id)
[ -n "$id" ] && [ "$id" != null ] || die "submission refused"

# Poll once a second; note when each state and each boot was first seen.
seen=" "
first_boot= last_boot= state=
while :; do
	now=$(date +%s)
	state=$(curl -fs "$KD_URL/api/v1/series/$id" | jq -r .state)
	case "$seen" in *" $state "*) ;; *)
		seen="$seen$state "
		eval "at_$state=$now"
		echo "  +$((now - t0))s  $state"
	esac
	p=$(curl -fs "$KD_URL/api/v1/series/$id/comparison?result=0" |
	    jq -r '"\(.progress.base.done // 0) \(.progress.patched.done // 0)"')
	set -- $p
	if [ "${1:-0}" != 0 ] || [ "${2:-0}" != 0 ]; then
		[ -n "$first_boot" ] || first_boot=$now
		[ "$p" = "${lastp:-}" ] || last_boot=$now
		lastp=$p
	fi
	case "$state" in done|failed) break ;; esac
	[ $((now - t0)) -lt 3600 ] || die "no verdict after an hour"
	sleep 1
done
curl -fs "$KD_URL/api/v1/series/$id/comparison" >"$T/c.json"
verdict=$(jq -r .verdict "$T/c.json")
end=$(date +%s)

# a state shorter than the poll is never seen: the next one's time
# stands for it (a build that ends within the second after it starts)
[ -n "${at_built:-}" ] || at_built=${at_running:-}
[ -n "${at_applied:-}" ] || at_applied=${at_built:-}
ph() { [ -n "$2" ] && [ -n "$1" ] && echo $(($2 - $1)) || echo "-"; }
echo
echo "phase          seconds"
printf '%-14s %7s\n' fetch "$(ph "$t0" "${at_fetched:-}")"
printf '%-14s %7s\n' apply "$(ph "${at_fetched:-}" "${at_applied:-}")"
printf '%-14s %7s\n' build "$(ph "${at_applied:-}" "${at_built:-}")"
printf '%-14s %7s\n' "boots" "$(ph "${at_built:-}" "$last_boot")"
printf '%-14s %7s\n' analysis "$(ph "$last_boot" "${at_done:-$end}")"
printf '%-14s %7s\n' total "$((end - t0))"
echo
echo "verdict: $verdict  (state $state; $(jq -r '"\(.progress.base.done) + \(.progress.patched.done) boots, \(.looks // 1) look(s)"' "$T/c.json"))"
jq -r '.rows[]? | select(.verdict == "regression" or .verdict == "improvement") |
    "  \(.pct_change * 10 | round / 10)% \(.verdict) \(.workload) \(.params) \(.metric)"' \
    "$T/c.json" | head -20
if [ "$((end - t0))" -le 900 ]; then
	echo "within the 15-minute target"
else
	echo "over the 15-minute target by $((end - t0 - 900)) s"
fi
