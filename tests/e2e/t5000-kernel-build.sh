#!/bin/sh
# t5000 (heavy): the real kernel.  Imports Debian's linux-source-6.12 with
# `kperfci tree import` (shared with the other heavy tests through
# tests/kernel-lib.sh), starts kperfcid with a [tree "linux-6.12"] section,
# uploads the calibration series patches/noop.mbox and patches/lru-delay.mbox
# and waits for both to be built: base (the one full build of this CI run,
# shared with kernel_ref_bzimage) and patched (incremental).  Checks both
# bzImages exist with their sha256 recorded, the lru-delay kernel differs
# from the base, and a resubmission is a cache hit (same builds, no new
# build directory).
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/kernel-lib.sh"

command -v bwrap >/dev/null || skip_all "bubblewrap not installed"
[ -r "$KERNEL_TARBALL" ] || skip_all "$KERNEL_TARBALL missing"
chmod 755 "$T"	# builds run as an unprivileged user

REPO=$(kernel_ref_tree)
ok "reference tree imported" test -n "$REPO"
COMMIT=$(kernel_ref_commit)
grep -q "^base-commit: $COMMIT\$" "$SRC/patches/lru-delay.mbox" ||
    echo "# patches/*.mbox name another import than $COMMIT (another linux-source-6.12): their base-commit: is set to it here"
NOOP_MBOX=$(kernel_mbox_on_ref "$SRC/patches/noop.mbox")
LRU_MBOX=$(kernel_mbox_on_ref "$SRC/patches/lru-delay.mbox")
like "^base-commit: $COMMIT\$" "$LRU_MBOX" \
    "calibration series name the imported commit"
# The base build goes through kernel-lib (the same cache key the daemon
# uses), so one full build serves this test and the qemu tests.
REFDIR=$(kernel_ref_build_dir)
ok "reference kernel built" test -s "$REFDIR/bzImage"
CACHE=$(kernel_cache_dir)/builds

kd_config "[tree \"linux-6.12\"]\npath = $REPO\nbranch = master\nconfig = tinyconfig\nfragment = $SRC/etc/kconfig/perf.config\nfragment = $SRC/etc/kconfig/qemu.config\n[build]\ncache = $CACHE\njobs = ${KPERFCI_TEST_JOBS:-2}\ntimeout = 5400"
ok "daemon starts" kd_start

submit() {
	curl -s -o "$T/r.json" -X POST -H "Content-Type: application/mbox" \
	    --data-binary @"$1" "$KD_URL/api/v1/series"
	jq -r .id "$T/r.json"
}

NOOP=$(submit "$NOOP_MBOX")
LRU=$(submit "$LRU_MBOX")
ok "noop series built" kd_wait_series "$NOOP" 3600 built failed
ok "lru-delay series built" kd_wait_series "$LRU" 3600 built failed
curl -s "$KD_URL/api/v1/series/$NOOP" >"$T/noop.json"
curl -s "$KD_URL/api/v1/series/$LRU" >"$T/lru.json"
is "$(jq -r .state "$T/noop.json")" built "noop is built $(jq -r '.error // empty' "$T/noop.json")"
is "$(jq -r .state "$T/lru.json")" built "lru-delay is built $(jq -r '.error // empty' "$T/lru.json")"
is "$(jq -r .builds.base_choice "$T/lru.json")" base-commit "base from the base-commit: footer"
is "$(jq -r .builds.base_commit "$T/lru.json")" "$COMMIT" "base is the imported commit"
is "$(jq -r .builds.base.sha256 "$T/lru.json")" "$(cut -c1-64 "$REFDIR/done")" \
    "base build is the reference kernel (shared cache)"

for s in noop lru; do
	for side in base patched; do
		id=$(jq -r ".builds.$side.id" "$T/$s.json")
		curl -s -o "$T/$s-$side.bz" "$KD_URL/api/v1/builds/$id/bzImage"
		is "$(sha256sum <"$T/$s-$side.bz" | cut -d' ' -f1)" \
		    "$(jq -r ".builds.$side.sha256" "$T/$s.json")" \
		    "$s $side bzImage exists, sha256 recorded"
	done
done
ok "lru-delay kernel differs from the base" \
    test "$(jq -r .builds.patched.sha256 "$T/lru.json")" != \
    "$(jq -r .builds.base.sha256 "$T/lru.json")"
ok "lru-delay patched build is incremental" \
    test "$(jq -r .builds.patched.base_build "$T/lru.json")" = \
    "$(jq -r .builds.base.id "$T/lru.json")"
# Figures for the log (timings are for bench-build, not pass/fail).
echo "# (cache hits record the lookup time) base build $(jq -r .builds.base.seconds "$T/lru.json") s," \
    "lru-delay patched $(jq -r .builds.patched.seconds "$T/lru.json") s" \
    "($(jq -r .builds.patched.compiled "$T/lru.json") compiler steps)"

BEFORE=$(ls "$CACHE/b" | wc -l)
LRU2=$(submit "$LRU_MBOX")
ok "resubmitted lru-delay built" kd_wait_series "$LRU2" 120 built
curl -s "$KD_URL/api/v1/series/$LRU2" >"$T/lru2.json"
is "$(jq -r '[.builds.base.id, .builds.patched.id] | join(",")' "$T/lru2.json")" \
    "$(jq -r '[.builds.base.id, .builds.patched.id] | join(",")' "$T/lru.json")" \
    "resubmission uses the same builds"
is "$(ls "$CACHE/b" | wc -l)" "$BEFORE" "no new build directory"
is "$(jq -r .builds.patched_commit "$T/lru2.json")" \
    "$(jq -r .builds.patched_commit "$T/lru.json")" "same patched commit id"

kd_stop
test_done
