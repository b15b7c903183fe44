#!/bin/sh
# t2600-watch: a watched list on a real public-inbox.  kperfcid polls the
# list's Atom feed by itself: a series touching mm/ is submitted once (with
# its origin on the API and the front page), one touching only drivers/ is
# not, a restart submits nothing twice, a v2 supersedes the v1 that has not
# booted yet (and a "v3" of the same subject from another author supersedes
# nothing), an author past their share of per_day waits while another's
# series goes in, a feed entry with a 5 kB title is skipped and listed while
# the good entry beside it is submitted, a feed that is down is an error on
# /api/v1/watches and loses nothing, and a [watch] off the allowlist is a
# -n error with file:line.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/pi-lib.sh"

pi_start linux-mm || { echo "Bail out! public-inbox did not start"; exit 1; }

# msg FILE MSGID SUBJECT [IN-REPLY-TO] BODY-PATH: one mboxrd message
# appended to FILE, with a small diff of BODY-PATH.
n=0
msg() {
	n=$((n + 1))
	{
		printf 'From dev@example.org Mon Nov 30 10:%02d:00 2026\n' "$n"
		printf 'From: %s\n' "${FROM:-Dev Eloper <dev@example.org>}"
		printf 'To: linux-mm@example.org\n'
		printf 'Subject: %s\n' "$3"
		printf 'Date: Mon, 30 Nov 2026 10:%02d:00 +0000\n' "$n"
		printf 'Message-ID: <%s>\n' "$2"
		[ -n "$4" ] && printf 'In-Reply-To: <%s>\nReferences: <%s>\n' "$4" "$4"
		printf 'MIME-Version: 1.0\nContent-Type: text/plain\n\n'
		if [ -n "$5" ]; then
			printf 'Change %s.\n\nSigned-off-by: Dev Eloper <dev@example.org>\n---\n' "$5"
			printf 'diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n' "$5" "$5" "$5" "$5"
			printf '@@ -1,3 +1,4 @@\n a\n b\n+c\n d\n'
		else
			printf 'A cover letter: +5%% pages/s at 4 threads.\n\n'
		fi
		printf '\n'
	} >>"$1"
}

kd_config "[lore]\nallow = $PI_URL\n[watch \"mm\"]\nlore = $PI_URL\nlist = linux-mm\npath = mm/\npath = fs/dcache.c\npoll = 1\nper_day = 10\npriority = 5"
ok "daemon with a watch starts" kd_start

series_count() { curl -fs "$KD_URL/api/v1/series" | jq '.series | length'; }
watch_field() { curl -fs "$KD_URL/api/v1/watches" | jq -r ".watches[0].$1"; }

# ---- a new mm/ series is picked up by itself --------------------------
msg "$T/v1.mbox" cover-v1@example.org "[PATCH 0/1] mm: batch the thing" "" ""
msg "$T/v1.mbox" patch-v1@example.org "[PATCH 1/1] mm/swap: batch the thing" \
    cover-v1@example.org mm/swap.c
pi_import linux-mm "$T/v1.mbox"
ok "the mm/ series is submitted by the watch" wait_field \
    "$KD_URL/api/v1/series" '.series | length' 30 1
curl -fs "$KD_URL/api/v1/series" >"$T/list.json"
is "$(jq -r '.series[0].origin' "$T/list.json")" "watch mm" \
    "its origin says which watch"
is "$(jq -r '.series[0].msgid' "$T/list.json")" "cover-v1@example.org" \
    "the cover letter stands for the series (patch 1/1 not submitted again)"
curl -fs "$KD_URL/" >"$T/front.html"
like "watch mm" "$T/front.html" "the front page shows where it came from"

# ---- a drivers/ patch is seen, not submitted ------------------------------
msg "$T/drv.mbox" drv-1@example.org "[PATCH] drivers/foo: fix the bar" "" \
    drivers/foo/bar.c
pi_import linux-mm "$T/drv.mbox"
ok "the drivers/ patch is seen" wait_field "$KD_URL/api/v1/watches" \
    '.watches[0].seen' 30 3
is "$(series_count)" 1 "and not submitted"
is "$(watch_field submitted)" 1 "the watch counts one submission"

# ---- a restart never submits twice ----------------------------------------
ok "stop" kd_stop
ok "restart" kd_start
ok "after the restart the feed is polled again" wait_field \
    "$KD_URL/api/v1/watches" '.watches[0].last_poll > 0' 30 true
sleep 2
is "$(series_count)" 1 "nothing submitted twice after a restart"

