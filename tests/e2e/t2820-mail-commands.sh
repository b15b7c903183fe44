#!/bin/sh
# t2820-mail-commands: "#kperfci retest" and "#kperfci test base REV" in
# replies, and the per-day caps on their answers, with the real daemon, a
# real Exim and the real local lore.  A series is submitted by its URL;
# its thread is read by the daemon ([mail] thread_poll).  Then:
#   - "#kperfci retest" starts one new run of the series, and is answered
#     in the thread with it ("Accepted: series N");
#   - "#kperfci test base REV" starts one run on that base (the series'
#     requested base), answered the same way; a base that is no revision
#     starts nothing and is answered with why;
#   - each command is acted on once, however often its thread is read;
#   - per_day_recipient: with three mails to the author today, the answer
#     to a fourth command is not sent ("skipped", the cap as the reason):
#     not in the thread, not in anyone's mailbox;
#   - per_day_list: the same for a list's cap, after a restart that
#     lifts the recipient's.
# The caps are those of every mail (results, regressions), checked by
# the same function when a row is rendered; answers are the cheapest
# mail to make.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/fake-kernel.sh"
. "$SRC/tests/pi-lib.sh"
. "$SRC/tests/mta-lib.sh"

command -v exim4 >/dev/null || skip_all "exim4 not installed (tools/packages.txt)"
[ "$(id -u)" = 0 ] || skip_all "the test MTA delivers as Debian-exim: run as root"
chmod 755 "$T"

fake_kernel_series "$T/tree" "$T/series" || exit 1

