#!/bin/sh
# t0010-layering: the layers of DESIGN.md hold in the source and in the
# binaries.  core/ (mail, series, lore URLs, stats, trees, builds, the
# sandbox, charts, claims...) includes nothing from daemon/, the CLI and
# the agent include nothing from daemon/, and the kperfci binary carries
# none of the daemon's store, HTTP or page code.
. "$(dirname "$0")/../lib.sh"

cd "$SRC" || exit 1
bad=$(grep -ln '^#include "daemon/' core/*.c core/*.h lib/*.c lib/*.h || :)
is "$bad" "" "core/ and lib/ include no daemon/ header"
bad=$(grep -ln '^#include "daemon/' cli/*.c cli/*.h agents/*.c agents/*.h \
    agents/load/*.c agents/load/*.h || :)
is "$bad" "" "cli/ and agents/ include no daemon/ header"
bad=$(grep -ln '^#include <\(sqlite3\|microhttpd\)\.h>' core/*.c lib/*.c || :)
is "$bad" "" "core/ and lib/ use neither sqlite nor libmicrohttpd"

command -v nm >/dev/null || skip_all "nm not installed"
# symbols the CLI must not define: the store, the HTTP server, the pages
n=$(nm "$KPERFCI_BIN/kperfci" | grep -cE ' [TD] (db_|http_|html_page|ui_|api_|sched_)' || :)
is "$n" 0 "bin/kperfci links no daemon code"
n=$(nm "$KPERFCI_BIN/kperfci" | grep -cE ' [TD] (mbox_split|series_pick|stats_compare)$' || :)
is "$n" 3 "bin/kperfci links the core (mbox_split, series_pick, stats_compare)"
test_done
