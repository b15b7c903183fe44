#!/bin/sh
# bench-http: the HTTP server under load, on loopback.  Prints figures,
# asserts nothing about time.
#
#   make bench-http           both phases below
#   make bench-load-http      the load phase only
#
# A store of $NSERIES series (10000), $NCOMP (1000) of them with a finished
# comparison, is generated through the daemon's own store code
# (tests/bench/http-gen.c).  Then, with tests/bench/http-load.c:
#
# throughput: GET /api/v1/series, /series/{id}, /api/v1/series/{id}/
#   comparison and /series/{id}/report.txt (ids over the finished
#   comparisons) at $CONNS (64) keep-alive connections for $SECS (10) s
#   each: requests/s and latency p50/p99.  Targets (issue 11): >= 5000
#   req/s for the JSON list, p99 < 50 ms for a finished comparison page.
#   Once as configured (the response cache, daemon/http_cache.h, answers
#   while the store does not change), once with [http] cache = 0 (every
#   answer rendered from the store's stored results).
# load: with the default [http] limits, /healthz and the JSON list from
#   another loopback address (127.0.0.2) at 4 connections, alone and while
#   2000 connections flood the port from 127.0.0.1 and 1000 slowloris
#   connections come from 127.0.0.3 (p99 printed); then the daemon's RSS
#   while 16 clients upload 60 MB kernels at once and 40 clients download
#   a 60 MB kernel at 200 kB/s.
set -eu
. "$(dirname "$0")/../lib.sh"
: "${KPERFCI_BENCH:=$SRC/build/std/bench}"
NSERIES=${NSERIES:-10000}
NCOMP=${NCOMP:-1000}
SECS=${SECS:-10}
CONNS=${CONNS:-64}
PHASES=${PHASES:-throughput load}
LOAD=$KPERFCI_BENCH/http-load
TOKEN=bench-token-0123456789
# kernel uploads: the admin (a trusted loopback client when no admin token
# is configured) with an octet-stream body (daemon/auth.h)
OCTET='Content-Type: application/octet-stream'
ulimit -n 16384 2>/dev/null || ulimit -n "$(ulimit -Hn)"

secs_since() { python3 -c "import sys,time; print('%.1f' % (time.time() - float(sys.argv[1])))" "$1"; }

mkdir -p "$T/var"
t0=$(date +%s.%N)
"$KPERFCI_BENCH/http-gen" "$T/var" "$NSERIES" "$NCOMP" >"$T/gen.log" 2>&1 ||
    { tail "$T/gen.log"; exit 1; }
echo "store: $NSERIES series, $NCOMP finished comparisons," \
    "$(du -sh "$T/var/kperfci.db" | cut -f1), generated in $(secs_since "$t0") s"
awk -v n="$NCOMP" -v t="$T" 'BEGIN { for (i = 1; i <= n; i++) {
	print "/series/" i > t "/pages"
	print "/api/v1/series/" i "/comparison" > t "/json"
	print "/series/" i "/report.txt" > t "/text" } }'

KD_PID=
daemon() {	# daemon [EXTRA [http] LINES]: (re)starts kperfcid on the store
	[ -n "$KD_PID" ] && kill -TERM "$KD_PID" && wait "$KD_PID" || :
	PORT=$(free_port)
	{
		printf '[daemon]\nlisten = 127.0.0.1\nport = %s\ndata = %s\n' \
		    "$PORT" "$T/var"
		printf 'threads = %s\nworkers = 1\n' "${THREADS:-4}"
		printf '[agent "bench"]\ntoken_sha256 = %s\n' \
		    "$(printf %s "$TOKEN" | sha256sum | cut -d' ' -f1)"
		printf '[http]\n%b\n' "${1:-}"
	} >"$T/kperfcid.conf"
	"$KPERFCI_BIN/kperfcid" -d -c "$T/kperfcid.conf" >>"$T/kperfcid.log" 2>&1 &
	KD_PID=$!
	wait_http "http://127.0.0.1:$PORT/healthz" 30
}
stop_daemon() { [ -n "$KD_PID" ] && kill -TERM "$KD_PID" && wait "$KD_PID"; KD_PID=; }
at_exit stop_daemon

run() {	# run LABEL ARGS...: one http-load run, one line of figures
	label=$1; shift
	printf '%-44s ' "$label"
	"$LOAD" "$@" 127.0.0.1 "$PORT"
}

rss() { awk '/^VmRSS/ { printf "%d MB", $2 / 1024 }' "/proc/$KD_PID/status"; }
hwm() { awk '/^VmHWM/ { printf "%d MB", $2 / 1024 }' "/proc/$KD_PID/status"; }

