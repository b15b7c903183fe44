#!/bin/sh
# t2810-mail-relay: the ways a reply leaves, through a real Exim (a test
# configuration on loopback, tests/mta-lib.sh) into the real local lore.
# The reply is the answer to a "#kperfci cancel" in the thread of a
# series submitted by its URL (no boots needed), on its way:
#   - send = smtp to a submission port (STARTTLS with a self-signed
#     certificate made here, AUTH required, offered only inside TLS):
#     without ca_file the certificate does not verify, and the answer
#     stays queued with that reason, never sent; with ca_file naming the
#     certificate (made for localhost), a relay named 127.0.0.1 does not
#     match it and is refused the same way; named localhost, it is
#     trusted, and a wrong password in auth_file keeps it queued with the
#     relay's 535 (never "sent", never "failed"); the password fixed in
#     the file, it goes at the next retry, over TLS and authenticated
#     (Exim's log says both), once into the thread;
#   - send = sendmail (Exim's own sendmail interface, argv, no shell):
#     the next answer lands in the thread and in the author's mailbox
#     once.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/fake-kernel.sh"
. "$SRC/tests/pi-lib.sh"
. "$SRC/tests/mta-lib.sh"

command -v exim4 >/dev/null || skip_all "exim4 not installed (tools/packages.txt)"
command -v openssl >/dev/null || skip_all "openssl not installed"
[ "$(id -u)" = 0 ] || skip_all "the test MTA delivers as Debian-exim: run as root"
chmod 755 "$T"

fake_kernel_series "$T/tree" "$T/series" || exit 1

