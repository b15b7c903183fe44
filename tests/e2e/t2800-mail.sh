#!/bin/sh
# t2800-mail: the verdict mailed into the series' thread, through a real
# MTA (Exim, a test configuration on loopback) into the real local lore
# (public-inbox-mda), and commands taken from replies.  A series sent to
# the watched list through the MTA is found by the watch (the lore's
# search), built on a fake kernel tree, judged with boots from an agent
# simulated over the agent protocol; then:
#   - the reply is in the thread on the lore (t.mbox.gz: In-Reply-To the
#     cover letter, Re: its subject), to its author and Cc its lists and
#     nobody else, plain text in 72 columns, absolute links, a reproduce
#     block with the base commit; real b4 reads the thread as one patch
#     and the reply as no patch;
#   - a "#kperfci test suite lru-lock boots 4" reply starts that run (4
#     boots a side) and is answered in the thread; its result answers the
#     command, and a relay that refuses it (451) then accepts sends it once;
#   - a restarted daemon sends nothing twice;
#   - a series the Atom feed has scrolled past is found by the search;
#   - kperfci mail show prints what was sent.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/fake-kernel.sh"
. "$SRC/tests/pi-lib.sh"
. "$SRC/tests/mta-lib.sh"

command -v bwrap >/dev/null || skip_all "bubblewrap not installed"
command -v exim4 >/dev/null || skip_all "exim4 not installed (tools/packages.txt)"
command -v b4 >/dev/null || skip_all "b4 not installed"
[ "$(id -u)" = 0 ] || skip_all "the test MTA delivers as Debian-exim: run as root"
chmod 755 "$T"

R=$T/tree
W=$T/work
fake_kernel_tree "$R" || exit 1
BASE=$(git -C "$R" rev-parse HEAD)

# the series: a cover letter and one patch, To the list, Cc a reviewer
rm -rf "$W"
git clone -q "$R" "$W"
sed -i 's/^10$/ten/' "$W/mm/swap.c"
export GIT_AUTHOR_NAME="Dev Eloper" GIT_AUTHOR_EMAIL=dev@example.org
export GIT_COMMITTER_NAME="Dev Eloper" GIT_COMMITTER_EMAIL=dev@example.org
git -C "$W" commit -qam "mm/swap: batch the thing"
git -C "$W" format-patch -q --cover-letter --thread=shallow --base="$BASE" \
    --to=linux-mm@example.org --cc=reviewer@example.org \
    --from="Dev Eloper <dev@example.org>" -o "$T/series" -1
sed -i 's/\*\*\* SUBJECT HERE \*\*\*/mm: batch the thing/;
    s/\*\*\* BLURB HERE \*\*\*/This makes shmem faults +5% faster at 2 tasks./' \
    "$T"/series/0000-*.patch
COVER=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' "$T"/series/0000-*.patch)

pi_start linux-mm linux-doc ||
    { echo "Bail out! public-inbox did not start"; exit 1; }
