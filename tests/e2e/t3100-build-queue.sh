#!/bin/sh
# t3100: builds have their own queue ([build] slots workers), so fetch and
# apply never wait behind a build.  One series whose patched kernel builds
# slowly (its Makefile sleeps) holds the only build slot; two series
# submitted meanwhile are fetched and applied at once (the issue's failure:
# they sat `queued` while one worker built and the other waited for the
# slot) and then only wait for the slot; all three build in the end.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/fake-kernel.sh"

command -v bwrap >/dev/null || skip_all "bubblewrap not installed"
command -v jq >/dev/null || skip_all "jq not installed"
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

# the slow build: 12 s in its Makefile (a marker file says it started)
printf 'slow:\n\ttouch $(O)/slow-started; sleep 12\n' >"$T/slow.mk"
mk slow "sed -i '1i EXTRA := slow' Makefile; cat $T/slow.mk >> Makefile"
mk two "sed -i 's/^10\$/ten/' mm/swap.c"
mk three "sed -i 's/^20\$/twenty/' mm/swap.c"

# two main workers and one build slot: the set-up of the issue
kd_config "[tree \"fake\"]\npath = $R\nbranch = master\nconfig = tinyconfig\nfragment = $T/frag.config\n[build]\nslots = 1\ntimeout = 60\njobs = 2"
ok "daemon starts" kd_start

submit() {
	curl -s -X POST -H "Content-Type: application/mbox" \
	    --data-binary @"$1" "$KD_URL/api/v1/series" | jq -r .id
}
build_state() {	# build_state ID SIDE
	curl -s "$KD_URL/api/v1/series/$1" | jq -r ".builds.$2.state // \"none\""
}

S1=$(submit "$T/slow.mbox")
# wait until the slow patched build runs
i=0
while [ $i -lt 300 ] && [ "$(build_state "$S1" patched)" != building ]; do
	sleep 0.1
	i=$((i + 1))
done
is "$(build_state "$S1" patched)" building "the slow series' patched kernel is building"

S2=$(submit "$T/two.mbox")
S3=$(submit "$T/three.mbox")
ok "a second series is fetched and applied during the build" \
    kd_wait_series "$S2" 8 applied
ok "a third one too" kd_wait_series "$S3" 8 applied
is "$(build_state "$S1" patched)" building "the slow build is still running"
is "$(curl -s "$KD_URL/api/v1/series/$S2" | jq -r .state)" applied \
    "the second series waits for the build slot only"

ok "the slow series is built" kd_wait_series "$S1" 60 built
ok "then the second" kd_wait_series "$S2" 60 built
ok "and the third" kd_wait_series "$S3" 60 built
ok "daemon stops cleanly" kd_stop

test_done
