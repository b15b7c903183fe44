#!/bin/sh
# t6800-kexec-vm: the kexec backend end to end, on a machine that really
# reboots.  A qemu VM plays the bare-metal test machine: no -no-reboot, a
# virtio disk with a Debian bookworm userland running systemd
# (tests/vm-lib.sh: mmdebstrap once, cached), the reference kernel (whose
# qemu.config carries what systemd needs) as its home kernel (qemu's
# -kernel: the "firmware" boots it after every reset), kexec-tools, and kperfci-agent
# with backend = kexec started by etc/systemd/kperfci-agent.service.  The
# daemon runs on the host's loopback (10.0.2.2 from the guest) with
# [agent "vm1"] power_cycle = tests/qmp-reset on the VM's QMP socket.
#
# Four jobs, queued at once, leased one after the other by the same
# machine; nine boots in all (five home, four kexec'd):
#   1. base kernel: kexec -l, systemctl kexec; systemd brings the agent
#      back up in the job kernel, the matrix runs natively, the results go
#      over the VM's network; systemctl reboot back home; lease the next;
#   2. the same kernel with patches/lru-delay.mbox: the same, done;
#   3. the base kernel with root=/dev/kperfci-missing: the root file system
#      does not mount, the kernel panics and (panic timeout -1) reboots:
#      back home the agent finds itself booting a job it never ran,
#      boot-failed, with the panic from the console log on the page;
#   4. the same with panic=0: the kernel panics and hangs, never
#      rebooting.  The lease runs out, power_margin later the daemon runs
#      qmp-reset (QMP system_reset), the job is boot-failed with the cycle
#      on its page; back home the agent brings the hung kernel's console.
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
PATCHED=$(kernel_series_build_dir "$SRC/patches/lru-delay.mbox") ||
    { echo "Bail out! lru-delay kernel build failed"; exit 1; }
vm_image >/dev/null || { echo "Bail out! VM image build failed"; exit 1; }
echo "# kernels and image ready in $(( $(date +%s) - T0 )) s"

# Lease 150 s, power margin 210 s: an honest kexec reboot (systemd's
# shutdown, the boot, systemd, the network, the agent) took 100-200 s
# under TCG on 2 loaded cores here, and over 300 s beside t7400's two
# agents (make check never runs them together now), so a machine silent for 360 s
# has hung.
POWER="power_cycle = $SRC/tests/qmp-reset $T/qmp.sock\npower_margin = 210\npower_max_per_hour = 2\npower_timeout = 20"
kd_config "[agents]\nlease = 150\nmax_attempts = 1\n$(ka_section vm1)$POWER"
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
KP=$(kd_kernel_post "$PATCHED/bzImage" lru-delay | jq -r .id)
ok "base and patched kernels uploaded" test "$KB" -ge 1 -a "$KP" -gt "$KB"
job() {	# job KERNEL [CMDLINE] -> prints the job id
	api_post /api/v1/jobs "$(jq -n --rawfile m "$T/matrix.conf" \
	    --argjson k "$1" --arg c "${2:-}" '{kernel:$k, matrix:$m, cmdline:$c}')" >/dev/null
	jq -r .id "$T/r.json"
}
J1=$(job "$KB")
J2=$(job "$KP")
J3=$(job "$KB" "root=/dev/kperfci-missing")
J4=$(job "$KB" "root=/dev/kperfci-missing panic=0")
ok "four jobs queued" test -n "$J4"

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
# The machine's pstore: 1 MiB of RAM the e820 map is told to reserve
# (memmap=), low, away from where kexec-tools puts its segments (the top);
# a reset keeps it, so what a dying kernel dumped there is read back home.
# The job kernels inherit it with the rest of the home command line.
RAMOOPS='memmap=1M$0x20000000 ramoops.mem_address=0x20000000 ramoops.mem_size=0x100000 ramoops.record_size=0x20000 ramoops.console_size=0x20000'
# systemd's journal goes to the console too: the console server's log is
# the machine's whole story.
nice -n 5 qemu-system-x86_64 -accel tcg -machine pc -m 1536 \
    -smp 2,sockets=2,cores=1 \
    -object memory-backend-ram,id=m0,size=768M \
    -object memory-backend-ram,id=m1,size=768M \
    -numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
    -kernel "$BASE/bzImage" \
    -append "root=/dev/vda rw console=ttyS0,115200 net.ifnames=0 systemd.journald.forward_to_console=1 systemd.show_status=1 $RAMOOPS" \
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

