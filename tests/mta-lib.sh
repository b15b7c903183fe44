# tests/mta-lib.sh: a real MTA (Debian's Exim 4) in a test configuration
# on a loopback port, delivering mail for LIST@example.org into the local
# lore through public-inbox-mda (the way lore ingests mail) and mail for
# any other @example.org address into $T/mta/box/all (an mbox whose
# Envelope-to: headers say who got each message).
# Source after tests/lib.sh and tests/pi-lib.sh, after pi_start:
#
#   mta_start           starts exim on a free port; sets MTA_PORT
#                       (MTA_LISTS, "linux-mm" by default, a
#                       colon-separated list: the local parts delivered
#                       into the lore, each an inbox of pi_start;
#                       MTA_DOMAINS, "example.org" by default, the
#                       domains it takes mail for, "*" for every one:
#                       tools/demo-lore's, so that a reply to any author
#                       lands in the box and nothing is refused;
#                       MTA_SUBMISSION=yes: a second port, MTA_SUBMIT_PORT,
#                       as a provider's 587: STARTTLS with a self-signed
#                       certificate made here ($MTA_CERT, for the name
#                       localhost only: a client that connects to
#                       127.0.0.1 and checks the name refuses it), AUTH
#                       PLAIN and LOGIN offered only
#                       inside TLS and required for every recipient,
#                       checked against $T/mta/passwd, which holds the
#                       user MTA_USER with the password MTA_PASSWORD)
#   mta_send FILE       one message to its To/Cc over SMTP (curl)
#   mta_refuse on|off   temporarily refuse every message after DATA (451)
#   mta_idle [SECONDS]  until the queue is empty: every message taken so
#                       far delivered to every recipient (60 s at most by
#                       default); a lore delivery (public-inbox-mda, then
#                       the extindex) takes many seconds on a busy machine
#   mta_stop            (also run at exit)
#
# The deliveries run as Debian-exim (exim drops root for a -C config),
# so the lore's files are handed to that user: write to the inbox through
# the MTA (or as that user) from then on.  That user must be able to
# reach $T: mta_start fails, saying so, under a directory it cannot
# search (a checkout in /root).
#
# Search: with an extindex configured (pi-lib.sh's "all"), public-inbox
# 1.9 answers every inbox's search from the extindex, not from the
# inbox's own Xapian shards (PublicInbox::Config gives each inbox an
# Isearch over "all"), and public-inbox-mda writes only the inbox.  So a
# delivery also runs public-inbox-extindex --all (as lore keeps /all/
# current), and the httpd, which re-reads the extindex only on SIGHUP,
# gets one every second while the MTA runs.  Without both, every query
# of a delivered message is a 404.
MTA_PID=
MTA_HUPPER=
MTA_SUBMIT_PORT=
MTA_CERT=
MTA_USER=kperfci
MTA_PASSWORD=not-secret-smtp-password

# The submission port's parts of exim.conf (empty without MTA_SUBMISSION):
# main settings, the ACL's first statement, the authenticators.
_mta_submission() {
	MTA_SUBMIT_PORT=$(free_port)
	MTA_CERT=$T/mta/cert.pem
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
	    -addext "subjectAltName = DNS:localhost" \
	    -keyout "$T/mta/key.pem" -out "$MTA_CERT" >/dev/null 2>&1 ||
	    return 1
	printf '%s: %s\n' "$MTA_USER" "$MTA_PASSWORD" >"$T/mta/passwd"
	chown Debian-exim "$T/mta/key.pem" "$T/mta/passwd" || return 1
	chmod 600 "$T/mta/key.pem" "$T/mta/passwd"
	cat >"$T/mta/tls.conf" <<TLS
tls_certificate = $MTA_CERT
tls_privatekey = $T/mta/key.pem
tls_advertise_hosts = *
TLS
	cat >"$T/mta/acl.conf" <<ACL
  deny condition = \${if eq{\$received_port}{$MTA_SUBMIT_PORT}}
       !encrypted = *
       message = STARTTLS first
  deny condition = \${if eq{\$received_port}{$MTA_SUBMIT_PORT}}
       !authenticated = *
       message = authentication required
ACL
	# a user missing from the file fails the expansion: AUTH fails
	cat >"$T/mta/auth.conf" <<AUTH
begin authenticators
plain:
  driver = plaintext
  public_name = PLAIN
  server_prompts = :
  server_advertise_condition = \${if def:tls_in_cipher}
  server_condition = \${if eq{\$auth3}{\${lookup{\$auth2}lsearch{$T/mta/passwd}{\$value}fail}}}
  server_set_id = \$auth2
login:
  driver = plaintext
  public_name = LOGIN
  server_prompts = Username:: : Password::
  server_advertise_condition = \${if def:tls_in_cipher}
  server_condition = \${if eq{\$auth2}{\${lookup{\$auth1}lsearch{$T/mta/passwd}{\$value}fail}}}
  server_set_id = \$auth1
AUTH
}

