#!/bin/sh
# t0010-layering: the layers of DESIGN.md hold in the source and in the
# binaries.  core/ (mail, series, lore URLs, stats, trees, builds, the
# sandbox, charts, claims...) includes nothing from daemon/, the CLI and
# the agent include nothing from daemon/, and the kperfci binary carries
# none of the daemon's store, HTTP or page code.  Inside daemon/, the
# three floors of DESIGN.md: faces, services, store (below).
. "$(dirname "$0")/../lib.sh"

cd "$SRC" || exit 1
bad=$(grep -ln '^#include "daemon/' core/*.c core/*.h lib/*.c lib/*.h || :)
is "$bad" "" "core/ and lib/ include no daemon/ header"
bad=$(grep -ln '^#include "daemon/' cli/*.c cli/*.h agents/*.c agents/*.h \
    agents/load/*.c agents/load/*.h || :)
is "$bad" "" "cli/ and agents/ include no daemon/ header"
bad=$(grep -ln '^#include <\(sqlite3\|microhttpd\)\.h>' core/*.c lib/*.c || :)
is "$bad" "" "core/ and lib/ use neither sqlite nor libmicrohttpd"

# daemon/'s floors (DESIGN.md): faces call services, services call the
# store and core/, nothing calls up and no face calls another face.
#   store     db.c, db_*.c (their SQL; headers db_<area>.h)
#   faces     api_*, ui, ui_*, stage_*, and the thread files track, watch,
#             lease (kperfcid.c, main, wires everything and is left out)
#   services  everything else (config, kernels, trees, sched, report*,
#             mail, pipeline, http*, html, routes, ...)
# An arrow is an #include "daemon/X.h" in daemon/A.c or daemon/A.h.
daemon_arrows() {
	for f in daemon/*.c daemon/*.h; do
		a=${f#daemon/}; a=${a%.[ch]}
		[ "$a" = kperfcid ] && continue
		sed -n 's|^#include "daemon/\([a-z_0-9]*\)\.h".*|\1|p' "$f" |
		    while read -r b; do
			[ "$a" != "$b" ] && echo "$a>$b"
		    done
	done | sort -u
}
floor() {
	case $1 in
	db|db_*) echo store ;;
	api_*|ui|ui_*|stage_*|track|watch|lease) echo face ;;
	*) echo service ;;
	esac
}
arrows=$(daemon_arrows)
bad_face= bad_up= bad_store=
for e in $arrows; do
	fa=$(floor "${e%>*}") fb=$(floor "${e#*>}")
	case $fa/$fb in
	face/face) bad_face="$bad_face $e" ;;
	service/face) bad_up="$bad_up $e" ;;
	store/service|store/face) bad_store="$bad_store $e" ;;
	esac
done
# What two faces share is a service's (tracks, watches, trees,
# kernels); what a service must call above it is a hook set at start-up
# (kperfcid.c) or a table declared in the service's header (routes.h,
# pipeline.h), as http.c calls the route handlers.
is "$(echo $bad_face)" "" "faces include no other face"
is "$(echo $bad_up)" "" "services include no face"
is "$(echo $bad_store)" "" "store files include only the store"
bad=$(grep -l '[ 	*]db_[a-z_]*(struct db \*' core/*.h || :)
is "$bad" "" "no core header declares the daemon's store"
bad=$(for f in daemon/db_*.c; do [ -f "${f%.c}.h" ] || echo "$f"; done)
is "$bad" "" "each db_<area>.c has its own db_<area>.h"

# Circles: the strongly connected parts of the arrows (a reaches b and b
# reaches a), one sorted line each.  Only http <-> http_cache may stay.
circles=$(echo "$arrows" | tr '>' ' ' | awk '
	{ e[$1, $2] = 1; n[$1] = 1; n[$2] = 1 }
	END {
		for (k in n) for (i in n) if ((i, k) in e)
			for (j in n) if ((k, j) in e) e[i, j] = 1
		for (a in n) {
			s = a
			for (b in n) if (a != b && (a, b) in e && (b, a) in e)
				s = s " " b
			if (s != a) print s
		}
	}' | while read -r line; do
		echo "$line" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//'
		echo
	done | sort -u | tr '\n' '|' | sed 's/|$//')
is "$circles" "http http_cache" "no circles in daemon/ but http <-> http_cache"

command -v nm >/dev/null || skip_all "nm not installed"
# symbols the CLI must not define: the store, the HTTP server, the pages
n=$(nm "$KPERFCI_BIN/kperfci" | grep -cE ' [TD] (db_|http_|html_page|ui_|api_|sched_)' || :)
is "$n" 0 "bin/kperfci links no daemon code"
n=$(nm "$KPERFCI_BIN/kperfci" | grep -cE ' [TD] (mbox_split|series_pick|stats_compare)$' || :)
is "$n" 3 "bin/kperfci links the core (mbox_split, series_pick, stats_compare)"
test_done