case " $PHASES " in *" throughput "*)
	daemon 'per_ip_connections = 256'
	echo "throughput: $CONNS connections, $SECS s each, $(nproc) CPUs" \
	    "shared by client and daemon (${THREADS:-4} HTTP threads)"
	run "GET /api/v1/series (JSON list)" -c "$CONNS" -d "$SECS" \
	    -u /api/v1/series
	run "GET /series/{id} (finished comparison)" -c "$CONNS" -d "$SECS" \
	    -f "$T/pages"
	run "GET /api/v1/series/{id}/comparison" -c "$CONNS" -d "$SECS" \
	    -f "$T/json"
	run "GET /series/{id}/report.txt" -c "$CONNS" -d "$SECS" -f "$T/text"
	echo "daemon RSS: $(rss) (peak $(hwm))"
	daemon 'per_ip_connections = 256\ncache = 0'
	echo "uncached ([http] cache = 0: every answer rendered from the" \
	    "store's stored results):"
	run "GET /api/v1/series" -c "$CONNS" -d "$SECS" -u /api/v1/series
	run "GET /series/{id}" -c "$CONNS" -d "$SECS" -f "$T/pages"
	run "GET /api/v1/series/{id}/comparison" -c "$CONNS" -d "$SECS" \
	    -f "$T/json"
	run "GET /series/{id}/report.txt" -c "$CONNS" -d "$SECS" -f "$T/text"
	echo "daemon RSS after: $(rss) (peak $(hwm))"
;; esac

case " $PHASES " in *" load "*)
	daemon ''
	echo "load: default [http] limits (per_ip_connections 32," \
	    "max_connections 1000, timeout 30 s, max_inflight 256M)"
	run "alone: /healthz (from 127.0.0.2)" -b 127.0.0.2 -c 4 -d "$SECS" \
	    -u /healthz
	run "alone: /api/v1/series (from 127.0.0.2)" -b 127.0.0.2 -c 4 \
	    -d "$SECS" -u /api/v1/series
	fl=$((SECS * 3 + 10))
	"$LOAD" -m idle -c 2000 -d "$fl" 127.0.0.1 "$PORT" >"$T/flood" &
	fpid=$!
	"$LOAD" -m slow -c 1000 -b 127.0.0.3 -d "$fl" 127.0.0.1 "$PORT" \
	    >"$T/slow" &
	spid=$!
	sleep 3
	run "flooded: /healthz (from 127.0.0.2)" -b 127.0.0.2 -c 4 \
	    -d "$SECS" -u /healthz
	run "flooded: /api/v1/series (from 127.0.0.2)" -b 127.0.0.2 -c 4 \
	    -d "$SECS" -u /api/v1/series
	wait "$fpid" "$spid"
	printf '%-44s %s' "the flood (2000 from 127.0.0.1)" "$(cat "$T/flood")"
	echo
	printf '%-44s %s' "slowloris (1000 from 127.0.0.3)" "$(cat "$T/slow")"
	echo
	echo "daemon RSS after the flood: $(rss) (peak $(hwm))"

	# 60 MB kernel: a bzImage header, then bytes
	python3 -c 'import os,sys; b = bytearray(os.urandom(60 << 20)); b[0x202:0x206] = b"HdrS"; sys.stdout.buffer.write(b)' >"$T/kernel"
	rss0=$(rss)
	: >"$T/rss"
	( while :; do awk '/^VmRSS/ { print int($2 / 1024) }' \
	    "/proc/$KD_PID/status" >>"$T/rss" 2>/dev/null || exit 0;
	    sleep 0.2; done ) &
	mpid=$!
	i=0
	pids=
	while [ $i -lt 16 ]; do
		curl -s -o /dev/null -w '%{http_code}\n' --data-binary \
		    @"$T/kernel" -H "$OCTET" \
		    "http://127.0.0.1:$PORT/api/v1/kernels" \
		    >>"$T/up" &
		pids="$pids $!"
		i=$((i + 1))
	done
	for p in $pids; do wait "$p" 2>/dev/null || :; done
	echo "16 parallel 60 MB kernel uploads: $(sort "$T/up" | uniq -c |
	    awk '{ printf "%s%s x %s", sep, $1, $2; sep = ", " }')" \
	    "(503: over max_inflight); RSS before $rss0, max during" \
	    "$(sort -n "$T/rss" | tail -1) MB"
	kid=$(curl -s --data-binary @"$T/kernel" -H "$OCTET" \
	    "http://127.0.0.1:$PORT/api/v1/kernels" | jq -r .id)
	echo "a 60 MB kernel uploaded alone: id $kid; RSS peak so far $(hwm)"
	: >"$T/rss"
	i=0
	pids=
	while [ $i -lt 40 ]; do
		curl -s -o /dev/null --limit-rate 200k -H \
		    "Authorization: Bearer $TOKEN" \
		    "http://127.0.0.1:$PORT/api/v1/kernels/$kid/bzImage" &
		pids="$pids $!"
		i=$((i + 1))
	done
	sleep "$SECS"
	kill $pids 2>/dev/null || :
	for p in $pids; do wait "$p" 2>/dev/null || :; done
	echo "40 slow downloads of the 60 MB kernel (200 kB/s, $SECS s):" \
	    "RSS max during $(sort -n "$T/rss" | tail -1) MB"
	kill "$mpid" 2>/dev/null || :
	wait "$mpid" 2>/dev/null || :
	echo "daemon RSS at the end: $(rss) (peak $(hwm))"
;; esac
