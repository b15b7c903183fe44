#!/bin/sh
# t7200-boot-panic: a series whose kernel panics at boot
# (patches/boot-panic.mbox), end to end like t7000: every patched boot is a
# boot failure, and the result says so clearly everywhere: `kperfci submit
# --wait` exits 1 with "failed: every patched boot panicked", the page shows
# it with a console log link per failed boot, report.txt lists the console
# logs, the JSON has the failed boots; the base side's numbers are still
# shown and the missing patched side is named, never printed as NaN.
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

REPO=$(kernel_ref_tree) || { echo "Bail out! no reference tree"; exit 1; }
kernel_ref_bzimage >/dev/null || { echo "Bail out! reference build failed"; exit 1; }

ok "public-inbox starts" pi_start test
ok "boot-panic series imported" pi_import test "$SRC/patches/boot-panic.mbox"
URL="${PI_URL}test/kperfci-calibration-boot-panic-0@kperfci.invalid/"

cat >"$T/matrix.conf" <<'EOF'
[defaults]
seconds = 1
iterations = 2
warmup = 0

[run "fault-free-shmem-node"]
workload = fault-free
mode = shmem
tasks = node
EOF
# deterministic guest time, as in t7000

kd_config "[lore]\nallow = $PI_URL\n[tree \"linux-6.12\"]\npath = $REPO\nbranch = master\nconfig = tinyconfig\nfragment = $SRC/etc/kconfig/perf.config\nfragment = $SRC/etc/kconfig/qemu.config\n[build]\ncache = $(kernel_cache_dir)/builds\njobs = ${KPERFCI_TEST_JOBS:-2}\ntimeout = 3600\n[sched]\nboots = 3\nboot_step = 3\nmax_boots = 3\nmatrix = $T/matrix.conf\n$(ka_section q1)"
ok "kperfcid starts" kd_start
ka_config q1 "backend = qemu\n[qemu]\nicount = shift=3,sleep=off\naccel = tcg\nmemory-per-node = 512\nboot-timeout = 120\njob-timeout = 600"
ka_start q1
ok "the agent registers" ka_wait_log q1 "registered" 60

timeout 1800 "$KPERFCI_BIN/kperfci" -s "$KD_URL" submit "$URL" --wait \
    >"$T/wait.out" 2>"$T/wait.err"
is "$?" 1 "submit --wait: a series whose every patched boot panicked exits 1"
ID=$(head -1 "$T/wait.out")
like "^verdict: failed: every patched boot panicked$" "$T/wait.out" \
    "submit --wait prints the failed verdict"
tail -30 "$T/wait.out" | sed 's/^/#   /'

curl -fs "$KD_URL/api/v1/series/$ID/comparison" >"$T/c.json"
is "$(jq -r .verdict "$T/c.json")" "failed: every patched boot panicked" \
    "JSON: the verdict"
is "$(jq -r .series_state "$T/c.json")" failed "the series failed"
is "$(jq -r '[.failed_boots[] | select(.side=="patched" and .state=="boot-failed")] | length' "$T/c.json")" \
    3 "JSON: three failed patched boots"
ok "JSON: each failed boot has its console log" jq -e \
    '[.failed_boots[] | .console | test("^/api/v1/jobs/[0-9]+/console\\?attempt=1$")] | all' \
    "$T/c.json"
ok "JSON: the base side's rows are there, the patched side missing" jq -e \
    '(.rows | length) > 0 and ([.rows[] | .verdict == "missing" and .base != null and .test == null] | all)' \
    "$T/c.json"
CON=$(jq -r '.failed_boots[0].console' "$T/c.json")
CON_RE=$(printf '%s' "$CON" | sed 's/[?.]/\\&/g')	# as a regex
ok "the console log link serves the panic" sh -c \
    "curl -fs '$KD_URL$CON' | grep -q 'kperfci calibration: boot-panic'"

curl -fs "$KD_URL/series/$ID" >"$T/page.html"
like "Verdict: <strong>failed: every patched boot panicked</strong>" \
    "$T/page.html" "page: the verdict"
like "Every patched boot panicked. Console logs: <a href=\"$CON_RE\">boot 1</a>" \
    "$T/page.html" "page: console log links next to it"
like "missing on the patched side" "$T/page.html" "page: the missing side is named"
ok "page: no NaN" sh -c "! grep -Eqi '\\bnan\\b|\\binf\\b' '$T/page.html'"
curl -fs "$KD_URL/series/$ID/report.txt" >"$T/report.txt"
like "^kperfci result for series $ID: failed: every patched boot panicked$" \
    "$T/report.txt" "report.txt: the verdict"
like "every patched boot panicked; console logs:" "$T/report.txt" \
    "report.txt: console logs listed"
like "^    http://127\\.0\\.0\\.1:$KD_PORT$CON_RE" "$T/report.txt" \
    "report.txt: as full URLs"
ok "report.txt: no NaN" sh -c "! grep -Eqi '\\bnan\\b' '$T/report.txt'"

test_done
