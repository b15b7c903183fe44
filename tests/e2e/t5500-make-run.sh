#!/bin/sh
# t5500-make-run: the README's first command, `make run`, on a fresh clone.
#
# Clones this repository (its committed HEAD) into a scratch directory and
# runs `make run` there as a new user would: packages (already installed
# here, so install-deps is quiet), the build, the tree import into a var/
# that does not exist yet, the local lore, kperfcid and the qemu agent.
# The import reads a small tarball shaped like linux-source-6.12's (the real
# one takes minutes and is imported by the kernel tests): the code path is
# the same, and it is where a fresh clone failed before (no var/trees).
# Ports are free ones (KPERFCI_PORT, KPERFCI_LORE_PORT), so the test does
# not collide with a `make run` of the developer's own.  Then, as root,
# the same clone once more in the mail mode (KPERFCI_MAIL=mta, no agent):
# a series and a command posted through the MTA, the answer in the thread.
. "$(dirname "$0")/../lib.sh"

C="$T/clone"
git clone -q "$SRC" "$C" || { echo "Bail out! git clone $SRC"; exit 1; }
ok "the clone has no var/" test ! -e "$C/var"

# A tarball with the layout Debian's has: one top directory, a Makefile.
mkdir -p "$T/tar/linux-source-6.12/mm"
printf 'VERSION = 6\nPATCHLEVEL = 12\n' >"$T/tar/linux-source-6.12/Makefile"
printf 'int swap;\n' >"$T/tar/linux-source-6.12/mm/swap.c"
tar -C "$T/tar" -cJf "$T/small.tar.xz" linux-source-6.12

PORT=$(free_port)
LORE_PORT=$(free_port)
# setsid: the whole process group (make, tools/run, its servers) is
# stopped at the end with one signal, as Ctrl-C would.  The group is the
# one the shell setsid starts writes down: setsid forks when its caller
# leads a group (as under prove -j), so $! is not always the group.  (No
# "--" before a negative pid: dash's kill takes it for a pid and fails,
# which once let a whole make run outlive the test unnoticed.)
(cd "$C" && KPERFCI_PORT=$PORT KPERFCI_LORE_PORT=$LORE_PORT \
    KPERFCI_TARBALL="$T/small.tar.xz" exec setsid sh -c \
    'echo $$ >"$1"; exec make run' sh "$T/run.pgid") \
    >"$T/run.log" 2>&1 &
