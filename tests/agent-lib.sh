# tests/agent-lib.sh: agents in end-to-end tests.  Source after tests/lib.sh
# and tests/daemon-lib.sh.
#
#   ka_token NAME             the bearer token of agent NAME
#   ka_section NAME...        config lines [agent "NAME"] token_sha256 = ...
#                             (for kd_config's EXTRA_LINES)
#   ka_fake_bzimage FILE      writes a small file with a bzImage setup header
#                             (accepted as an artifact; never booted)
#   ka_config NAME [LINES]    writes $T/NAME.conf for kperfci-agent pointing at
#                             $KD_URL (state in $T/NAME.state), plus LINES
#   ka_start NAME [ARGS]      starts kperfci-agent -d -c $T/NAME.conf in the
#                             background, log in $T/NAME.log; its pid is
#                             printed in $T/NAME.pid
#   ka_stop NAME [SIGNAL]     stops it (default TERM) and waits
#   ka_wait_job ID STATE... [--secs N]   polls /api/v1/jobs/ID until its state
#                             is one of STATE (default 60 s)
#   ka_wait_log NAME REGEX [SECONDS]   until the agent's log matches
#   api_post PATH BODY [NAME] POST JSON (as agent NAME when given, else
#                             with no token on agent routes and the admin's
#                             elsewhere); body to $T/r.json, prints the status
#
# Agents started here are stopped at exit.
KA_AGENTS=

ka_token() {
	printf 'tok-%s-not-secret' "$1"
}

ka_section() {
	for n in "$@"; do
		h=$(ka_token "$n" | sha256sum | cut -d' ' -f1)
		printf '[agent "%s"]\\ntoken_sha256 = %s\\n' "$n" "$h"
	done
}

ka_fake_bzimage() {
	python3 - "$1" <<-'EOF'
	import sys
	b = bytearray(4096)
	b[0x202:0x206] = b"HdrS"
	b[0x20e:0x210] = (0x100).to_bytes(2, "little")
	b[0x300:0x300 + 20] = b"6.12.0-fake (t) #1 \0"
	open(sys.argv[1], "wb").write(bytes(b))
	EOF
}

ka_config() {
	{
		printf '[agent]\nname = %s\nserver = %s\ntoken = %s\n' \
		    "$1" "$KD_URL" "$(ka_token "$1")"
		printf 'state-dir = %s\nload-bin = %s\n' "$T/$1.state" \
		    "$KPERFCI_BIN/kperfci-load"
		printf 'poll-seconds = 1\nbackoff-max = 2\nheartbeat-seconds = 1\n'
		[ $# -gt 1 ] && printf "$2\n"
	} >"$T/$1.conf"
}

ka_start() {
	n=$1; shift
	"$KPERFCI_BIN/kperfci-agent" -d -c "$T/$n.conf" "$@" \
	    >>"$T/$n.log" 2>&1 &
	echo $! >"$T/$n.pid"
	KA_AGENTS="$KA_AGENTS $n"
}

ka_stop() {
	[ -f "$T/$1.pid" ] || return 0
	pid=$(cat "$T/$1.pid")
	kill -"${2:-TERM}" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -f "$T/$1.pid"
}

_ka_cleanup() {
	for n in $KA_AGENTS; do ka_stop "$n" KILL; done
	return 0
}
at_exit _ka_cleanup

ka_wait_job() {
	id=$1; shift
	secs=60
	want=
	while [ $# -gt 0 ]; do
		case $1 in
		--secs) secs=$2; shift 2 ;;
		*) want="$want $1"; shift ;;
		esac
	done
	# $want is a list of plain state names: split on purpose
	# shellcheck disable=SC2086
	wait_field "$KD_URL/api/v1/jobs/$id" .state "$secs" $want
}

ka_wait_log() {
	i=0
	while [ $i -lt $((${3:-30} * 10)) ]; do
		grep -Eq -- "$2" "$T/$1.log" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "# /$2/ not in $1's log:"
	tail -5 "$T/$1.log" | sed 's/^/#   /'
	return 1
}

api_post() {
	if [ $# -gt 2 ]; then
		curl -s -o "$T/r.json" -w '%{http_code}' -X POST \
		    -H "Authorization: Bearer $(ka_token "$3")" \
		    -H 'Content-Type: application/json' --data-binary "$2" \
		    "$KD_URL$1"
	else
		# the admin's token where the admin is needed, none elsewhere
		case $1 in
		/api/v1/agents/*|*/heartbeat|*/results) _ap_auth= ;;
		*) _ap_auth="Authorization: Bearer $KD_ADMIN_TOKEN" ;;
		esac
		curl -s -o "$T/r.json" -w '%{http_code}' -X POST \
		    ${_ap_auth:+-H "$_ap_auth"} \
		    -H 'Content-Type: application/json' --data-binary "$2" \
		    "$KD_URL$1"
	fi
}
