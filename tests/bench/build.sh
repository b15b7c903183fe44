#!/bin/sh
# bench-build: kernel build figures (issue 3) on this machine, through the
# project's own build code (`kperfci build`: sandboxed, cached, incremental):
#   - the full base build of the reference qemu kernel (Debian 6.12,
#     tinyconfig + etc/kconfig/perf.config + qemu.config), from an empty
#     cache of its own;
#   - the incremental patched build of patches/lru-delay.mbox from it;
#   - their ratio (target: patched < 10% of full);
#   - a cache hit (the same patched build asked again).
# The reference tree comes from tests/kernel-lib.sh (imported if missing).
# KPERFCI_BENCH_JOBS: make -jN (default 2).
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
: "${KPERFCI_BIN:=$SRC/bin}"
. "$SRC/tests/kernel-lib.sh"
CACHE=$SRC/var/bench-build
JOBS=${KPERFCI_BENCH_JOBS:-2}
K=$KPERFCI_BIN/kperfci

REPO=$(kernel_ref_tree)
ids=$("$K" tree apply --tree "$REPO" --mbox "$SRC/patches/lru-delay.mbox" 2>/dev/null)
PATCHED=${ids% *}
BASE=${ids#* }
rm -rf "$CACHE"

field() {	# field NAME LINE
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

echo "== full base build ($BASE, -j$JOBS)"
out=$("$K" build --quiet --tree "$REPO" --commit "$BASE" --cache "$CACHE" \
    $(kernel_ref_config_args) --jobs "$JOBS")
full=$(field seconds "$out")
echo "full base build:        $full s"

echo "== incremental patched build (lru-delay, $PATCHED)"
out=$("$K" build --quiet --tree "$REPO" --commit "$PATCHED" --base "$BASE" \
    --cache "$CACHE" $(kernel_ref_config_args) --jobs "$JOBS" | tail -1)
patched=$(field seconds "$out")
dir=$(field dir "$out")
echo "patched build:          $patched s ($(grep -c '^  CC ' "$dir/build.log") files compiled)"
echo "patched / full:         $(echo "scale=2; 100 * $patched / $full" | bc) %"

out=$("$K" build --quiet --tree "$REPO" --commit "$PATCHED" --base "$BASE" \
    --cache "$CACHE" $(kernel_ref_config_args) --jobs "$JOBS" | tail -1)
echo "cache hit:              $(field seconds "$out") s (hit=$(field hit "$out"))"
rm -rf "$CACHE"
