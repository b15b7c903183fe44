# tests/kernel-lib.sh: helpers shared by every heavy test that needs the
# reference kernel (kernel builds, qemu boots, the A/B test).  Source it
# after tests/lib.sh (it uses $SRC and $KPERFCI_BIN).
#
#   kernel_cache_dir      prints the cache shared by all e2e tests of one CI
#                         run: $KPERFCI_TEST_CACHE, default $SRC/var/test-cache
#                         (created).  ONE full kernel build serves every test.
#   kernel_ref_tree       prints the path of the reference git tree, importing
#                         /usr/src/linux-source-6.12.tar.xz with
#                         `kperfci tree import` the first time (~1 min).
#   kernel_ref_commit     prints the imported commit id (the calibration
#                         patches' base-commit:).
#   kernel_mbox_on_ref MBOX  writes $T/NAME.mbox, MBOX with its base-commit:
#                         footer naming kernel_ref_commit, and prints its
#                         path.  patches/*.mbox name the import of the
#                         linux-source-6.12 they were written against;
#                         Debian's point releases change that commit, and a
#                         test of the base-commit: choice must not depend
#                         on which one this machine installed.
#   kernel_ref_config_args  prints the --config/--fragment arguments of the
#                         reference qemu kernel (tinyconfig + etc/kconfig/
#                         perf.config + qemu.config), one per line.
#   kernel_ref_bzimage    prints the path of the reference qemu kernel's
#                         bzImage, built through `kperfci build` (the project's
#                         own sandboxed, cached build code) the first time
#                         (~7 min on 2 cores); later calls are cache hits.
#   kernel_ref_build_dir  prints that build's directory (bzImage, System.map,
#                         config, build.log, done = sha256 of bzImage).
#   kernel_series_bzimage MBOX   applies the series in MBOX (e.g.
#                         $SRC/patches/lru-delay.mbox) to the reference tree
#                         with `kperfci tree apply` and prints the bzImage of
#                         the patched kernel, built incrementally from the
#                         reference build (seconds, after the first time).
#   kernel_series_build_dir MBOX  the same, printing the build directory.
#
# Each helper returns non-zero (with a message on stderr) on failure; the
# callers decide whether that is a failed test or a skip.  Concurrent callers
# are serialised with flock on $(kernel_cache_dir)/.lock.

KERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}

kernel_cache_dir() {
	d=${KPERFCI_TEST_CACHE:-$SRC/var/test-cache}
	mkdir -p "$d" || return 1
	# Builds run as uid 65534: a clone under a private directory (such
	# as /root) is out of its reach, so the cache moves somewhere it can
	# reach, still one per source tree.
	if [ -z "${KPERFCI_TEST_CACHE:-}" ] &&
	    ! setpriv --reuid=65534 --regid=65534 --clear-groups \
	    test -x "$d" 2>/dev/null; then
		d=/var/cache/kperfci-test/$(printf %s "$SRC" | sha256sum | cut -c1-12)
		mkdir -p "$d" && chmod 755 /var/cache/kperfci-test "$d" ||
		    return 1
	fi
	(cd "$d" && pwd)
}

_kernel_locked() {
	(
		flock 9
		"$@"
	) 9>"$(kernel_cache_dir)/.lock"
}

# _kernel_locked_on NAME CMD...: CMD under the cache's lock NAME, for a
# fixture that needs neither the reference tree's lock nor the others'
# (the VM image: tests/fixtures/build.sh builds it
# in the background while the tests use the reference tree).
_kernel_locked_on() {
	n=$1; shift
	(
		flock 9
		"$@"
	) 9>"$(kernel_cache_dir)/.lock-$n"
}

_kernel_import() {
	repo=$(kernel_cache_dir)/linux-6.12
	if ! git -C "$repo" rev-parse -q --verify master >/dev/null 2>&1; then
		[ -r "$KERNEL_TARBALL" ] || {
			echo "kernel-lib: $KERNEL_TARBALL missing (package linux-source-6.12)" >&2
			return 1
		}
		rm -rf "$repo"
		"$KPERFCI_BIN/kperfci" tree import --tarball "$KERNEL_TARBALL" \
		    --name linux-6.12 --dir "$repo" >&2 || return 1
	fi
	echo "$repo"
}

kernel_ref_tree() {
	_kernel_locked _kernel_import
}

kernel_ref_commit() {
	repo=$(kernel_ref_tree) || return 1
	git -C "$repo" rev-parse master
}

kernel_mbox_on_ref() {
	c=$(kernel_ref_commit) || return 1
	out=$T/$(basename "$1")
	sed "s/^base-commit: [0-9a-f]*\$/base-commit: $c/" "$1" >"$out" &&
	    echo "$out"
}

kernel_ref_config_args() {
	printf '%s\n' --config tinyconfig \
	    --fragment "$SRC/etc/kconfig/perf.config" \
	    --fragment "$SRC/etc/kconfig/qemu.config"
}

_kernel_build() {
	repo=$(_kernel_import) || return 1
	out=$("$KPERFCI_BIN/kperfci" build --quiet --tree "$repo" \
	    --commit master --cache "$(kernel_cache_dir)/builds" \
	    $(kernel_ref_config_args) --jobs "${KPERFCI_TEST_JOBS:-2}") || return 1
	dir=${out##* dir=}
	[ -f "$dir/bzImage" ] || { echo "kernel-lib: no bzImage in $dir" >&2; return 1; }
	echo "$dir"
}

kernel_ref_build_dir() {
	_kernel_locked _kernel_build
}

kernel_ref_bzimage() {
	dir=$(kernel_ref_build_dir) || return 1
	echo "$dir/bzImage"
}

_kernel_series_build() {
	repo=$(_kernel_import) || return 1
	_kernel_build >/dev/null || return 1
	ids=$("$KPERFCI_BIN/kperfci" tree apply --tree "$repo" --mbox "$1" \
	    2>/dev/null) || {
		echo "kernel-lib: $1 does not apply to $repo" >&2
		return 1
	}
	out=$("$KPERFCI_BIN/kperfci" build --quiet --tree "$repo" \
	    --commit "${ids% *}" --base "${ids#* }" \
	    --cache "$(kernel_cache_dir)/builds" $(kernel_ref_config_args) \
	    --jobs "${KPERFCI_TEST_JOBS:-2}") || return 1
	out=$(echo "$out" | tail -1)
	dir=${out##* dir=}
	[ -f "$dir/bzImage" ] || { echo "kernel-lib: no bzImage in $dir" >&2; return 1; }
	echo "$dir"
}

kernel_series_build_dir() {
	_kernel_locked _kernel_series_build "$1"
}

kernel_series_bzimage() {
	dir=$(kernel_series_build_dir "$1") || return 1
	echo "$dir/bzImage"
}