# ---- 1, 2: base and patched, kexec'd and back ---------------------------
ok "job $J1 (base) done" ka_wait_job "$J1" done failed boot-failed --secs 600
curl -s "$KD_URL/api/v1/jobs/$J1" >"$T/j1.json"
is "$(jq -r .state "$T/j1.json")" done "job $J1: done" || show_console
echo "# job $J1: $(( $(date +%s) - T1 )) s from the first boot"
ok "job $J2 (patched) done" ka_wait_job "$J2" done failed boot-failed --secs 600
curl -s "$KD_URL/api/v1/jobs/$J2" >"$T/j2.json"
is "$(jq -r .state "$T/j2.json")" done "job $J2: done" || show_console
echo "# job $J2: $(( $(date +%s) - T1 )) s from the first boot"
for j in 1 2; do
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

# ---- 3: the root file system does not mount; panic; reboot ------------
ok "job $J3 boot-failed" ka_wait_job "$J3" boot-failed done failed --secs 600
curl -s "$KD_URL/api/v1/jobs/$J3" >"$T/j3.json"
is "$(jq -r .state "$T/j3.json")" boot-failed "job $J3: boot-failed"
like "did not come up; the machine is back in .*Kernel panic - not syncing: VFS: Unable to mount root fs" \
    "$T/j3.json" "the reason: not up, back home, the panic line"
curl -s "$KD_URL/api/v1/jobs/$J3/console?attempt=1" >"$T/c3.log"
like "Kernel panic - not syncing: VFS: Unable to mount root fs" "$T/c3.log" \
    "the splat is the attempt's console"
like "==> pstore dmesg-ramoops-[0-9]+ <==" "$T/c3.log" \
    "and the oops the dying kernel left in pstore (ramoops), read back home"
curl -s "$KD_URL/jobs/$J3" >"$T/j3.html"
like "console log" "$T/j3.html" "and linked from the job's page"
echo "# job $J3: $(( $(date +%s) - T1 )) s from the first boot"

is "$(for j in $J1 $J2 $J3; do curl -s "$KD_URL/api/v1/jobs/$j" | jq -r '.power_cycles | length'; done | tr -d '\n')" \
    000 "no honest kexec reboot was power-cycled"

# ---- 4: panics and hangs; power-cycled -----------------------------------
ok "job $J4 boot-failed after lease + margin" ka_wait_job "$J4" boot-failed done failed --secs 600
curl -s "$KD_URL/api/v1/jobs/$J4" >"$T/j4.json"
like "agent vm1 missed its lease by [0-9]+ s .*power-cycled with .$SRC/tests/qmp-reset $T/qmp.sock. \\(exit 0\\)" \
    "$T/j4.json" "the reason: power-cycled through QMP"
is "$(jq -r '.power_cycles | length' "$T/j4.json")" 1 "one power cycle recorded"
curl -s "$KD_URL/jobs/$J4" >"$T/j4.html"
like "<h2>Power cycles</h2>" "$T/j4.html" "on the job's page"
ok "back home the agent brings the hung kernel's console" sh -c "
	i=0; while [ \$i -lt 300 ]; do
		curl -fs '$KD_URL/api/v1/jobs/$J4/console?attempt=1' >'$T/c4.log' && exit 0
		sleep 1; i=\$((i+1)); done; exit 1"
like "Kernel panic - not syncing: VFS: Unable to mount root fs" "$T/c4.log" \
    "with its panic"
is "$(jq -r .state "$T/j4.json")" boot-failed "job $J4 stays boot-failed"
echo "# job $J4: $(( $(date +%s) - T1 )) s from the first boot"

# The machine's story: nine boots, four of them kexecs.
# (the kernel's own lines, "[    0.000000] Linux version", not the journal's)
is "$(grep -c '\] Linux version' "$T/console/serial.log")" 9 \
    "nine boots: five home (power-on, after each job), four kexec'd"
is "$(grep -c '\] kexec_core: Starting new kernel' "$T/console/serial.log")" 4 "four kexecs"
ok "the daemon logged the power cycle" grep -q "job $J4: power cycle of vm1: exit 0" "$T/kperfcid.log"
echo "# whole VM part: $(( $(date +%s) - T1 )) s"
ok "daemon stops" kd_stop
test_done
