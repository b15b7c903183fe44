#!/bin/sh
# t6500-suites-qemu: every suite in etc/suites runs its mechanism on the
# reference kernel (the shared 6.12 build of kernel-lib.sh), booted once in
# the qemu agent's emulated 2-socket, 2-node, 4-vCPU guest (TCG, icount)
# with tests/suites-lib.sh, without the daemon.
#
# Checked, per suite: the matrix exits 0 and every one of its runs emitted
# samples (the lock-profile runs their profile line), no error line.  Per
# mechanism: file-read ran on the ext2 file system mounted by the ext4
# driver on a zram disk (the kernel says so on the console; the workload
# itself checks the mount with statfs); the large-folio runs got folios of
# the size they asked for (thp_fault_share near 1 for 16 kB, 64 kB and PMD
# 2048 kB: the mTHP stats counted them); root-refault saw refaults
# (workingset_refault_file in /proc/vmstat grew over the memcg-flush
# suite, refaults_per_sec > 0).
#
# Heavy: one boot of about 8 minutes under TCG after the reference build
# (memcg-flush's 128 allocating memcgs are most of it).
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/kernel-lib.sh"
. "$SRC/tests/suites-lib.sh"

for c in qemu-system-x86_64 jq cpio gzip; do
	command -v $c >/dev/null || skip_all "$c not installed"
done
[ -x /bin/busybox ] || skip_all "busybox-static not installed"
[ -r "$KERNEL_TARBALL" ] || skip_all "linux-source-6.12 not installed"

SUITES="lru-lock list-lru large-folio memcg-flush"
BZ=$(kernel_ref_bzimage) || { echo "Bail out! reference build failed"; exit 1; }
ok "the guest runs the four suites in one boot" suites_boot "$BZ" "$T/ref" "" $SUITES
R=$T/ref.results

for s in $SUITES; do
	# the section of the results between the suite's markers
	sed -n "/^KPERFCI SUITE $s\$/,/^KPERFCI DONE $s /p" "$R" >"$T/$s.out"
	like "^KPERFCI DONE $s rc=0" "$T/$s.out" "$s: the matrix exits 0"
	# contention samples (lock=NAME in the params, from a contention
	# pass or the contention half of pass=both) exist only when
	# something waited, which few vCPUs make a matter of chance: they
	# are not counted, and a run that is only a contention pass is not
	# expected
	want=$(($(grep -c '^\[run ' "$SRC/etc/suites/$s.conf") -
	    $(grep -c '^pass = contention' "$SRC/etc/suites/$s.conf")))
	got=$(grep '^{' "$T/$s.out" | jq -rs '[.[] | select(.workload and .params) |
	    select(.params | test("(^|,)lock=") | not) |
	    .workload + " " + .params] | unique | length')
	is "$got" "$want" "$s: every run emitted samples ($want runs)"
	is "$(grep -c '"error"' "$T/$s.out")" 0 "$s: no error line"
done

# list-lru: a real block file system, not tmpfs
like 'EXT4-fs \(zram[0-9]+\): mounted filesystem' "$T/ref.console" \
    "file-read's files are on a zram disk mounted by the ext4 driver"
is "$(suites_mean "$R" file-read fs=ext2 wall_sec | grep -c '^[0-9]')" 1 \
    "file-read ran with fs=ext2"

# large-folio: the folio sizes asked for
for k in 16 64 2048; do
	share=$(suites_mean "$R" page-fault "thp=$k," thp_fault_share)
	ok "page_fault1 with ${k} kB folios got them (share $share)" \
	    awk -v s="$share" 'BEGIN { exit !(s + 0 > 0.9) }'
done

# memcg-flush: refaults in the root memcg
before=$(sed -n '/^KPERFCI SUITE memcg-flush$/,$p' "$R" | sed -n 's/^KPERFCI VMSTAT workingset_refault_file //p' | head -1)
after=$(sed -n '/^KPERFCI DONE memcg-flush /,$p' "$R" | sed -n 's/^KPERFCI VMSTAT workingset_refault_file //p' | head -1)
ok "workingset_refault_file grew over memcg-flush ($before -> $after)" \
    test "${after:-0}" -gt "${before:-0}"
rf=$(suites_mean "$R" root-refault room= refaults_per_sec)
ok "root-refault reports refaults/s ($rf)" \
    awk -v s="$rf" 'BEGIN { exit !(s + 0 > 0) }'
test_done
