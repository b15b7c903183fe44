# tests/lava-lib.sh: a real LAVA instance for end-to-end tests, set up in
# the test's own directory from Debian's lava-server and lava-dispatcher
# (2023.01): its own PostgreSQL cluster, the server (gunicorn on loopback),
# the scheduler and one worker with one qemu device.  Nothing in /etc is
# changed: lava-server reads its database, secret key and paths from the
# environment (DATABASE_URL, SECRET_KEY, LAVA_SETTINGS_*), set by lava_env.
# Source after tests/lib.sh; needs root (the dispatcher runs as root,
# PostgreSQL as user postgres).
#
#   lava_skip_unless_installed   skip_all when a part is missing
#   lava_start DEVICE_DICT       sets the instance up in $T/lava and starts
#                             it: user kperfci (superuser) with a REST
#                             token in $LAVA_TOKEN_FILE, device type qemu,
#                             worker w1, device kq01 from DEVICE_DICT (a
#                             jinja2 device dictionary); waits until the
#                             worker is online.  $LAVA_URL is the server.
#   lava_env                  exports the instance's environment (for
#                             lava-server manage)
#   lava_api PATH [CURL ARGS] the REST API (api/v0.2/PATH) as kperfci
#   lava_server_stop / lava_server_start   the server (gunicorn) alone:
#                             what the bridge sees when a lab's server is
#                             down
#
# Everything started here is stopped at exit.  Logs: $T/lava/*.log.
LAVA_D=$T/lava
LAVA_PIDS=
LAVA_PG=

lava_skip_unless_installed() {
	[ "$(id -u)" = 0 ] || skip_all "LAVA's dispatcher runs as root only"
	for c in lava-server lava-worker lava-run gunicorn3 runuser; do
		command -v $c >/dev/null ||
		    skip_all "$c missing (packages lava-server, lava-dispatcher)"
	done
	LAVA_PG=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
	[ -x "$LAVA_PG/initdb" ] || skip_all "PostgreSQL missing (package postgresql)"
	[ -r /usr/share/lava-server/device-types/qemu.jinja2 ] ||
	    skip_all "lava-server's qemu device type missing"
}

lava_env() {
	export DATABASE_URL="postgres://lava@127.0.0.1:$LAVA_PGPORT/lava"
	export SECRET_KEY="kperfci-test-$LAVA_PGPORT-not-secret-0123456789"
	export ALLOWED_HOSTS=127.0.0.1,localhost
	export LAVA_SETTINGS_MEDIA_ROOT=$LAVA_D/media
	export LAVA_SETTINGS_DEVICES_PATH=$LAVA_D/devices
	export LAVA_SETTINGS_DISPATCHER_CONFIG_PATH=$LAVA_D/dispatcher.d
	export LAVA_SETTINGS_HEALTH_CHECKS_PATH=$LAVA_D/health-checks
	# lava-server is Debian's python3 program: not a python3 earlier in
	# PATH (a pyenv shim) that lacks django
	export PATH=/usr/sbin:/usr/bin:/sbin:/bin
}

# _lava_bg NAME CMD...: CMD in its own session, output in $LAVA_D/NAME.out.
_lava_bg() {
	n=$1; shift
	setsid "$@" >"$LAVA_D/$n.out" 2>&1 &
	echo $! >"$LAVA_D/$n.pid"
	LAVA_PIDS="$LAVA_PIDS $n"
}

_lava_kill() {
	[ -f "$LAVA_D/$1.pid" ] || return 0
	pid=$(cat "$LAVA_D/$1.pid")
	kill -TERM "-$pid" 2>/dev/null
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	kill -KILL "-$pid" 2>/dev/null
	rm -f "$LAVA_D/$1.pid"
}

lava_server_start() {
	_lava_bg gunicorn gunicorn3 lava_server.wsgi --bind "127.0.0.1:$LAVA_PORT" \
	    --workers 2 --timeout 120 --log-file "$LAVA_D/gunicorn.log"
	wait_http "$LAVA_URL/api/v0.2/system/version/" 60
}

