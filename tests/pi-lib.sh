# tests/pi-lib.sh: a real local lore (public-inbox 1.9) for the end-to-end
# tests.  Source it after tests/lib.sh:
#
#   pi_start test linux-mm     V2 inboxes "test" and "linux-mm" under $T/pi,
#                              the "all" extindex, public-inbox-httpd on a
#                              free loopback port; sets PI_URL
#                              ("http://127.0.0.1:PORT/")
#   pi_import test FILE.mbox   imports an mboxrd file (and re-indexes /all/)
#   pi_stop                    stops the httpd (also run at exit)
#
# Recipes from NOTES.md (there is no public-inbox-import in 1.9).
PI_PID=
PI_URL=

_pi_env() {
	env HOME="$T/pi/home" PI_DIR="$T/pi/dir" PI_CONFIG="$T/pi/config" "$@"
}

pi_start() {
	mkdir -p "$T/pi/home" "$T/pi/dir" || return 1
	: > "$T/pi/config"
	git config -f "$T/pi/config" publicinboxmda.spamcheck none
	for n in "$@"; do
		_pi_env public-inbox-init -V2 -L full "$n" "$T/pi/$n" "$n" \
		    "$n@example.org" || return 1
	done
	git config -f "$T/pi/config" extindex.all.topdir "$T/pi/all"
	git config -f "$T/pi/config" extindex.all.url all
	_pi_env public-inbox-extindex "$T/pi/all" --all >/dev/null 2>&1 ||
	    return 1
	port=$(free_port)
	# env execs the httpd, so $! is the httpd itself (a shell function
	# here would leave a subshell in between and orphan the server)
	env HOME="$T/pi/home" PI_DIR="$T/pi/dir" PI_CONFIG="$T/pi/config" \
	    public-inbox-httpd -W0 -l "127.0.0.1:$port" \
	    -1 "$T/pi/httpd.out" -2 "$T/pi/httpd.err" &
	PI_PID=$!
	at_exit pi_stop
	PI_URL="http://127.0.0.1:$port/"
	# an empty inbox answers 404: wait for any answer
	i=0
	while [ $i -lt 100 ]; do
		code=$(curl -s -o /dev/null -w '%{http_code}' "${PI_URL}$1/")
		[ "$code" != 000 ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "# public-inbox-httpd did not answer on $PI_URL" >&2
	return 1
}

pi_import() {
	_pi_env perl -MPublicInbox::Config -MPublicInbox::InboxWritable -e '
	    my $i = PublicInbox::Config->new->lookup_name($ARGV[0]) or die
	        "no inbox $ARGV[0]\n";
	    PublicInbox::InboxWritable->new($i)->import_mbox(\*STDIN, "mboxrd")
	' "$1" < "$2" || return 1
	_pi_env public-inbox-extindex "$T/pi/all" --all >/dev/null 2>&1 ||
	    return 1
	# the httpd re-reads inboxes and the extindex on HUP
	[ -z "$PI_PID" ] || kill -HUP "$PI_PID"
}

pi_stop() {
	[ -n "$PI_PID" ] || return 0
	kill -TERM "$PI_PID" 2>/dev/null
	# graceful shutdown can take over a second; wait so the port is free
	wait "$PI_PID" 2>/dev/null
	PI_PID=
}