MTA_LISTS=linux-mm:linux-doc
ok "a real MTA (Exim) delivers into the lore" mta_start
for f in "$T"/series/*.patch; do mta_send "$f"; done
ok "the series reached the list through the MTA" wait_http \
    "${PI_URL}linux-mm/$COVER/raw" 20

# [sched]: one look of 6 boots a side, the fewest the stats decide with
# (core/stats.c spends 3% of alpha before its 6-boot design look); the
# agent is simulated over the protocol, so nothing boots a kernel
TOKEN=sim-agent-token
TSHA=$(printf %s "$TOKEN" | sha256sum | cut -d' ' -f1)
kd_config "[lore]\nallow = $PI_URL\n[watch \"mm\"]\nlore = $PI_URL\nlist = linux-mm\npath = mm/\npoll = 1\nreply = yes\n[tree \"fake\"]\npath = $R\nbranch = master\nconfig = tinyconfig\nfragment = $T/frag.config\n[build]\ntimeout = 30\njobs = 2\n[agent \"sim\"]\ntoken_sha256 = $TSHA\n[sched]\nboots = 6\nmax_boots = 6\n[mail]\nsend = smtp\nrelay = 127.0.0.1:$MTA_PORT\nstarttls = false\nfrom = kperfci <kperfci@example.org>\npublic_url = http://ci.example.org/\nretry = 1\nthread_poll = 1"
ok "kperfcid -n accepts the [mail] section" "$KPERFCI_BIN/kperfcid" -n \
    -c "$T/kperfcid.conf"
ok "daemon starts with a watch that replies" kd_start

agent() {	# agent PATH JSON -> body in $T/a.json, prints the status
	curl -s -o "$T/a.json" -w '%{http_code}' -X POST \
	    -H "Authorization: Bearer $TOKEN" \
	    -H "Content-Type: application/json" -d "$2" "$KD_URL$1"
}
upload() {	# upload JOB ATTEMPT VALUE
	s=$(jq -cn --argjson v "$3" '[range(3) as $i | {workload:
	    "fault-free", params: "mode=shmem,tasks=2", iteration: $i,
	    metric: "pages_per_sec", value: ($v + $i), unit: "pages/s",
	    better: "higher"}]')
	agent "/api/v1/jobs/$1/results" "{\"agent\": \"sim\", \"attempt\": $2,
	    \"status\": \"done\", \"samples\": $s}" >/dev/null
}
run_boots() {	# run_boots SERIES: every job until it is done, patched 10% faster
	kd_wait_series "$1" 60 running || return 1
	i=0
	while [ $i -lt 300 ]; do
		st=$(curl -s "$KD_URL/api/v1/series/$1" | jq -r .state)
		[ "$st" = running ] || return 0
		if [ "$(agent /api/v1/agents/lease '{"agent": "sim"}')" != 200 ]
		then
			sleep 0.2
			i=$((i + 1))
			continue
		fi
		id=$(jq -r .job.id "$T/a.json")
		att=$(jq -r .job.attempt "$T/a.json")
		side=$(curl -s "$KD_URL/api/v1/jobs/$id" | jq -r .side)
		if [ "$side" = base ]; then upload "$id" "$att" 1000
		else upload "$id" "$att" 1100; fi
	done
	return 1
}
thread() {	# thread MSGID -> the thread's mbox in $T/t.mbox
	curl -s "${PI_URL}linux-mm/$1/t.mbox.gz" | gzip -dc >"$T/t.mbox"
}
TOPO='{"sockets": 2, "nodes": 2, "cpus": 4, "cores": 4, "cpu_model": "Sim CPU", "memory_mb": 2048}'
is "$(agent /api/v1/agents/register "{\"agent\": \"sim\", \"backend\": \"qemu\", \"topology\": $TOPO}")" \
    200 "simulated agent registers"

ok "the watch submits the series" wait_field "$KD_URL/api/v1/series" \
    '.series | length' 30 1
S=$(curl -s "$KD_URL/api/v1/series" | jq -r '.series[0].id')
ok "its boots run" run_boots "$S"
ok "series done" kd_wait_series "$S" 30 done
ok "the reply is sent" wait_field "$KD_URL/api/v1/series/$S/mail" \
    '.mails[0].state' 30 sent
is "$(curl -s "$KD_URL/api/v1/series/$S/mail" | jq -r .reply)" yes \
    "the watch's reply policy is the series'"
is "$(curl -s "$KD_URL/api/v1/series/$S" | jq -r .mail.state)" sent \
    "the series JSON says the reply was sent"
curl -s "$KD_URL/series/$S" >"$T/page.html"
like "reply sent &lt;kperfci\.result" "$T/page.html" \
    "the series page says the reply was sent, with its Message-ID"

# a submission's own reply=: a bad word is a 400 naming it, nothing stored
n=$(curl -s "$KD_URL/api/v1/series" | jq '.series | length')
is "$(curl -s -o "$T/r.json" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/json' \
    -d "{\"url\": \"${PI_URL}linux-mm/$COVER/\", \"reply\": \"maybe\"}" \
    "$KD_URL/api/v1/series")" 400 "reply=maybe is refused"
like 'reply .*maybe.* is not yes, regressions or no' "$T/r.json" "the error names the field and the value"
is "$(curl -s "$KD_URL/api/v1/series" | jq '.series | length')" "$n" \
    "and no series was stored"
is "$(curl -s -o /dev/null -w '%{http_code}' -X POST \
    -H 'Content-Type: application/mbox' --data-binary @"$(ls "$T"/series/0001-*.patch)" \
    "$KD_URL/api/v1/series?reply=often")" 400 "an upload's reply=often too"

# ---- the reply on the lore, in the thread ------------------------------
i=0
while [ $i -lt 100 ]; do
	thread "$COVER"
	grep -q '^Message-ID: <kperfci.result' "$T/t.mbox" && break
	sleep 0.2
	i=$((i + 1))
done
like '^Message-ID: <kperfci.result' "$T/t.mbox" \
    "the reply is in the series' thread on the lore (t.mbox.gz)"
# the whole message (its From line on) whose Message-ID is the result's
awk '/^From mboxrd/{if (hit) exit; m=""} {m=m $0 "\n"}
    /^Message-ID: <kperfci.result/{hit=1} END{if (hit) printf "%s", m}' \
    "$T/t.mbox" >"$T/reply"
# the reproduce block's commands with their shell continuations joined
sed -e :a -e '/\\$/N; s/\\\n *//; ta' "$T/reply" >"$T/reply.joined"
like "^In-Reply-To: <$COVER>" "$T/reply" "In-Reply-To the cover letter"
like "^References: .*<$COVER>" "$T/reply" "References the cover letter"
like '^Subject: Re: \[PATCH 0/1\] mm: batch the thing' "$T/reply" \
    "Re: the cover letter's subject"