# ---- a v2 supersedes the v1 that has not booted ---------------------------
msg "$T/v2.mbox" cover-v2@example.org "[PATCH v2 0/1] mm: batch the thing" "" ""
msg "$T/v2.mbox" patch-v2@example.org "[PATCH v2 1/1] mm/swap: batch the thing" \
    cover-v2@example.org mm/swap.c
pi_import linux-mm "$T/v2.mbox"
ok "the v2 is submitted" wait_field "$KD_URL/api/v1/series" \
    '.series | length' 30 2
curl -fs "$KD_URL/api/v1/series" >"$T/list2.json"
v1=$(jq -r '.series[] | select(.msgid == "cover-v1@example.org") | .id' "$T/list2.json")
v2=$(jq -r '.series[] | select(.msgid == "cover-v2@example.org") | .id' "$T/list2.json")
curl -fs "$KD_URL/api/v1/series/$v1" >"$T/v1.json"
is "$(jq -r .state "$T/v1.json")" failed "the v1 is stopped"
like "superseded by v2 \(series $v2\)" "$T/v1.json" "and says by what"

# ---- another author's "v3" of the same subject supersedes nothing --------
FROM="Mal Lory <mallory@example.org>" msg "$T/v3.mbox" cover-v3@example.org \
    "[PATCH v3 0/1] mm: batch the thing" "" ""
FROM="Mal Lory <mallory@example.org>" msg "$T/v3.mbox" patch-v3@example.org \
    "[PATCH v3 1/1] mm/swap: batch the thing" cover-v3@example.org mm/swap.c
pi_import linux-mm "$T/v3.mbox"
ok "another author's v3 is submitted as a series of its own" wait_field \
    "$KD_URL/api/v1/series" '.series | length' 30 3
curl -fs "$KD_URL/api/v1/series/$v2" >"$T/v2.json"
ok "the author's v2 is not stopped by it" test "$(jq -r .state "$T/v2.json")" != failed
ok "nor marked superseded" sh -c "! grep -q superseded '$T/v2.json'"

# ---- per-author shares inside per_day -----------------------------------
# per_day 4, author_share 2: one author may have 2 a day; dev has had 2
ok "stop" kd_stop
kd_config "[lore]\nallow = $PI_URL\n[watch \"mm\"]\nlore = $PI_URL\nlist = linux-mm\npath = mm/\npath = fs/dcache.c\npoll = 1\nper_day = 4\nauthor_share = 2\npriority = 5"
ok "restart with per_day 4, author_share 2" kd_start
is "$(watch_field per_author)" 2 "one author's share: 2 a day"
msg "$T/d3.mbox" dev-third@example.org "[PATCH] mm/vmscan: a third one" "" \
    mm/vmscan.c
FROM="Oth Er <other@example.org>" msg "$T/d3.mbox" other-1@example.org \
    "[PATCH] mm/vmscan: someone else's" "" mm/vmscan.c
pi_import linux-mm "$T/d3.mbox"
ok "another author's series goes in" wait_field "$KD_URL/api/v1/series" \
    '[.series[] | select(.msgid == "other-1@example.org")] | length' 30 1
ok "dev's third waits for tomorrow's share" grep -q \
    "<dev-third@example.org>: its author has had 2 of today's 4; it waits" \
    "$T/kperfcid.log"
is "$(curl -fs "$KD_URL/api/v1/series" | jq '[.series[] | select(.msgid == "dev-third@example.org")] | length')" \
    0 "and is not submitted"

# ---- a bad feed entry is skipped, the good one beside it read ------------
# (per_day 4 is used up by now: a fresh watch of its own, reading the Atom
# feed only: search = no; the lore's search hands back whole messages,
# whose subjects have no such limit)
ok "stop" kd_stop
BIG=$(head -c 5000 /dev/zero | tr '\0' x)
msg "$T/big.mbox" big-title@example.org "[PATCH] mm/swap: $BIG" "" mm/swap.c
FROM="Oth Er <other@example.org>" msg "$T/big.mbox" after-big@example.org \
    "[PATCH] mm/swap: the good one beside it" "" mm/swap.c
FROM="Oth Er <other@example.org>" msg "$T/big.mbox" other-2@example.org \
    "[PATCH] mm/swap: and one more" "" mm/swap.c
