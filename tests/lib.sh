# tests/lib.sh: shared helpers for the end-to-end tests (TAP, like git's
# test-lib).  Source it, call the helpers, end with test_done.
#
#   . "$(dirname "$0")/../lib.sh"
#   ok "name" command args...      passes when the command exits 0
#   is "$got" "$want" "name"
#   test_done
#
# KPERFCI_BIN points at the binaries under test (bin/ or build/san/bin).
# Each test gets a scratch directory $T, removed at exit unless KEEP=1.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
: "${KPERFCI_BIN:=$SRC/bin}"
T=$(mktemp -d "${TMPDIR:-/tmp}/kperfci-test.XXXXXX")
tap_n=0
tap_fail=0
cleanup_fns=

at_exit() {
	cleanup_fns="$1 $cleanup_fns"
}

_run_cleanup() {
	for f in $cleanup_fns; do "$f" || :; done
	[ "${KEEP:-0}" = 1 ] || rm -rf "$T"
}
trap _run_cleanup EXIT

ok() {
	name=$1; shift
	tap_n=$((tap_n + 1))
	if "$@" >"$T/.out" 2>&1; then
		echo "ok $tap_n - $name"
	else
		echo "not ok $tap_n - $name"
		# diagnostics on stderr: prove shows them without -v, so a
		# CI log says why
		sed 's/^/#   /' "$T/.out" | tail -20 >&2
		tap_fail=$((tap_fail + 1))
	fi
}

is() {
	tap_n=$((tap_n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $tap_n - $3"
	else
		echo "not ok $tap_n - $3"
		printf '#   got:  %s\n#   want: %s\n' "$1" "$2" >&2
		tap_fail=$((tap_fail + 1))
	fi
}

# like PATTERN FILE NAME: passes when grep -E finds PATTERN in FILE.
like() {
	tap_n=$((tap_n + 1))
	if grep -Eq -- "$1" "$2"; then
		echo "ok $tap_n - $3"
	else
		echo "not ok $tap_n - $3"
		{
			echo "#   /$1/ not in $2:"
			head -c 2000 "$2" | sed 's/^/#   /'
			echo	# the excerpt may end mid-line
		} >&2
		tap_fail=$((tap_fail + 1))
	fi
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

# free_port: a TCP port nobody listens on right now.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_http URL [seconds]: until the URL answers.
wait_http() {
	i=0
	while [ $i -lt $((${2:-10} * 10)) ]; do
		curl -fs -o /dev/null "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# wait_field URL JQ_EXPR SECONDS WANT...: polls the JSON at URL until the
# expression's value is one of WANT; says what it was when time runs out.
wait_field() {
	_wf_url=$1 _wf_expr=$2 _wf_secs=$3
	shift 3
	_wf_i=0
	while [ $_wf_i -lt $((_wf_secs * 10)) ]; do
		_wf_got=$(curl -fs "$_wf_url" | jq -r "$_wf_expr")
		for _wf_w in "$@"; do
			[ "$_wf_got" = "$_wf_w" ] && return 0
		done
		sleep 0.1
		_wf_i=$((_wf_i + 1))
	done
	echo "# $_wf_url: $_wf_expr is '$_wf_got', not one of: $*"
	return 1
}

test_done() {
	echo "1..$tap_n"
	[ $tap_fail = 0 ]
}