like '^To: "Dev Eloper" <dev@example.org>' "$T/reply" "To the author"
like '^Cc: .*linux-mm@example.org' "$T/reply" "Cc the list"
like '^Cc: .*reviewer@example.org' "$T/reply" "and the thread's Cc"
like 'found: improvement' "$T/reply" "the headline says the verdict"
like 'http://ci.example.org/series/[0-9]' "$T/reply" "an absolute link"
like "^  kperfci submit --base $BASE --boots 6 ${PI_URL}linux-mm/$COVER/\$" \
    "$T/reply.joined" "a reproduce block with the base and the boots"
like "^    b4 am -o kperfci-series '$COVER'\$" "$T/reply.joined" \
    "and b4 am of the thread"
like "class .*2 sockets" "$T/reply" "the machine by class and topology"
like 'fault-free.pages_per_sec' "$T/reply" "the significant row"
like "^The author's claims" "$T/reply" "the author's claims"
like '^  \[consistent\] cover letter: "This makes shmem faults \+5% faster at 2$' \
    "$T/reply" "each with whether it held (the claim +5%, measured +10%)"
like '^      claimed \+5\.0%, measured fault-free mode=shmem,tasks=2$' "$T/reply" \
    "and the row it was measured on"
ok "plain text in 72 columns" sh -c "sed '1,/^\$/d' '$T/reply' |
    awk 'length > 72 && !/http/ {bad=1} END {exit bad}'"
! grep -q 'no subject' "$T/reply"
ok "the series is named by its real subject" [ $? = 0 ]
sed -n 's/^Envelope-to: //p' "$T/mta/box/all" | tr ',' '\n' |
    tr -d ' ' | sort -u >"$T/boxes"
is "$(tr '\n' ' ' <"$T/boxes")" "dev@example.org reviewer@example.org " \
    "only the thread's own people got it (besides the list)"

# real b4 reads the thread: one patch, and the reply is not one
git init -q "$T/b4repo"
mkdir -p "$T/b4out"
( cd "$T/b4repo" && XDG_CACHE_HOME=$T/b4c XDG_DATA_HOME=$T/b4d \
    b4 --offline-mode am -m "$T/t.mbox" -o "$T/b4out" "$COVER" ) \
    >"$T/b4.log" 2>&1