i=0
until [ -s "$T/run.pgid" ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
RUN=$(cat "$T/run.pgid")
[ -n "$RUN" ] || { echo "Bail out! make run did not start"; exit 1; }
stop_run() {
	kill -TERM "-$RUN" 2>/dev/null || return 0
	i=0
	while kill -0 "-$RUN" 2>/dev/null && [ $i -lt 150 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -KILL "-$RUN" 2>/dev/null
	wait 2>/dev/null
	:
}
at_exit stop_run

# The build takes a minute or two on 2 cores; then start-up is seconds.
i=0
until grep -q 'kperfci: running on' "$T/run.log" || [ $i -ge 1200 ] ||
    ! kill -0 "$RUN" 2>/dev/null; do
	sleep 0.5
	i=$((i + 1))
done
like "kperfci: running on http://127.0.0.1:$PORT/" "$T/run.log" \
    "make run prints where it runs"
ok "/healthz answers" wait_http "http://127.0.0.1:$PORT/healthz" 30
curl -s "http://127.0.0.1:$PORT/healthz" >"$T/h.json"
is "$(jq -r .status "$T/h.json")" ok "/healthz says ok"
ok "the tree was imported into var/trees (parents made)" \
    git -C "$C/var/trees/linux-6.12" rev-parse -q --verify master
like "series on the local lore" "$T/run.log" "the lore URLs are printed"
like "http://127.0.0.1:$LORE_PORT/linux-mm/kperfci-calibration-lru-delay" \
    "$T/run.log" "the lru-delay calibration's URL among them"
url=$(sed -n "s|^ *\(http://127.0.0.1:$LORE_PORT/linux-mm/kperfci-calibration-lru-delay[^ ]*\).*|\1|p" \
    "$T/run.log" | head -1)
ok "the printed lore URL serves the thread" curl -fs -o "$T/t.mbox.gz" \
    "${url}t.mbox.gz"
like '^send = outbox$' "$C/var/run.conf" \
    "make run mails to an outbox (var/outbox.mbox), nothing leaves"
# The agent registers itself with its emulated 2-socket topology.
ok "the local qemu agent registers" wait_field \
    "http://127.0.0.1:$PORT/api/v1/agents" '.agents[0].name' \
    60 qemu-local
stop_run
ok "Ctrl-C stops everything (no process of the group left)" \
    sh -c "! kill -0 -$RUN 2>/dev/null"

# ---- KPERFCI_MAIL=mta: the mail loop, no boots ---------------------------
# The same clone (built, its tree imported) started again by tools/run in
# the mail mode: the mail tests' MTA (tests/mta-lib.sh) into its lore, a
# watch on linux-mm, no agent.  A series posted through the MTA is found
# by the watch; a "#kperfci cancel" posted the same way is answered in
# its thread (the small tree builds nothing, so the answer may say the
# series failed already: either way the command was read and answered).
# Exim delivers as Debian-exim: root only, and $T searchable.
if [ "$(id -u)" != 0 ] || ! command -v exim4 >/dev/null; then
	echo "# KPERFCI_MAIL=mta not tried: it runs Exim (exim4), as root"
else
	chmod 755 "$T"
	PORT=$(free_port)
	LORE_PORT=$(free_port)
	MTA_PORT=$(free_port)
	U=http://127.0.0.1:$PORT
	(cd "$C" && KPERFCI_MAIL=mta KPERFCI_AGENT=0 KPERFCI_PORT=$PORT \
	    KPERFCI_LORE_PORT=$LORE_PORT KPERFCI_MTA_PORT=$MTA_PORT exec setsid \
	    sh -c 'echo $$ >"$1"; exec tools/run' sh "$T/mail.pgid") \
	    >"$T/mail.log" 2>&1 &
	i=0
	until [ -s "$T/mail.pgid" ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
	RUN=$(cat "$T/mail.pgid")
	i=0
	until grep -q 'kperfci: running on' "$T/mail.log" || [ $i -ge 1200 ] ||
	    ! kill -0 "$RUN" 2>/dev/null; do
		sleep 0.5
		i=$((i + 1))
	done
	like "kperfci: running on $U/" "$T/mail.log" "KPERFCI_MAIL=mta starts"
	like 'tools/post-series --example' "$T/mail.log" \
	    "its banner says how to post a series"
	like '^send = smtp$' "$C/var/run.conf" "it sends through the MTA"
	like '^\[watch "linux-mm"\]$' "$C/var/run.conf" "and watches linux-mm"
	ok "tools/post-series --example posts a series through the MTA" \
	    sh -c 'cd "$1" && tools/post-series --example >"$2"' sh "$C" \
	    "$T/post.log"
	MSGID=$(sed -n 's|^  on the list:  .*/linux-mm/\(.*\)/$|\1|p' "$T/post.log")
	ok "the watch submits it" wait_field "$U/api/v1/series" \
	    "[.series[] | select(.msgid == \"$MSGID\" and
	    .origin == \"watch linux-mm\")] | length" 90 1
	ok "a #kperfci cancel is posted in its thread" \
	    sh -c 'cd "$1" && tools/post-series --reply "$2" "#kperfci cancel"' \
	    sh "$C" "$MSGID"
	answered() {
		i=0
		while [ $i -lt 120 ]; do
			curl -s "http://127.0.0.1:$LORE_PORT/linux-mm/$MSGID/t.mbox.gz" |
			    gzip -dc >"$T/t.mbox" 2>/dev/null
			grep -q '^Message-I[Dd]: <kperfci\.answer' "$T/t.mbox" && return 0
			sleep 0.5
			i=$((i + 1))
		done
		return 1
	}
	ok "kperfci answers it in the thread on the lore" answered
	like '^(Cancelled series|Not cancelled: series) [0-9]' "$T/t.mbox" \
	    "the answer is the cancel's"
	stop_run
	ok "Ctrl-C stops the MTA too (no process of the group left)" \
	    sh -c "! kill -0 -$RUN 2>/dev/null"
fi
test_done