pi_import linux-mm "$T/big.mbox"
# and a list poster charges the clients' rate bucket ([http] submit_burst
# 1, submit_per_hour 1 here), one per watch and author
kd_config "[lore]\nallow = $PI_URL\n[http]\nsubmit_burst = 1\nsubmit_per_hour = 1\n[watch \"mm2\"]\nlore = $PI_URL\nlist = linux-mm\npath = mm/swap.c\npoll = 1\nper_day = 50\npriority = 5\nsearch = no"
ok "restart with a second watch" kd_start
ok "the good entry beside a 5 kB title is submitted" wait_field \
    "$KD_URL/api/v1/series" \
    '[.series[] | select(.msgid == "after-big@example.org")] | length' 30 1
ok "the bad entry is listed as skipped" wait_field "$KD_URL/api/v1/watches" \
    '.watches[0].skipped_count > 0' 30 true
curl -fs "$KD_URL/api/v1/watches" >"$T/w.json"
like "title" "$T/w.json" "with why"
is "$(jq -r '.watches[0].failures' "$T/w.json")" 0 "and the poll did not fail"
ok "the same author's next waits for the rate bucket" grep -q \
    "watch mm2: rate limit: .* from watch mm2: other@example.org" \
    "$T/kperfcid.log"
is "$(curl -fs "$KD_URL/api/v1/series" | jq '[.series[] | select(.msgid == "other-2@example.org")] | length')" \
    0 "and is not submitted"

# ---- a cover letter that reaches the lore before its patches -------------
# (a list delivers a series' mails seconds or minutes apart): the watch
# looks at the thread again at later polls instead of skipping it
ok "stop" kd_stop
kd_config "[lore]\nallow = $PI_URL\n[watch \"late\"]\nlore = $PI_URL\nlist = linux-mm\npath = mm/vmscan.c\npoll = 1\nper_day = 50\npriority = 5"
ok "restart with a watch on mm/vmscan.c" kd_start
late_count() { curl -fs "$KD_URL/api/v1/series" | jq '[.series[] | select(.msgid == "late-0@example.org")] | length'; }
FROM="Late Comer <late@example.org>" msg "$T/late0.mbox" late-0@example.org \
    "[PATCH 0/1] mm/vmscan: the late one" "" ""
pi_import linux-mm "$T/late0.mbox"
ok "the lone cover letter is read and retried" sh -c "
	for i in \$(seq 60); do
		grep -q '<late-0@example.org>: .*may not be complete yet' '$T/kperfcid.log' && exit 0
		sleep 0.5
	done
	exit 1"
sleep 3	# three more polls
is "$(late_count)" 0 "not submitted without its patches"
FROM="Late Comer <late@example.org>" msg "$T/late1.mbox" late-1@example.org \
    "[PATCH 1/1] mm/vmscan: the late one" late-0@example.org mm/vmscan.c
pi_import linux-mm "$T/late1.mbox"
ok "once its patch arrives the series is submitted" wait_field \
    "$KD_URL/api/v1/series" '[.series[] | select(.msgid == "late-0@example.org")] | length' 30 1
ok "and never listed as skipped" sh -c "! curl -fs '$KD_URL/api/v1/watches' | grep -q 'late-0@example.org'"

# ---- a feed that is down --------------------------------------------------
n_before=$(series_count)
pi_stop
ok "a feed that is down shows as an error" wait_field \
    "$KD_URL/api/v1/watches" '.watches[0].failures > 0' 30 true
like "fetching|lore" "$T/kperfcid.log" "and is logged"
is "$(series_count)" "$n_before" "nothing stored is lost ($n_before series)"
curl -fs "$KD_URL/healthz" >"$T/h.json"
is "$(jq -r .status "$T/h.json")" ok "the daemon keeps serving"
ok "stop" kd_stop

# ---- configuration errors -------------------------------------------------
printf '[lore]\nallow = http://127.0.0.1:1/\n[watch "x"]\nlore = http://evil.example/\nlist = linux-mm\npath = mm/\n' \
    >"$T/bad.conf"
"$KPERFCI_BIN/kperfcid" -n -c "$T/bad.conf" >"$T/bad.out" 2>&1
is "$?" 1 "a watch off the allowlist: -n fails"
like "bad.conf:4: \[watch \"x\"\] lore: .*not on an allowed lore base" \
    "$T/bad.out" "named with file:line"
printf '[watch "y"]\nlore = http://127.0.0.1:1/\n' >"$T/bad2.conf"
"$KPERFCI_BIN/kperfcid" -n -c "$T/bad2.conf" >"$T/bad2.out" 2>&1
like "needs list = NAME" "$T/bad2.out" "a watch without a list"
like "needs at least one path" "$T/bad2.out" "a watch without paths"
test_done