is "$(cat "$T"/b4out/*.mbx | grep -c '^From ')" 1 "b4 finds exactly one patch"
! grep -q 'kperfci' "$T"/b4out/*.mbx
ok "b4 takes the reply for a reply, not a patch" [ $? = 0 ]

"$KPERFCI_BIN/kperfci" -s "$KD_URL" mail show "$S" >"$T/show.out"
like '^# mail [0-9]* \(result\): sent' "$T/show.out" "kperfci mail show: its state"
like '^Subject: Re: \[PATCH 0/1\]' "$T/show.out" "and the message"

# ---- a command in a reply ----------------------------------------------
cat >"$T/cmd.eml" <<EOF
From: Dev Eloper <dev@example.org>
To: linux-mm@example.org
Subject: Re: [PATCH 0/1] mm: batch the thing
Date: $(date -R)
Message-ID: <cmd-1@example.org>
In-Reply-To: <$COVER>
References: <$COVER>

Thanks.  Can you try the lru-lock suite with more boots?

> found: improvement

#kperfci test suite lru-lock boots 4
EOF
mta_send "$T/cmd.eml"
ok "the command starts a series" wait_field "$KD_URL/api/v1/series" \
    '.series | length' 30 2
C=$(curl -s "$KD_URL/api/v1/series" | jq -r '.series[0].id')
ok "it runs" kd_wait_series "$C" 60 running
is "$(curl -s "$KD_URL/api/v1/series/$C" | jq -r .schedule.base.planned)" 4 \
    "with the boots the command asked for"
i=0
while [ $i -lt 100 ]; do
	thread "$COVER"
	grep -q '^In-Reply-To: <cmd-1@example.org>' "$T/t.mbox" && break
	sleep 0.2
	i=$((i + 1))
done
like '^In-Reply-To: <cmd-1@example.org>' "$T/t.mbox" \
    "the command is answered in the thread"
like "Accepted: series $C runs" "$T/t.mbox" "accepted, with the series"

# ---- a command in the thread of a series submitted by URL ----------------
# linux-doc is watched by no one: the series comes by its URL, and the
# daemon reads its thread itself ([mail] thread_poll)
for f in "$T"/series/*.patch; do
	sed 's/^To: linux-mm@example.org/To: linux-doc@example.org/' "$f" \
	    >"$T/doc.eml"
	mta_send "$T/doc.eml"
done
P1=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' "$T"/series/0001-*.patch)
ok "the series is on the unwatched list too" wait_http \
    "${PI_URL}linux-doc/$P1/raw" 20
is "$(curl -s -o "$T/u.json" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/json' \
    -d "{\"url\": \"${PI_URL}linux-doc/$COVER/\"}" "$KD_URL/api/v1/series")" \
    202 "submitted by its linux-doc URL"
U=$(jq -r .id "$T/u.json")
cat >"$T/ucmd.eml" <<EOF
From: Dev Eloper <dev@example.org>
To: linux-doc@example.org
Subject: Re: [PATCH 0/1] mm: batch the thing
Date: $(date -R)
Message-ID: <cmd-doc-1@example.org>
In-Reply-To: <$COVER>
References: <$COVER>

Not this one after all.

#kperfci cancel
EOF
mta_send "$T/ucmd.eml"
ok "the command in its thread is read and obeyed: cancelled" \
    kd_wait_state "$U" cancelled
ok "and answered in the thread" sh -c "
	i=0; while [ \$i -lt 100 ]; do
		curl -s '${PI_URL}linux-doc/$COVER/t.mbox.gz' | gzip -dc |
		    grep -q '^In-Reply-To: <cmd-doc-1@example.org>' && exit 0
		sleep 0.3; i=\$((i+1)); done; exit 1"
sleep 2
is "$(curl -s "$KD_URL/api/v1/series" | jq "[.series[] | select(.id > $U)] | length")" \
    0 "acted on once: nothing else started"

# the relay refuses the result, then takes it: one mail
mta_refuse on
run_boots "$C"
ok "command's series done" kd_wait_series "$C" 30 done
ok "a refused reply is queued" wait_field "$KD_URL/api/v1/series/$C/mail" \
    '.mails[] | select(.kind == "result") | .reason // ""' 30 \
    "451 try again later"
curl -s "$KD_URL/api/v1/series/$C/mail" >"$T/m.json"
is "$(jq -r '.mails[] | select(.kind == "result") | .state' "$T/m.json")" queued \
    "it stays queued while the relay refuses"
curl -s "$KD_URL/series/$C" >"$T/page.html"
like "reply queued \(SMTP: 451 try again later" "$T/page.html" \
    "the page says the reply is queued, and why"
mta_refuse off
ok "and is sent once the relay takes it" wait_field \
    "$KD_URL/api/v1/series/$C/mail" \
    '.mails[] | select(.kind == "result") | .state' 30 sent
RID=$(jq -r '.mails[] | select(.kind == "result") | .msgid' "$T/m.json")
mta_idle 120
thread "$COVER"
is "$(grep -c "^Message-ID: <$RID>" "$T/t.mbox")" 1 "exactly one copy on the list"
like "^In-Reply-To: <cmd-1@example.org>" "$T/t.mbox" \
    "the result answers the command"

# ---- a restart sends nothing twice -------------------------------------
n0=$(grep -c '^Message-ID: <kperfci\.' "$T/t.mbox")
# the MTA delivers each recipient's copy on its own, the lore's first
# (many seconds on a busy machine): count once its queue is empty
box_settled() {
	mta_idle 120
	grep -c '^From ' "$T/mta/box/all"
}
b0=$(box_settled)
ok "stop" kd_stop
ok "restart" kd_start
sleep 4
thread "$COVER"
is "$(grep -c '^Message-ID: <kperfci\.' "$T/t.mbox")" "$n0" \
    "nothing new on the list after a restart"
is "$(box_settled)" "$b0" "nor in anyone's mailbox"

# ---- a crash between handing the reply over and recording it ----------
# (the row says 'sending', as after a kill -9 mid-send): the restart looks
# for it on the list before sending, finds it, sends nothing
ok "stop" kd_stop
sqlite3 "$T/var/kperfci.db" "UPDATE mail SET state = 'sending', next_try = 0 WHERE msgid = '$RID'"
is "$(sqlite3 "$T/var/kperfci.db" "SELECT state FROM mail WHERE msgid = '$RID'")" \
    sending "the reply reads 'sending', as after a crash mid-send"
ok "restart" kd_start
ok "back up, it is looked for on the list and found there" wait_field \
    "$KD_URL/api/v1/series/$C/mail" \
    ".mails[] | select(.msgid == \"$RID\") | .reason // \"\"" 30 \
    "found on the list after a restart"
mta_idle 120
thread "$COVER"
is "$(grep -c "^Message-ID: <$RID>" "$T/t.mbox")" 1 "still exactly one copy on the list"
is "$(box_settled)" "$b0" "and nothing in anyone's mailbox"

# ---- the search finds what the feed scrolled past ----------------------
ok "stop" kd_stop
cat >"$T/late.eml" <<EOF
From: Other Dev <other@example.org>
To: linux-mm@example.org
Subject: [PATCH] mm/swap: another thing
Date: $(date -R)
Message-ID: <late-1@example.org>

Another change.

Signed-off-by: Other Dev <other@example.org>
---
diff --git a/mm/swap.c b/mm/swap.c
--- a/mm/swap.c
+++ b/mm/swap.c
@@ -1,3 +1,4 @@
 1
 2
+2.5
 3
EOF
mta_send "$T/late.eml"
for k in $(seq 1 30); do
	printf 'From: Chat <chat@example.org>\nTo: linux-mm@example.org\nSubject: chatter %s\nMessage-ID: <chat-%s@example.org>\n\nhello\n' \
	    "$k" "$k" >"$T/chat.eml"
	mta_send "$T/chat.eml"
done
feed_scrolled() {	# the chatter delivered, late-1 off the Atom feed
	i=0
	while [ $i -lt 150 ]; do
		curl -s "${PI_URL}linux-mm/new.atom" >"$T/new.atom"
		grep -q chat-30 "$T/new.atom" && ! grep -q late-1 "$T/new.atom" &&
		    return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}
ok "the feed no longer shows the late series" feed_scrolled
ok "restart" kd_start
ok "the search-based watch still submits it" wait_field \
    "$KD_URL/api/v1/series" '[.series[] | select(.msgid == "late-1@example.org")] | length' 30 1
ok "stop" kd_stop

# ---- configuration errors ----------------------------------------------
printf '[mail]\nsend = smtp\n' >"$T/bad.conf"
"$KPERFCI_BIN/kperfcid" -n -c "$T/bad.conf" >"$T/bad.out" 2>&1
like "needs relay = HOST:PORT" "$T/bad.out" "send = smtp without a relay: -n fails"
printf '[mail]\nsend = smtp\nrelay = x:99999\n' >"$T/bad2.conf"
"$KPERFCI_BIN/kperfcid" -n -c "$T/bad2.conf" >"$T/bad2.out" 2>&1
like "bad2.conf:3: .*port not in 1..65535" "$T/bad2.out" "a bad relay names file:line"
test_done
