# tests/suites-lib.sh: boots a kernel in qemu (TCG, the qemu agent's
# emulated 2-socket, 2-node, 4-vCPU machine with 1 GiB per node) with an
# initramfs of busybox, kperfci-load and etc/suites, and runs suites in it
# without the daemon: for the suites e2e test and the calibration bench.
# Source after tests/lib.sh.
#
#   suites_boot BZIMAGE OUT APPEND SUITE...
#       runs each suite's matrix in order in one boot.  OUT.results: the
#       samples (JSON lines), with marker lines "KPERFCI SUITE name" before
#       each suite, "KPERFCI VMSTAT k v" lines of /proc/vmstat's
#       workingset_refault_file before and after it, and "KPERFCI DONE
#       name rc=N"; OUT.console: the kernel console.  APPEND is added to the
#       kernel command line (a calibration's tunable, or "").  Returns
#       non-zero when qemu fails or times out (SUITES_TIMEOUT, 1200 s).
#   suites_mean RESULTS WORKLOAD PARAMS METRIC   the mean of METRIC over
#       the samples of WORKLOAD whose params contain PARAMS ("none" when
#       there is none).

SUITES_ICOUNT=${SUITES_ICOUNT:-shift=3,sleep=off}

suites_initramfs() {
	d=$1; shift
	rm -rf "$d" && mkdir -p "$d/bin" "$d/dev" "$d/proc" "$d/sys" "$d/tmp" \
	    "$d/etc/suites" || return 1
	cp /bin/busybox "$d/bin/busybox" && ln -s busybox "$d/bin/sh" &&
	    cp "$KPERFCI_BIN/kperfci-load" "$d/bin/" || return 1
	for s in "$@"; do
		cp "$SRC/etc/suites/$s.conf" "$d/etc/suites/" || return 1
	done
	{
		cat <<-'INIT'
		#!/bin/busybox sh
		/bin/busybox --install -s /bin
		export PATH=/bin
		mount -t proc proc /proc
		mount -t sysfs sysfs /sys
		mount -t devtmpfs devtmpfs /dev
		mount -t tmpfs tmpfs /tmp
		mount -t cgroup2 cgroup2 /sys/fs/cgroup
		stty -F /dev/ttyS1 raw -echo 2>/dev/null
		exec 3>/dev/ttyS1
		vm() { echo "KPERFCI VMSTAT $(grep '^workingset_refault_file ' /proc/vmstat)" >&3; }
		INIT
		for s in "$@"; do
			printf 'echo "KPERFCI SUITE %s" >&3\nvm\n' "$s"
			printf '/bin/kperfci-load --matrix /etc/suites/%s.conf >&3\n' "$s"
			printf 'echo "KPERFCI DONE %s rc=$?" >&3\nvm\n' "$s"
		done
		printf 'sync\npoweroff -f\n'
	} >"$d/init"
	chmod 755 "$d/init"
	(cd "$d" && find . | cpio -o -H newc --quiet | gzip -1) >"$d.cpio.gz"
}

suites_boot() {
	bz=$1 out=$2 app=$3; shift 3
	suites_initramfs "$out.root" "$@" || return 1
	rm -f "$out.results" "$out.console"
	timeout "${SUITES_TIMEOUT:-1200}" qemu-system-x86_64 -nodefaults \
	    -display none -no-reboot -accel tcg -icount "$SUITES_ICOUNT" \
	    -m 2048M -smp 4,sockets=2,cores=2,threads=1 \
	    -object memory-backend-ram,id=m0,size=1024M \
	    -numa node,nodeid=0,cpus=0-1,memdev=m0 \
	    -object memory-backend-ram,id=m1,size=1024M \
	    -numa node,nodeid=1,cpus=2-3,memdev=m1 \
	    -device virtio-rng-pci -kernel "$bz" -initrd "$out.root.cpio.gz" \
	    -append "console=ttyS0 panic=-1 $app" \
	    -serial "file:$out.console" -serial "file:$out.results" \
	    >"$out.qemu" 2>&1
}

suites_mean() {
	grep '^{' "$1" | jq -rs --arg w "$2" --arg p "$3" --arg m "$4" '
	    [.[] | select(.workload == $w and .metric == $m and
	        (.params | contains($p))) | .value] |
	    if length == 0 then "none" else (add / length | tostring) end'
}
