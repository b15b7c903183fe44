#!/bin/sh
# t6800-kexec-vm: the kexec backend end to end, on a machine that really
# reboots.  A qemu VM plays the bare-metal test machine: no -no-reboot, a
# virtio disk with a Debian bookworm userland running systemd
# (tests/vm-lib.sh: mmdebstrap once, cached), the reference kernel plus
# etc/kconfig/kexec-vm.config as its home kernel (qemu's -kernel: the
# "firmware" boots it after every reset), kexec-tools, and kperfci-agent
# with backend = kexec started by etc/systemd/kperfci-agent.service.  The
# daemon runs on the host's loopback (10.0.2.2 from the guest) with
# [agent "vm1"] power_cycle = tests/qmp-reset on the VM's QMP socket.
#
# Two jobs, queued at once, leased one after the other by the same
# machine, then a power cycle; six boots in all (four home, two kexec'd):
#   1. base kernel: kexec -l, systemctl kexec; systemd brings the agent
#      back up in the job kernel (its console carries the job's marker on
#      its command line: the kernel booted is the job's), the matrix runs
#      natively, the results go over the VM's network; systemctl reboot
#      back home; lease the next;
#   2. the base kernel with root=/dev/kperfci-missing: the root file system
#      does not mount, the kernel panics and (panic timeout -1) reboots:
#      back home the agent finds itself booting a job it never ran,
#      boot-failed, with the panic from the console log on the page;
#   3. the machine's power_cycle command, tests/qmp-reset (QMP
#      system_reset), resets the real VM: it boots home again and its agent
#      comes back.  Neither honest kexec reboot was power-cycled.  (The
#      daemon's side of a hang -- lease, power_margin, the cycle recorded,
#      the job boot-failed, the console kept -- is t4300's, with a fake
#      QMP socket: a real hang here cost 300 s of waiting.)
# Costs: see doc/agents.md, "A real 2-socket machine".
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"
. "$SRC/tests/kernel-lib.sh"
. "$SRC/tests/vm-lib.sh"

for c in qemu-system-x86_64 jq debugfs mke2fs mmdebstrap python3; do
	command -v $c >/dev/null || skip_all "$c missing"
done
[ -r "$KERNEL_TARBALL" ] || skip_all "linux-source-6.12 not installed"

T0=$(date +%s)
BASE=$(vm_kernel_build_dir) || { echo "Bail out! kexec-vm kernel build failed"; exit 1; }
vm_image >/dev/null || { echo "Bail out! VM image build failed"; exit 1; }
echo "# kernels and image ready in $(( $(date +%s) - T0 )) s"

# Lease 120 s, power margin 180 s: an honest kexec reboot (systemd's
# shutdown, the boot, systemd, the network, the agent) took 100-200 s
# under TCG on 2 loaded cores here, so a machine silent for 300 s has hung.
POWER="power_cycle = $SRC/tests/qmp-reset $T/qmp.sock\npower_margin = 180\npower_max_per_hour = 2\npower_timeout = 20"
kd_config "[agents]\nlease = 120\nmax_attempts = 1\n$(ka_section vm1)$POWER"
ok "daemon starts" kd_start

cat >"$T/matrix.conf" <<'M'
[defaults]
seconds = 1
iterations = 2
warmup = 0

[run "fault-free-anon"]
workload = fault-free
mode = anon
tasks = node
M
KB=$(kd_kernel_post "$BASE/bzImage" base | jq -r .id)
ok "the kernel uploaded" test "$KB" -ge 1
job() {	# job KERNEL [CMDLINE] -> prints the job id
	api_post /api/v1/jobs "$(jq -n --rawfile m "$T/matrix.conf" \
	    --argjson k "$1" --arg c "${2:-}" '{kernel:$k, matrix:$m, cmdline:$c}')" >/dev/null
	jq -r .id "$T/r.json"
}
J1=$(job "$KB")
J2=$(job "$KB" "root=/dev/kperfci-missing")
ok "two jobs queued" test -n "$J2"

# The machine: its agent.conf, its disk, its console server.
cat >"$T/agent.conf" <<A
[agent]
name = vm1
server = http://10.0.2.2:$KD_PORT
token = $(ka_token vm1)
state-dir = /var/lib/kperfci-agent
backend = kexec
load-bin = /usr/local/bin/kperfci-load
poll-seconds = 2
backoff-max = 5
heartbeat-seconds = 5
[kexec]
console-log = /var/lib/kperfci-console/serial.log
A
ok "disk image with the agent installed" vm_image_for_test "$T" \
    "$KPERFCI_BIN/kperfci-agent" "$KPERFCI_BIN/kperfci-load"
mkdir -p "$T/console"
: >"$T/console/serial.log"
# systemd's journal goes to the console too: the console server's log is
# the machine's whole story.
nice -n 5 qemu-system-x86_64 -accel tcg -machine pc -m 1536 \
    -smp 2,sockets=2,cores=1 \
    -object memory-backend-ram,id=m0,size=768M \
    -object memory-backend-ram,id=m1,size=768M \
    -numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
    -kernel "$BASE/bzImage" \
    -append "root=/dev/vda rw console=ttyS0,115200 net.ifnames=0 systemd.journald.forward_to_console=1 systemd.show_status=1" \
    -drive file="$T/disk.img",format=raw,if=virtio \
    -netdev user,id=n0 -device virtio-net-pci,netdev=n0 \
    -device virtio-rng-pci \
    -virtfs local,path="$T/console",mount_tag=console,security_model=none,readonly=on \
    -chardev file,id=ser0,path="$T/console/serial.log",append=on \
    -serial chardev:ser0 -display none -monitor none \
    -qmp unix:"$T/qmp.sock",server=on,wait=off \
    >"$T/qemu.log" 2>&1 &