pi_start linux-mm || { echo "Bail out! public-inbox did not start"; exit 1; }
MTA_SUBMISSION=yes
ok "a real MTA (Exim) with a submission port: STARTTLS, AUTH" mta_start
for f in "$T"/series/*.patch; do mta_send "$f"; done
ok "the series reached the list through the MTA" wait_http \
    "${PI_URL}linux-mm/$P1/raw" 20

MAIL="[mail]\nfrom = kperfci <kperfci@example.org>\npublic_url = http://ci.example.org/\nretry = 1\nthread_poll = 1"
TREE="[lore]\nallow = $PI_URL\n[tree \"fake\"]\npath = $R\nbranch = master\nconfig = tinyconfig\nfragment = $T/frag.config\n[build]\ntimeout = 30\njobs = 2"
SMTP="send = smtp\nrelay = localhost:$MTA_SUBMIT_PORT\nauth_file = $T/smtp-auth"
printf '%s:wrong-password\n' "$MTA_USER" >"$T/smtp-auth"
kd_config "$TREE\n$MAIL\n$SMTP"
ok "kperfcid -n accepts STARTTLS (the default) with auth_file" \
    "$KPERFCI_BIN/kperfcid" -n -c "$T/kperfcid.conf"
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
answer() {	# answer N JQ: a field of the answer to <cmd-N@example.org>
	curl -s "$KD_URL/api/v1/series/$U/mail" | jq -r "[.mails[] |
	    select(.kind == \"answer\" and (.message | contains(
	    \"In-Reply-To: <cmd-$1@example.org>\")))][0] | $2"
}
wait_answer() {	# wait_answer N JQ SECONDS WANT
	end=$(($(date +%s) + $3))
	while :; do
		got=$(answer "$1" "$2")
		[ "$got" = "$4" ] && return 0
		[ "$(date +%s)" -lt "$end" ] || break
		sleep 0.3
	done
	echo "# the answer to cmd-$1: $2 is '$got', not '$4'"
	return 1
}
wait_log() {	# wait_log ERE: until Exim's main log has a line matching
	end=$(($(date +%s) + 20))
	until grep -Eq -- "$1" "$T/mta/log/mainlog"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.3
	done
}
in_thread() {	# in_thread PATTERN: how many messages of the thread match
	curl -s "${PI_URL}linux-mm/$COVER/t.mbox.gz" | gzip -dc |
	    grep -c "$1"
}
wait_thread() {	# wait_thread PATTERN SECONDS: until the thread has it
	end=$(($(date +%s) + $2))
	until [ "$(in_thread "$1")" -gt 0 ]; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.5
	done
}
# ---- STARTTLS: the certificate is verified ----------------------------
command_mail 1 "Not this one after all.

#kperfci cancel"
ok "the command is obeyed: cancelled" kd_wait_series "$U" 120 cancelled
ok "its answer is queued: the self-signed certificate does not verify" \
    wait_answer 1 '.reason // ""' 120 \
    "SSL certificate problem: self-signed certificate"
# (or is being tried again right now)
is "$(answer 1 '.state | IN("queued", "sending")')" true \
    "it stays queued, not sent, not failed"
ok "stop" kd_stop
ok "Exim's log has the broken handshake" wait_log \
    'TLS error on connection from .*127\.0\.0\.1'
is "$(cat "$T/mta/box/all" 2>/dev/null | grep -c '^In-Reply-To: <cmd-1@')" 0 \
    "nothing reached anyone's mailbox"

# ---- and so is the relay's name ---------------------------------------
kd_config "$TREE\n$MAIL\nsend = smtp\nrelay = 127.0.0.1:$MTA_SUBMIT_PORT\nauth_file = $T/smtp-auth\nca_file = $MTA_CERT"
ok "restart with ca_file, the relay named by its address" kd_start
ok "the certificate (for localhost) does not match 127.0.0.1: still queued" \
    wait_answer 1 '.reason // ""' 60 \
    "SSL: no alternative certificate subject name matches target host name '127.0.0.1'"
is "$(answer 1 '.state | IN("queued", "sending")')" true \
    "not sent, not failed"
ok "stop" kd_stop

# ---- AUTH: a wrong password is not a refusal of the message -------------
kd_config "$TREE\n$MAIL\n$SMTP\nca_file = $MTA_CERT"
ok "restart with ca_file, the relay named localhost" kd_start
ok "the relay refuses the wrong password, and the reason says so" \
    wait_answer 1 '.reason // ""' 60 \
    "AUTH as kperfci refused: 535 Incorrect authentication data"
sleep 2
is "$(answer 1 '.state | IN("queued", "sending")')" true \
    "the answer stays queued (a wrong password never marks it sent or failed)"
ok "Exim's log has the failed login" wait_log \
    'authenticator failed .*535 Incorrect authentication data'

printf '%s:%s\n' "$MTA_USER" "$MTA_PASSWORD" >"$T/smtp-auth"
ok "the password fixed in auth_file, it is sent (no restart)" \
    wait_answer 1 .state 60 sent
grep "<= kperfci@example.org .*id=kperfci\.answer" "$T/mta/log/mainlog" \
    >"$T/accepted"
like ' X=TLS' "$T/accepted" "Exim's log: it came over TLS"
like ' A=(plain|login):kperfci ' "$T/accepted" \
    "and authenticated as kperfci"
ok "it lands in the thread" wait_thread '^In-Reply-To: <cmd-1@' 120
ok "stop" kd_stop

# ---- send = sendmail: Exim's own sendmail interface --------------------
# kperfci appends -f FROM -- RCPT... and writes the message on stdin
kd_config "$TREE\n$MAIL\nsend = sendmail\nsendmail = /usr/sbin/exim4 -C $T/mta/exim.conf -oi"
ok "restart with send = sendmail" kd_start
command_mail 2 "And again.

#kperfci cancel"
ok "the answer is sent through sendmail" wait_answer 2 .state 120 sent
like "<= kperfci@example.org U=root P=local .*id=kperfci\.answer" \
    "$T/mta/log/mainlog" "Exim's log: a local submission (its sendmail)"
ok "it lands in the thread" wait_thread '^In-Reply-To: <cmd-2@' 120
box_has() {	# box_has N: the author's copy of the answer to cmd-N came
	end=$(($(date +%s) + 60))
	until grep -q "^In-Reply-To: <cmd-$1@" "$T/mta/box/all" 2>/dev/null
	do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.5
	done
}
ok "and in the author's mailbox" box_has 2
mta_idle 120
is "$(in_thread '^In-Reply-To: <cmd-2@')" 1 "once in the thread"
is "$(grep -c '^In-Reply-To: <cmd-2@' "$T/mta/box/all")" 1 \
    "once in the mailbox"
is "$(in_thread '^In-Reply-To: <cmd-1@')" 1 \
    "the first answer is still there once"
ok "stop" kd_stop
test_done
