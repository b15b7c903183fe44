#!/bin/sh
# tests/check.sh: what `make check` runs after `make all`, in this order:
#
#   1. the sanitizer pass: everything rebuilt with ASan and UBSan
#      (build/san), the unit tests and the light e2e tests (t0xxx-t4xxx:
#      the daemon on loopback, a real public-inbox, MTA, b4, Chromium) on
#      those binaries (each runs once: the sanitizers see what the plain
#      binaries would do, and more);
#   2. the heavy e2e tests (t5xxx+: kernel builds, qemu boots, the kexec
#      VM) on the normal binaries (`make unit` runs the units on them):
#      t7400 (two agents) alone, then the rest two at a time, the
#      longest first (qemu under TCG with -icount, whose guest clock
#      counts instructions, so a test's figures do not depend on what
#      runs beside it): the Makefile's E2E_POOL1 and E2E_POOL2.
#
# From the start, tests/fixtures/build.sh builds the heavy tests' fixtures
# (the reference kernel, also the kexec VM's, and the VM image: ~20 min of
# CPU on 2 cores from a fresh clone) at nice 19 in the background, where
# the tests leave a core idle; a test that needs one first waits on its
# flock.  Its log: build/fixtures.log.  Every step runs even after one
# failed; the exit status says whether all passed.
set -u
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
mkdir -p build
setsid nice -n 19 tests/fixtures/build.sh >build/fixtures.log 2>&1 &
fx=$!
stop_fixtures() { kill -TERM "-$fx" 2>/dev/null; wait "$fx" 2>/dev/null; }
trap 'stop_fixtures; exit 130' INT TERM
rc=0
P="prove --timer"	# each test's time in the log
$MAKE SANITIZE=address,undefined PROVE="$P" unit || rc=1
$MAKE SANITIZE=address,undefined PROVE="$P" e2e E2E="$E2E_LIGHT" || rc=1
$MAKE PROVE="$P -j2" e2e E2E="$E2E_POOL1" || rc=1
$MAKE PROVE="$P -j2" e2e E2E="$E2E_POOL2" || rc=1
# the fixtures are built by now (the heavy tests waited for them); one a
# skipped test never asked for is not waited for
if kill -0 "$fx" 2>/dev/null; then
	echo "# fixtures: still building after the tests; stopped"
	stop_fixtures
fi
wait "$fx" 2>/dev/null || :
sed 's/^/# /' build/fixtures.log
exit $rc
