#!/bin/sh
# t7300-exercised: was the changed code exercised?  (issue 8)  The real
# daemon, a real lore (public-inbox), the 6.12 reference kernel and one
# qemu agent (TCG with icount), as in t7000 but small: a one-run matrix and
# 2 boots per side, no second look.
#
#   lru-delay      changes folio_batch_move_lru (mm/swap.c): its suite is
#                  lru-lock ("mm/swap.c -> lru-lock"), the function is
#                  probed and the counting pass after each boot's measured
#                  run finds calls on the patched side: "exercised".
#   mincore-delay  changes the mincore system call, which no workload
#                  makes: 0 calls on both sides, so the comparison is
#                  "not exercised" -- headline, every row, JSON, report.txt
#                  and page -- and never "no change".
# Also checked: the environment every report carries (THP, mTHP, command
# line, accelerator, kernel config link, fail:runs) and the emulated mark.
#
# Heavy: after the shared reference build, two incremental builds and 8
# boots of about 35 s under TCG: about 6 minutes.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"
. "$SRC/tests/pi-lib.sh"
. "$SRC/tests/kernel-lib.sh"

for c in qemu-system-x86_64 public-inbox-httpd bwrap jq; do
	command -v $c >/dev/null || skip_all "$c not installed"
done
[ -x /bin/busybox ] || skip_all "busybox-static not installed"
[ -r "$KERNEL_TARBALL" ] || skip_all "linux-source-6.12 not installed"

BOOTS=2

REPO=$(kernel_ref_tree) || { echo "Bail out! no reference tree"; exit 1; }
BZ=$(kernel_ref_bzimage) || { echo "Bail out! reference build failed"; exit 1; }

ok "public-inbox starts" pi_start test
ok "lru-delay series imported" pi_import test "$SRC/patches/lru-delay.mbox"
ok "mincore-delay series imported" pi_import test "$SRC/patches/mincore-delay.mbox"
LRU_URL="${PI_URL}test/kperfci-calibration-lru-delay-0@kperfci.invalid/"
MIN_URL="${PI_URL}test/kperfci-calibration-mincore-delay-0@kperfci.invalid/"

# One run, so that a boot takes seconds: the operator's [sched] matrix
# replaces the suites (they are still listed, with why).
cat >"$T/matrix.conf" <<'EOF'
[defaults]
seconds = 1
iterations = 2
warmup = 1

[run "fault-free-shmem-node"]
workload = fault-free
mode = shmem
tasks = node
EOF

kd_config "[lore]\nallow = $PI_URL\n[tree \"linux-6.12\"]\npath = $REPO\nbranch = master\nconfig = tinyconfig\nfragment = $SRC/etc/kconfig/perf.config\nfragment = $SRC/etc/kconfig/qemu.config\n[build]\ncache = $(kernel_cache_dir)/builds\njobs = ${KPERFCI_TEST_JOBS:-2}\ntimeout = 3600\n[agents]\nlease = 300\n[sched]\nboots = $BOOTS\nboot_step = $BOOTS\nmax_boots = $BOOTS\nmatrix = $T/matrix.conf\n$(ka_section q1)"
ok "kperfcid starts" kd_start
ka_config q1 "backend = qemu\n[qemu]\nicount = shift=3,sleep=off\naccel = tcg\nsockets = 2\ncores-per-socket = 2\nmemory-per-node = 512\nboot-timeout = 180\njob-timeout = 900"
ka_start q1
ok "the agent registers" ka_wait_log q1 "registered|class" 60

export KPERFCI_SERVER=$KD_URL
submit_wait() {
	timeout 1800 "$KPERFCI_BIN/kperfci" submit "$2" --wait \
	    >"$T/$1.wait" 2>"$T/$1.wait.err"
	echo $? >"$T/$1.rc"
}
submit_wait lru "$LRU_URL" &
W1=$!
sleep 2
submit_wait min "$MIN_URL" &
W2=$!
wait $W1
wait $W2
is "$(cat "$T/lru.rc")" 0 "lru-delay: submit --wait finished"
is "$(cat "$T/min.rc")" 0 "mincore-delay: submit --wait finished"
LRU_ID=$(head -1 "$T/lru.wait")
MIN_ID=$(head -1 "$T/min.wait")
curl -fs "$KD_URL/api/v1/series/$LRU_ID/comparison" >"$T/lru.json"
curl -fs "$KD_URL/api/v1/series/$MIN_ID/comparison" >"$T/min.json"
echo "# lru-delay changes: $(jq -c .changes "$T/lru.json")"
echo "# mincore-delay changes: $(jq -c .changes "$T/min.json")"
echo "# environment: $(jq -c .environment "$T/min.json")"

# ---- lru-delay: its function ran ----------------------------------------
is "$(jq -r '.changes.suites | map(.suite + ":" + (.why | join(","))) | join(";")' "$T/lru.json")" \
    "lru-lock:mm/swap.c" "lru-delay: mm/swap.c -> lru-lock"