lava_server_stop() {
	_lava_kill gunicorn
}

lava_api() {
	p=$1; shift
	curl -fsS -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" "$@" \
	    "$LAVA_URL/api/v0.2/$p"
}

_lava_cleanup() {
	for n in $LAVA_PIDS; do _lava_kill "$n"; done
	if [ -n "${LAVA_PGPORT:-}" ]; then
		runuser -u postgres -- "$LAVA_PG/pg_ctl" -D "$LAVA_D/pg/data" \
		    -m immediate stop >/dev/null 2>&1
	fi
	return 0
}
at_exit _lava_cleanup

# _lava_step NAME CMD...: runs CMD, its output in $LAVA_D/setup.log; on
# failure says which step and shows the end of that log.
_lava_step() {
	what=$1; shift
	echo "== $what" >>"$LAVA_D/setup.log"
	if ! "$@" >>"$LAVA_D/setup.log" 2>&1; then
		echo "# LAVA set-up failed: $what"
		tail -20 "$LAVA_D/setup.log" | sed 's/^/#   /'
		return 1
	fi
}

lava_start() {
	mkdir -p "$LAVA_D/media" "$LAVA_D/devices" "$LAVA_D/dispatcher.d" \
	    "$LAVA_D/health-checks" "$LAVA_D/worker"
	# PostgreSQL runs as postgres: it must reach $T/lava/pg
	chmod 711 "$T" "$LAVA_D"
	install -d -o postgres -m 700 "$LAVA_D/pg"
	LAVA_PGPORT=$(free_port)
	LAVA_PORT=$(free_port)
	LAVA_URL=http://127.0.0.1:$LAVA_PORT
	LAVA_TOKEN_FILE=$LAVA_D/kperfci.token
	lava_env
	_lava_step "initdb" runuser -u postgres -- "$LAVA_PG/initdb" \
	    -D "$LAVA_D/pg/data" -A trust -U lava --no-sync || return 1
	_lava_step "postgres" runuser -u postgres -- "$LAVA_PG/pg_ctl" \
	    -D "$LAVA_D/pg/data" -l "$LAVA_D/pg/log" -w -o "-k $LAVA_D/pg \
	    -p $LAVA_PGPORT -c listen_addresses=127.0.0.1 -c fsync=off" \
	    start || return 1
	_lava_step "createdb" runuser -u postgres -- "$LAVA_PG/createdb" \
	    -h 127.0.0.1 -p "$LAVA_PGPORT" -U lava lava || return 1
	_lava_step "migrate" lava-server manage migrate --no-input || return 1
	head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$LAVA_TOKEN_FILE"
	_lava_step "user" lava-server manage users add kperfci --superuser \
	    --staff --passwd "kperfci-$LAVA_PORT" || return 1
	_lava_step "token" lava-server manage tokens add --user kperfci \
	    --secret "$(cat "$LAVA_TOKEN_FILE")" || return 1
	_lava_step "device type" lava-server manage device-types add qemu ||
	    return 1
	_lava_step "worker" lava-server manage workers add w1 || return 1
	lava-server manage workers details w1 2>/dev/null |
	    sed -n 's/^token *: *//p' >"$LAVA_D/worker.token"
	[ -s "$LAVA_D/worker.token" ] || { echo "# no worker token"; return 1; }
	cp "$1" "$LAVA_D/devices/kq01.jinja2"
	_lava_step "device" lava-server manage devices add --device-type qemu \
	    --worker w1 kq01 || return 1
	lava_server_start || { echo "# the LAVA server did not answer"; return 1; }
	_lava_bg scheduler lava-server manage lava-scheduler --level DEBUG \
	    --log-file "$LAVA_D/scheduler.log"
	_lava_bg worker lava-worker --name w1 --url "$LAVA_URL/" \
	    --token-file "$LAVA_D/worker.token" --worker-dir "$LAVA_D/worker" \
	    --log-file "$LAVA_D/worker.log" --level DEBUG --ping-interval 2
	wait_field "$LAVA_URL/api/v0.2/workers/w1/" .state 60 Online
}
