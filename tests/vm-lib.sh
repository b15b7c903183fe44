# tests/vm-lib.sh: a qemu VM that plays a bare-metal test machine for the
# kexec backend (t6800-kexec-vm).  Source after tests/lib.sh and
# tests/kernel-lib.sh.
#
#   vm_kernel_build_dir   the reference kernel's build directory
#                         (kernel-lib.sh): qemu.config carries what the
#                         Debian userland needs (virtio disk and network,
#                         ext4, 9p, pstore, what systemd needs), so one
#                         build is both the VM's home kernel and the base
#                         job kernel, and the emulated agents' kernel too.
#   vm_image              prints the path of the cached Debian bookworm disk
#                         image (raw ext4, no partition table), built the
#                         first time by mmdebstrap from the Debian archive:
#                         systemd, systemd-networkd, kexec-tools and the
#                         libraries kperfci-agent links (libcurl4,
#                         libjansson4).  Costs: below.
#   vm_image_for_test DIR BIN... copies the image to DIR/disk.img (sparse)
#                         and installs into it, with debugfs (no mount, no
#                         loop device): the given binaries in /usr/local/bin,
#                         DIR/agent.conf as /etc/kperfci/agent.conf and the
#                         project's etc/systemd/kperfci-agent.service,
#                         enabled.
#
# Everything cached lives in $(kernel_cache_dir) and is built under a
# flock there (the image under its own, so that tests/fixtures/build.sh
# can build it while other tests hold the reference tree's), so concurrent
# tests build it once.

# Costs, measured on the shared 2-core machine (apt over the network):
# mmdebstrap and mke2fs 195-309 s once; the image is a 1 GiB sparse file
# with 285 MB used; each run copies it (sparse) and writes five files with
# debugfs, seconds.
VM_IMAGE_SIZE=${VM_IMAGE_SIZE:-1G}
VM_SUITE=${VM_SUITE:-bookworm}
VM_MIRROR=${VM_MIRROR:-http://deb.debian.org/debian}
# Bump when the package list or the set-up below changes: a new name means
# a new image.
VM_IMAGE_NAME=vm-bookworm-kexec-2.img
VM_PACKAGES=systemd,systemd-sysv,udev,kexec-tools,libcurl4,libjansson4,ca-certificates,procps,iproute2

vm_kernel_build_dir() {
	kernel_ref_build_dir
}

# The set-up of the image, run by mmdebstrap inside the new root ($1).
_vm_customize() {
	r=$1
	echo kperfci-vm >"$r/etc/hostname"
	printf '/dev/vda / ext4 rw,errors=remount-ro 0 0\n' >"$r/etc/fstab"
	# The console log of the machine, as a conserver or serial-over-LAN
	# log would be: qemu's serial log on the host, shared read-only.
	printf 'console /var/lib/kperfci-console 9p trans=virtio,version=9p2000.L,ro,nofail,x-systemd.device-timeout=5s 0 0\n' \
	    >>"$r/etc/fstab"
	mkdir -p "$r/var/lib/kperfci-console" "$r/etc/kperfci" \
	    "$r/etc/systemd/network"
	# qemu's user network: the host is 10.0.2.2.  Static, so that
	# network-online.target needs no DHCP round.
	cat >"$r/etc/systemd/network/10-eth0.network" <<-'NET'
	[Match]
	Name=eth0
	[Network]
	Address=10.0.2.15/24
	Gateway=10.0.2.2
	LinkLocalAddressing=no
	NET
	chroot "$r" systemctl enable systemd-networkd.service \
	    systemd-networkd-wait-online.service >/dev/null 2>&1
	# Nothing that reads the clock or the network on a timer, and no
	# pstore archiver: the agent reads /sys/fs/pstore itself.
	chroot "$r" systemctl mask systemd-pstore.service apt-daily.timer \
	    apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
	    systemd-timesyncd.service getty@tty1.service >/dev/null 2>&1
	# A console login for whoever debugs the VM (KEEP=1).
	chroot "$r" passwd -d root >/dev/null
	return 0
}

_vm_image_build() {
	d=$(kernel_cache_dir) || return 1
	img=$d/$VM_IMAGE_NAME
	if [ ! -f "$img" ]; then
		command -v mmdebstrap >/dev/null || {
			echo "vm-lib: mmdebstrap missing (tools/install-deps)" >&2
			return 1
		}
		rm -rf "$d/vm-root" "$img.new"
		start=$(date +%s)
		# --customize-hook runs a shell command: ours is this file's
		# function, so the hook sources the library again.
		nice mmdebstrap --variant=minbase --include="$VM_PACKAGES" \
		    --customize-hook=". '$SRC/tests/vm-lib.sh'; _vm_customize \"\$1\"" \
		    "$VM_SUITE" "$d/vm-root" "$VM_MIRROR" >"$d/vm-image.log" 2>&1 || {
			echo "vm-lib: mmdebstrap failed (tail of $d/vm-image.log):" >&2
			tail -5 "$d/vm-image.log" >&2
			return 1
		}
		truncate -s "$VM_IMAGE_SIZE" "$img.new" &&
		mke2fs -q -t ext4 -L kperfci-vm -d "$d/vm-root" "$img.new" ||
		    return 1
		rm -rf "$d/vm-root"
		mv "$img.new" "$img"
		echo "vm-lib: $img built in $(( $(date +%s) - start )) s," \
		    "$(du -m "$img" | cut -f1) MB used" >>"$d/vm-image.log"
	fi
	echo "$img"
}

vm_image() {
	_kernel_locked_on vm-image _vm_image_build
}

# vm_image_for_test DIR BIN...: DIR/disk.img with the agent installed.
vm_image_for_test() {
	dir=$1; shift
	img=$(vm_image) || return 1
	cp --sparse=always "$img" "$dir/disk.img" || return 1
	mkdir -p "$dir/inst"
	{
		echo "cd /usr/local/bin"
		for b in "$@"; do
			cp "$b" "$dir/inst/" && chmod 755 "$dir/inst/${b##*/}"
			echo "write $dir/inst/${b##*/} ${b##*/}"
		done
		echo "cd /etc/kperfci"
		echo "write $dir/agent.conf agent.conf"
		echo "cd /etc/systemd/system"
		echo "write $SRC/etc/systemd/kperfci-agent.service kperfci-agent.service"
		# e2scrub_reap looks for LVM snapshots for two minutes of TCG
		# on every boot: masked, as the image's timers are
		echo "cd /etc/systemd/system"
		echo "symlink e2scrub_reap.service /dev/null"
		echo "cd /etc/systemd/system/multi-user.target.wants"
		echo "symlink kperfci-agent.service /etc/systemd/system/kperfci-agent.service"
	} >"$dir/debugfs.cmds"
	debugfs -w -f "$dir/debugfs.cmds" "$dir/disk.img" >"$dir/debugfs.log" 2>&1 ||
	    { cat "$dir/debugfs.log" >&2; return 1; }
	# debugfs reports a failed write on stdout and still exits 0
	if grep -Ei "error|could not|not found|failed" "$dir/debugfs.log" >&2; then
		return 1
	fi
	return 0
}