mta_start() {
	command -v exim4 >/dev/null || return 1
	mkdir -p "$T/mta/spool" "$T/mta/log" "$T/mta/box" || return 1
	MTA_PORT=$(free_port)
	: >"$T/mta/tls.conf"
	: >"$T/mta/acl.conf"
	: >"$T/mta/auth.conf"
	if [ "${MTA_SUBMISSION:-}" = yes ]; then
		_mta_submission || return 1
	fi
	cat >"$T/mta/deliver" <<DELIVER
#!/bin/sh
# one message into the inbox, then into the extindex the search reads;
# 75 (EX_TEMPFAIL) makes exim retry
/usr/bin/public-inbox-mda --no-precheck || exit \$?
/usr/bin/public-inbox-extindex "$T/pi/all" --all >/dev/null 2>&1 || exit 75
DELIVER
	chmod 755 "$T/mta/deliver"
	cat >"$T/mta/exim.conf" <<CONF
primary_hostname = mta.example.org
spool_directory = $T/mta/spool
log_file_path = $T/mta/log/%slog
pid_file_path = $T/mta/exim.pid
daemon_smtp_ports = $MTA_PORT${MTA_SUBMIT_PORT:+ : $MTA_SUBMIT_PORT}
local_interfaces = 127.0.0.1
domainlist local_domains = ${MTA_DOMAINS:-example.org}
acl_smtp_rcpt = acl_rcpt
acl_smtp_data = acl_data
message_size_limit = 10M
$(cat "$T/mta/tls.conf")
begin acl
acl_rcpt:
$(cat "$T/mta/acl.conf")
  accept domains = +local_domains
  deny message = relay not permitted
acl_data:
  defer condition = \${if exists{$T/mta/refuse}}
        message = try again later
  accept
begin routers
lore:
  driver = accept
  domains = +local_domains
  local_parts = ${MTA_LISTS:-linux-mm}
  transport = mda
box:
  driver = accept
  domains = +local_domains
  transport = box
begin transports
mda:
  driver = pipe
  command = $T/mta/deliver
  user = Debian-exim
  home_directory = $T/pi/home
  current_directory = $T/pi/home
  environment = PI_DIR=$T/pi/dir:PI_CONFIG=$T/pi/config:ORIGINAL_RECIPIENT=\$local_part@\$domain
  return_fail_output
box:
  driver = appendfile
  file = $T/mta/box/all
  envelope_to_add
  user = Debian-exim
begin retry
* * F,1h,1m
$(cat "$T/mta/auth.conf")
CONF
	chmod 755 "$T"
	chown -R Debian-exim "$T/pi" "$T/mta/spool" "$T/mta/log" "$T/mta/box" ||
	    return 1
	if ! runuser -u Debian-exim -- test -x "$T/mta/deliver"; then
		echo "# mta: Debian-exim cannot reach $T (a directory above" \
		    "it is not searchable by others)" >&2
		return 1
	fi
	exim4 -C "$T/mta/exim.conf" -bdf -q1s -odi 2>>"$T/mta/stderr" &
	MTA_PID=$!
	at_exit mta_stop
	if [ -n "$PI_PID" ]; then
		( while kill -HUP "$PI_PID" 2>/dev/null; do sleep 1; done ) &
		MTA_HUPPER=$!
	fi
	i=0
	while [ $i -lt 50 ]; do
		grep -q "listening for SMTP" "$T/mta/log/mainlog" 2>/dev/null &&
		    return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

mta_send() {
	rc=
	for a in $(sed -n '/^$/q;/^\(To\|Cc\):/p' "$1" |
	    grep -o '[A-Za-z0-9._-]*@example.org'); do
		rc="$rc --mail-rcpt $a"
	done
	from=$(sed -n '/^$/q;s/^From:.*<\(.*\)>.*/\1/p' "$1" | head -1)
	# an mbox file's "From " line is no header
	sed '1{/^From /d}' "$1" >"$T/mta/send.eml"
	curl -s "smtp://127.0.0.1:$MTA_PORT" --mail-from "$from" $rc \
	    -T "$T/mta/send.eml"
}

mta_refuse() {
	if [ "$1" = on ]; then : >"$T/mta/refuse"; else rm -f "$T/mta/refuse"; fi
}

mta_idle() {
	_mi_end=$(($(date +%s) + ${1:-60}))
	while [ "$(exim4 -C "$T/mta/exim.conf" -bpc 2>/dev/null)" != 0 ]; do
		if [ "$(date +%s)" -ge "$_mi_end" ]; then
			echo "# mta_idle: the queue did not empty in ${1:-60} s:"
			exim4 -C "$T/mta/exim.conf" -bp 2>&1 | sed 's/^/#   /'
			return 1
		fi
		sleep 0.2
	done
	# the httpd re-reads the extindex on the next HUP (every second)
	sleep 1.5
}

mta_stop() {
	[ -z "$MTA_HUPPER" ] || kill "$MTA_HUPPER" 2>/dev/null
	MTA_HUPPER=
	[ -n "$MTA_PID" ] || return 0
	kill -TERM "$MTA_PID" 2>/dev/null
	wait "$MTA_PID" 2>/dev/null
	MTA_PID=
	# deliveries in flight outlive the daemon; let them end before $T goes
	i=0
	while pgrep -f "$T/mta/exim.conf" >/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
