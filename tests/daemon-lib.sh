# tests/daemon-lib.sh: start and stop a real kperfcid for end-to-end tests.
# Source after tests/lib.sh.
#
#   kd_config [EXTRA_LINES]   writes $T/kperfcid.conf: a free loopback port,
#                             data under $T/var, plus EXTRA_LINES (may hold
#                             whole sections, e.g. "[lore]\nallow = $PI_URL/")
#   kd_start [ARGS]           starts bin/kperfcid -d -c $T/kperfcid.conf in the
#                             background (log in $T/kperfcid.log), waits
#                             for /healthz; sets KD_URL and KD_PID
#   kd_stop                   SIGTERM, waits for the exit; returns its status
#   kd_wait_state ID STATE... polls /api/v1/series/ID until its state is
#                             one of STATE, for $KD_WAIT seconds (default 30)
#   kd_wait_series ID SECONDS STATE...  the same with its own limit
#   kd_wait_rest ID [SECONDS] polls until the series rests (its "final" is
#                             true: fetched before the build stages exist,
#                             done, failed)
#   jfield JSON_FILE EXPR     prints a jq expression's raw value
#   kd_admin_curl ARGS...     curl with the admin token ($KD_ADMIN_TOKEN,
#                             whose sha256 kd_config puts in [auth])
#   kd_kernel_post FILE [NOTE]  uploads a bzImage as the admin; the JSON
#                             answer on stdout
#   kd_csrf                   the CSRF token of the front page's form
#
# The daemon is stopped at exit.
KD_PID=
KD_URL=
KD_PORT=
KD_ADMIN_TOKEN=kd-admin-token-not-secret

kd_config() {
	KD_PORT=$(free_port)
	mkdir -p "$T/var"
	{
		printf '[daemon]\nlisten = 127.0.0.1\nport = %s\ndata = %s\n' \
		    "$KD_PORT" "$T/var"
		printf 'workers = 2\nthreads = 2\npoll = 1\n'
		[ $# -gt 0 ] && printf "$1\n"
		printf '[auth]\nadmin_token_sha256 = %s\n' \
		    "$(printf %s "$KD_ADMIN_TOKEN" | sha256sum | cut -d' ' -f1)"
	} >"$T/kperfcid.conf"
	KD_URL="http://127.0.0.1:$KD_PORT"
}

kd_start() {
	"$KPERFCI_BIN/kperfcid" -d -c "$T/kperfcid.conf" "$@" \
	    >>"$T/kperfcid.log" 2>&1 &
	KD_PID=$!
	if ! wait_http "$KD_URL/healthz" 15; then
		echo "# kperfcid did not come up:"
		sed 's/^/#   /' "$T/kperfcid.log" | tail -20
		return 1
	fi
}

kd_stop() {
	[ -n "$KD_PID" ] || return 0
	kill -TERM "$KD_PID" 2>/dev/null
	wait "$KD_PID"
	rc=$?
	KD_PID=
	return $rc
}

_kd_cleanup() {
	[ -n "$KD_PID" ] && kill -TERM "$KD_PID" 2>/dev/null && wait "$KD_PID"
	return 0
}
at_exit _kd_cleanup

kd_wait_series() {
	_ws_id=$1 _ws_secs=$2
	shift 2
	wait_field "$KD_URL/api/v1/series/$_ws_id" .state "$_ws_secs" "$@" &&
	    return 0
	# what stopped it: a failed series says why
	echo "# series $_ws_id: error: $(curl -fs "$KD_URL/api/v1/series/$_ws_id" |
	    jq -r '.error // "(none)"' | head -c 400)"
	return 1
}

kd_wait_state() {
	id=$1; shift
	for _st; do
		case $_st in *[!a-z_-]*|'')
			echo "kd_wait_state: \"$_st\" is not a state (a limit goes" \
			    "to kd_wait_series ID SECONDS STATE...)" >&2
			return 2;;
		esac
	done
	kd_wait_series "$id" "${KD_WAIT:-30}" "$@"
}

kd_wait_rest() {
	i=0
	while [ $i -lt $((${2:-30} * 10)) ]; do
		[ "$(curl -fs "$KD_URL/api/v1/series/$1" | jq -r .final)" = true ] &&
		    return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "# series $1 did not come to rest"
	return 1
}

jfield() {
	jq -r "$2" "$1"
}

kd_admin_curl() {
	curl -H "Authorization: Bearer $KD_ADMIN_TOKEN" "$@"
}

kd_kernel_post() {
	kd_admin_curl -s -H 'Content-Type: application/octet-stream' \
	    --data-binary @"$1" "$KD_URL/api/v1/kernels${2:+?note=$2}"
}

kd_csrf() {
	curl -s "$KD_URL/" | sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' |
	    head -1
}
