#!/bin/sh
# bench-load-http: the load phase of bench-http alone (a flood of idle and
# slowloris connections against /healthz and the JSON list, RSS under
# parallel large uploads and slow downloads).  See tests/bench/http.sh.
PHASES=load exec "$(dirname "$0")/http.sh"