is "$(jq -r '.changes.functions | map(.name + "=" + .status) | join(",")' "$T/lru.json")" \
    "folio_batch_move_lru=probed" \
    "lru-delay: the one changed function, probed (static, in System.map)"
ok "lru-delay: folio_batch_move_lru called on the patched side in every boot" jq -e \
    ".changes.functions[0].patched.hits > 0 and .changes.functions[0].patched.boots_counted == $BOOTS" \
    "$T/lru.json"
ok "lru-delay: ... and on the base side" jq -e \
    '.changes.functions[0].base.hits > 0' "$T/lru.json"
is "$(jq -r .exercised "$T/lru.json")" exercised "lru-delay: exercised"
ok "lru-delay: the verdict is not \"not exercised\"" jq -e \
    '.verdict != "not exercised" and ([.rows[].verdict] | index("not exercised") | not)' \
    "$T/lru.json"

# ---- mincore-delay: nothing it changed ran --------------------------------
is "$(jq -r '.changes.suites | map(.suite + ":" + (.why | join(","))) | join(";")' "$T/min.json")" \
    "all:mm/mincore.c" "mincore-delay: mm/mincore.c -> all"
is "$(jq -r '.changes.functions | map(.name + "=" + .status + "=" + .symbol) | join(",")' "$T/min.json")" \
    "sys_mincore=probed=__x64_sys_mincore" \
    "mincore-delay: SYSCALL_DEFINE3(mincore) is sys_mincore, probed as __x64_sys_mincore (__do_sys_mincore is inlined)"
ok "mincore-delay: 0 calls in every boot of both sides" jq -e \
    ".changes.functions[0].base.hits == 0 and .changes.functions[0].patched.hits == 0 and
     .changes.functions[0].base.boots_counted == $BOOTS and .changes.functions[0].patched.boots_counted == $BOOTS" \
    "$T/min.json"
is "$(jq -r .exercised "$T/min.json")" "not exercised" "mincore-delay: JSON exercised"
is "$(jq -r .verdict "$T/min.json")" "not exercised" "mincore-delay: JSON verdict"
is "$(jq -r '[.rows[].verdict] | unique | join(",")' "$T/min.json")" \
    "not exercised" "mincore-delay: every row is not exercised"
ok "mincore-delay: rows keep the statistics' own verdict apart" jq -e \
    '[.rows[] | .stats_verdict != null] | all' "$T/min.json"
curl -fs "$KD_URL/series/$MIN_ID/report.txt" >"$T/min.txt"
curl -fs "$KD_URL/series/$MIN_ID" >"$T/min.html"
like "^kperfci result for series $MIN_ID: not exercised$" "$T/min.txt" \
    "report.txt: not exercised"
ok "report.txt never says no change" sh -c "! grep -q 'no change' '$T/min.txt'"
like "sys_mincore \(mm/mincore.c\): probed; base 0 in $BOOTS boots, patched 0 in $BOOTS boots" \
    "$T/min.txt" "report.txt: the function and its calls per side"
like "mm/mincore.c -> all" "$T/min.txt" "report.txt: which suites and why"
like "Verdict: <strong>not exercised</strong>" "$T/min.html" "page: not exercised"
ok "page never says no change" sh -c "! grep -q 'no change' '$T/min.html'"
like "^verdict: not exercised$" "$T/min.wait" "submit --wait printed the verdict"

# ---- the environment on every report -------------------------------------
ok "JSON: THP, mTHP and the command line of the boots" jq -e \
    '(.environment.patched.thp_enabled | test("\\[")) and
     (.environment.patched.mthp | test("kB:")) and
     (.environment.patched.cmdline | test("console=ttyS0"))' "$T/min.json"
ok "JSON: TCG with icount, marked emulated" jq -e \
    '(.environment.accel | test("^tcg, icount shift=3")) and .environment.emulated and
     ([.rows[].emulated] | all)' "$T/min.json"
ok "JSON: fail:runs per side over every boot" jq -e \
    ".environment.splats.base.runs == $BOOTS and .environment.splats.patched.runs == $BOOTS" \
    "$T/min.json"
ok "JSON: the kernel config links" sh -c \
    "curl -fs \"$KD_URL\$(jq -r .environment.config_patched '$T/min.json')\" | grep -q '^CONFIG_KPROBE_EVENTS=y'"
like "THP: .*\[" "$T/min.txt" "report.txt: THP"
like "WARN/BUG/lockdep fail:runs [0-9]+:$BOOTS" "$T/min.txt" "report.txt: fail:runs"
like "emulated: TCG with icount, contention is emulated" "$T/min.txt" \
    "report.txt: the emulated mark"
like "class=\"emulated\"" "$T/min.html" "page: the emulated mark"

test_done