QEMU_PID=$!
stop_vm() { kill "$QEMU_PID" 2>/dev/null; wait "$QEMU_PID" 2>/dev/null; return 0; }
at_exit stop_vm
show_console() { echo "# serial log, last lines:"; tail -25 "$T/console/serial.log" | sed 's/^/#   /'; }

T1=$(date +%s)
if ! wait_field "$KD_URL/api/v1/agents" '.agents[0].name' 300 vm1 >/dev/null; then
	echo "not ok - the VM's agent never registered"; show_console
	echo "Bail out! the VM did not come up"; exit 1
fi
ok "systemd started the agent in the home kernel" \
    grep -q "Started kperfci-agent.service" "$T/console/serial.log"
echo "# home kernel up, agent registered after $(( $(date +%s) - T1 )) s"
curl -s "$KD_URL/api/v1/agents" >"$T/agents.json"
is "$(jq -r '.agents[0] | "\(.backend) \(.sockets) \(.cpus)"' "$T/agents.json")" \
    "kexec 2 2" "registered as a kexec machine with 2 sockets, 2 CPUs"

# ---- 1: kexec'd and back --------------------------------------------------
ok "job $J1 (base) done" ka_wait_job "$J1" done failed boot-failed --secs 600
curl -s "$KD_URL/api/v1/jobs/$J1" >"$T/j1.json"
is "$(jq -r .state "$T/j1.json")" done "job $J1: done" || show_console
echo "# job $J1: $(( $(date +%s) - T1 )) s from the first boot"
for j in 1; do
	f=$T/j$j.json; id=$(jq -r .id "$f")
	ok "job $id: samples from the job kernel" \
	    test "$(jq '.samples | length' "$f")" -ge 2
	is "$(jq -r '.attempts_detail[0].topology.sockets' "$f")" 2 \
	    "job $id: measured natively on the VM's 2 sockets"
	curl -s "$KD_URL/api/v1/jobs/$id/console?attempt=1" >"$T/c$j.log"
	like "Command line: .*kperfci.job=$id\\.1" "$T/c$j.log" \
	    "job $id: its console is the job kernel's boot, with the marker"
	like "Started kperfci-agent.service" "$T/c$j.log" \
	    "job $id: systemd brought the agent back up in the job kernel"
done
like "kexec_core: Starting new kernel" "$T/console/serial.log" \
    "a real kexec (kexec_core: Starting new kernel)"

# ---- 2: the root file system does not mount; panic; reboot ------------
ok "job $J2 boot-failed" ka_wait_job "$J2" boot-failed done failed --secs 600
curl -s "$KD_URL/api/v1/jobs/$J2" >"$T/j2.json"
is "$(jq -r .state "$T/j2.json")" boot-failed "job $J2: boot-failed"
like "did not come up; the machine is back in .*Kernel panic - not syncing: VFS: Unable to mount root fs" \
    "$T/j2.json" "the reason: not up, back home, the panic line"
curl -s "$KD_URL/api/v1/jobs/$J2/console?attempt=1" >"$T/c2.log"
like "Kernel panic - not syncing: VFS: Unable to mount root fs" "$T/c2.log" \
    "the splat is the attempt's console"
curl -s "$KD_URL/jobs/$J2" >"$T/j2.html"
like "console log" "$T/j2.html" "and linked from the job's page"
echo "# job $J2: $(( $(date +%s) - T1 )) s from the first boot"

# ---- 3: the power_cycle command on the real VM --------------------------
is "$(curl -s "$KD_URL/api/v1/jobs/$J1" | jq -r '.power_cycles | length')$(curl -s "$KD_URL/api/v1/jobs/$J2" | jq -r '.power_cycles | length')" \
    00 "no honest kexec reboot was power-cycled (lease 120 s + margin 180 s)"
ok "the agent is home again" wait_field "$KD_URL/api/v1/agents" \
    '.agents[0].state' 300 idle
R=$(date +%s)
ok "tests/qmp-reset resets the real VM (exit 0)" \
    "$SRC/tests/qmp-reset" "$T/qmp.sock"
ok "it boots home again" sh -c "
	i=0; while [ \$i -lt 300 ]; do
		[ \$(grep -c '\] Linux version' '$T/console/serial.log') -ge 6 ] &&
		    exit 0
		sleep 1; i=\$((i+1)); done; exit 1"
ok "and its agent speaks again" wait_field "$KD_URL/api/v1/agents" \
    "(.agents[0].last_seen > $R + 20) and .agents[0].state != \"offline\"" \
    300 true

# The machine's story: six boots, two of them kexecs.
# (the kernel's own lines, "[    0.000000] Linux version", not the journal's)
is "$(grep -c '\] Linux version' "$T/console/serial.log")" 6 \
    "six boots: four home (power-on, after each job, after the reset), two kexec'd"
is "$(grep -c '\] kexec_core: Starting new kernel' "$T/console/serial.log")" 2 "two kexecs"
echo "# whole VM part: $(( $(date +%s) - T1 )) s"
ok "daemon stops" kd_stop
test_done
