#!/bin/sh
# t2600-watch: a watched list on a real public-inbox.  kperfcid polls the
# list's Atom feed by itself: a series touching mm/ is submitted once (with
# its origin on the API and the front page), one touching only drivers/ is
# not, a restart submits nothing twice, a v2 supersedes the v1 that has not
# booted yet, a feed that is down is an error on /api/v1/watches and loses
# nothing, and a [watch] off the allowlist is a -n error with file:line.
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
		printf 'From: Dev Eloper <dev@example.org>\n'
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

# ---- a feed that is down --------------------------------------------------
pi_stop
ok "a feed that is down shows as an error" wait_field \
    "$KD_URL/api/v1/watches" '.watches[0].failures > 0' 30 true
like "fetching|lore" "$T/kperfcid.log" "and is logged"
is "$(series_count)" 2 "nothing stored is lost"
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