pi_start linux-mm || { echo "Bail out! public-inbox did not start"; exit 1; }
ok "a real MTA (Exim) delivers into the lore" mta_start
for f in "$T"/series/*.patch; do mta_send "$f"; done
ok "the series reached the list through the MTA" wait_http \
    "${PI_URL}linux-mm/$P1/raw" 60

CONF="[lore]\nallow = $PI_URL\n[tree \"fake\"]\npath = $R\nbranch = master\nconfig = tinyconfig\nfragment = $T/frag.config\n[build]\ntimeout = 30\njobs = 2\n[mail]\nsend = smtp\nrelay = 127.0.0.1:$MTA_PORT\nstarttls = false\nfrom = kperfci <kperfci@example.org>\npublic_url = http://ci.example.org/\nretry = 1\nthread_poll = 1"
kd_config "$CONF\nper_day_recipient = 3\nper_day_list = 10"
ok "daemon starts" kd_start
is "$(curl -s -o "$T/u.json" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/json' \
    -d "{\"url\": \"${PI_URL}linux-mm/$COVER/\"}" "$KD_URL/api/v1/series")" \
    202 "the series is submitted by its URL"
U=$(jq -r .id "$T/u.json")

command_mail() {	# command_mail N TEXT: a reply from the author, N its id
	cat >"$T/cmd.eml" <<EOF
From: Dev Eloper <dev@example.org>
To: linux-mm@example.org
Subject: Re: [PATCH 0/1] mm: batch the thing
Date: $(date -R)
Message-ID: <cmd-$1@example.org>
In-Reply-To: <$COVER>
References: <$COVER>

$2
EOF
	mta_send "$T/cmd.eml"
}
nseries() {
	curl -s "$KD_URL/api/v1/series" | jq '.series | length'
}
answer() {	# answer N JQ: a field of the answer to <cmd-N@example.org>
	for id in $(seq 1 20); do
		curl -s "$KD_URL/api/v1/mail/$id"
	done | jq -rs "[.[] | select(.kind == \"answer\" and (.message |
	    contains(\"In-Reply-To: <cmd-$1@example.org>\")))][0] | $2"
}
wait_answer() {	# wait_answer N JQ SECONDS WANT
	end=$(($(date +%s) + $3))
	while :; do
		got=$(answer "$1" "$2")
		[ "$got" = "$4" ] && return 0
		[ "$(date +%s)" -lt "$end" ] || break
		sleep 0.5
	done
	echo "# the answer to cmd-$1: $2 is '$got', not '$4'"
	return 1
}
in_thread() {	# in_thread PATTERN: how many messages of the thread match
	curl -s "${PI_URL}linux-mm/$COVER/t.mbox.gz" | gzip -dc |
	    grep -c -- "$1"
}
wait_thread() {	# wait_thread PATTERN SECONDS: until the thread has it
	end=$(($(date +%s) + $2))
	until [ "$(in_thread "$1")" -gt 0 ]; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.5
	done
}
in_box() {	# in_box PATTERN: how many lines of every mailbox match
	cat "$T/mta/box/all" 2>/dev/null | grep -c -- "$1"
}

# ---- #kperfci retest -----------------------------------------------------
command_mail 1 "Please run it again.

#kperfci retest"
ok "the retest starts a new run" wait_field "$KD_URL/api/v1/series" \
    '.series | length' 60 2
RT=$(curl -s "$KD_URL/api/v1/series" | jq -r '.series[0].id')
is "$(curl -s "$KD_URL/api/v1/series/$RT" | jq -r .msgid)" "$COVER" \
    "of the same series (its thread's root)"
ok "it is answered" wait_answer 1 .state 60 sent
ok "in the thread" wait_thread '^In-Reply-To: <cmd-1@' 120
curl -s "${PI_URL}linux-mm/$COVER/t.mbox.gz" | gzip -dc >"$T/t.mbox"
like "Accepted: series $RT runs \"#kperfci retest\"" "$T/t.mbox" \
    "accepted, with the new run's number"

# ---- #kperfci test base REV -----------------------------------------------
command_mail 2 "And on the base itself, please.

#kperfci test base $BASE"
ok "the test starts a run" wait_field "$KD_URL/api/v1/series" \
    '.series | length' 60 3
TB=$(curl -s "$KD_URL/api/v1/series" | jq -r '.series[0].id')
is "$(curl -s "$KD_URL/api/v1/series/$TB" | jq -r .requested_base)" "$BASE" \
    "on the base the command named"
ok "it is answered in the thread" wait_thread '^In-Reply-To: <cmd-2@' 120
# the answer's lines joined: a long line wraps with a two-space indent
curl -s "${PI_URL}linux-mm/$COVER/t.mbox.gz" | gzip -dc | tr '\n' ' ' |
    tr -s ' ' >"$T/t.joined"
like "Accepted: series $TB runs \"#kperfci test base $BASE\"" "$T/t.joined" \
    "accepted, with the new run's number"

command_mail 3 "#kperfci test base v6.1..v6.2"
ok "a base that is no revision is answered with why" wait_answer 3 \
    '.message // ""  | test("Not accepted: base .*v6.1..v6.2.* is not a valid git")' \
    60 true
ok "and sent" wait_answer 3 .state 60 sent
sleep 3
is "$(nseries)" 3 "it started nothing; each command was acted on once"
is "$(sqlite3 "$T/var/kperfci.db" "SELECT COUNT(*) FROM mail WHERE kind = 'answer'")" 3 \
    "one answer each, however often the thread was read"

# ---- per_day_recipient ---------------------------------------------------
# three mails to dev@example.org today: the fourth answer is over the cap
command_mail 4 "#kperfci cancel"
ok "the command is still obeyed" kd_wait_series "$TB" 60 cancelled
ok "its answer is not sent: per_day_recipient" wait_answer 4 '.reason // ""' \
    60 "3 mails to dev@example.org today, the per_day_recipient cap"
is "$(answer 4 .state)" skipped "it is skipped, with the cap as the reason"
ok "stop" kd_stop
ok "the first three answers are in the thread" wait_thread \
    '^In-Reply-To: <cmd-3@' 120
mta_idle 120
is "$(in_thread '^In-Reply-To: <cmd-4@')" 0 "the fourth is not"
is "$(in_box '^In-Reply-To: <cmd-4@')" 0 "nor in anyone's mailbox"

# ---- per_day_list ----------------------------------------------------------
kd_config "$CONF\nper_day_recipient = 10\nper_day_list = 3"
ok "restart: the recipient's cap lifted, the list's at 3" kd_start
command_mail 5 "#kperfci cancel"
ok "the answer is not sent: per_day_list" wait_answer 5 '.reason // ""' 60 \
    "3 mails to linux-mm today, the per_day_list cap"
is "$(answer 5 .state)" skipped "skipped"
ok "stop" kd_stop
mta_idle 120
is "$(in_thread '^In-Reply-To: <cmd-5@')" 0 "not in the thread"
is "$(in_box '^In-Reply-To: <cmd-5@')" 0 "nor in anyone's mailbox"
test_done
