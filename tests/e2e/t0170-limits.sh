#!/bin/sh
# t0170-limits: one accounting for work and storage (issue 18, finding 6).
# The real daemon on loopback, loopback not trusted, submitters with
# tokens:
#   - a submitter at her 429 cannot re-run a series (a re-run is a
#     submission), nor start track runs without limit;
#   - eight parallel uploads of 600 kB against a 2 MB quota: at most three
#     are accepted (the check and the reservation are one step);
#   - parsed uploads stay counted (their cover letter and patches), and a
#     re-run of one is refused with the reason (its mbox is not kept: a
#     re-run cannot copy it past the quota).
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"

command -v jq >/dev/null || skip_all "jq not installed"
FX="$SRC/tests/fixtures/threads"
ALICE=alice-token-not-secret
BOB=bob-token-not-secret
sha() { printf %s "$1" | sha256sum | cut -d' ' -f1; }
post() {	# post TOKEN CTYPE FILE PATH -> status; body in $T/r.out
	curl -s -o "$T/r.out" -w '%{http_code}' -H "Authorization: Bearer $1" \
	    -H "Content-Type: $2" --data-binary @"$3" "$KD_URL$4"
}
echo '{}' >"$T/empty.json"

kd_config "[lore]\nallow = http://127.0.0.1:9/\n[http]\nsubmit_burst = 3\nsubmit_per_hour = 1\nupload_quota = 2M\n[auth]\ntrust_loopback = false\n[submitter \"alice\"]\ntoken_sha256 = $(sha $ALICE)\n[submitter \"bob\"]\ntoken_sha256 = $(sha $BOB)\n[tree \"far\"]\nurl = $T/no-such-repo.git\npath = $T/far.git\nbranch = master\n[track \"far\"]\ntree = far\nboots = 2"
ok "daemon starts" kd_start

# ---- re-runs charge the rate limit --------------------------------------
for i in 1 2 3; do
	is "$(post $ALICE application/mbox "$FX/basic.mbox" /api/v1/series)" 202 \
	    "alice's submission $i"
done
S1=$(jq -r .id "$T/r.out")
is "$(post $ALICE application/mbox "$FX/basic.mbox" /api/v1/series)" 429 \
    "her fourth: 429"
is "$(post $ALICE application/json "$T/empty.json" /api/v1/series/$S1/rerun)" 429 \
    "at her 429, a re-run is refused too"
like "rate limit" "$T/r.out" "naming the rate limit"
for i in 1 2 3; do
	post $BOB application/json "$T/empty.json" /api/v1/tracks/far/runs >/dev/null
done
is "$(post $BOB application/json "$T/empty.json" /api/v1/tracks/far/runs)" 429 \
    "track runs charge the same bucket: bob's fourth is 429"
ok "daemon stops" kd_stop

# ---- parallel uploads against the quota ---------------------------------
python3 - "$FX/basic.mbox" "$T/big.mbox" <<'PY'
import sys
m = open(sys.argv[1]).read()
# pad the first message's body to about 600 kB
head, sep, rest = m.partition("\n\n")
pad = ("padding line to make the upload large\n" * 16000)
open(sys.argv[2], "w").write(head + sep + pad + rest)
PY
sed -i 's/^submit_burst = 3$/submit_burst = 50/' "$T/kperfcid.conf"
ok "daemon restarts with a burst of 50" kd_start
P=
for i in 1 2 3 4 5 6 7 8; do
	(post $BOB application/mbox "$T/big.mbox" /api/v1/series >"$T/p$i.code") &
	P="$P $!"
done
wait $P
n=$(cat "$T"/p?.code | grep -o 202 | wc -l)
echo "# accepted $n of 8 uploads of $(wc -c <"$T/big.mbox") bytes:" $(cat "$T"/p?.code)
ok "at most three of eight parallel 600 kB uploads fit a 2 MB quota" [ "$n" -le 3 ]
ok "and at least one did" [ "$n" -ge 1 ]
# once parsed, an upload's cover letter and patches stay counted
for i in 1 2 3 4 5; do
	c=$(post $ALICE application/mbox "$T/big.mbox" /api/v1/series)
	[ "$c" = 202 ] || break
	A=$(jq -r .id "$T/r.out")
	kd_wait_rest "$A" 30 >/dev/null
done
is "$c" 429 "parsed uploads fill the quota: alice's upload $i is refused"
like "storage quota" "$T/r.out" "naming the quota"
ok "after at most three" [ "$i" -le 4 ]
n=$(curl -s "$KD_URL/api/v1/series" | jq '.series | length')
is "$(post $ALICE application/json "$T/empty.json" /api/v1/series/$A/rerun)" 409 \
    "at her quota, a re-run of a parsed upload is refused"
like "mbox is no longer kept: upload it again" "$T/r.out" "saying why"
is "$(curl -s "$KD_URL/api/v1/series" | jq '.series | length')" "$n" \
    "and nothing was stored"
ok "daemon stops" kd_stop
test_done
