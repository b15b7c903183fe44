#!/bin/sh
# t2000-series-intake: kperfcid against a real public-inbox.  Fixture
# threads are imported into two lists; lore-style URLs are submitted over
# HTTP (and through the CLI and the web form); the stored series must be
# what the picker chooses offline for the same thread (kperfci series show),
# visible in the JSON and on the page.  A 404 from lore fails with the
# reason; an mbox upload works, one with a message over the cap is
# refused whole; a failing submission touches nothing stored before it.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/pi-lib.sh"
. "$SRC/tests/daemon-lib.sh"

command -v public-inbox-httpd >/dev/null || skip_all "public-inbox not installed"
K="$KPERFCI_BIN/kperfci"
FX="$SRC/tests/fixtures/threads"

ok "public-inbox starts" pi_start test linux-mm
ok "import basic" pi_import test "$FX/basic.mbox"
ok "import rerolls" pi_import linux-mm "$FX/rerolls.mbox"
ok "import rfc-forms" pi_import linux-mm "$FX/rfc-forms.mbox"
ok "import slash-msgid" pi_import test "$FX/slash-msgid.mbox"

kd_config "[lore]\nallow = $PI_URL"
ok "kperfcid starts with the inbox allowlisted" kd_start

# submit JSON -> id (prints it), response in $T/r.json
submit() {
	code=$(curl -s -o "$T/r.json" -w '%{http_code}' -X POST \
	    -H 'Content-Type: application/json' --data-binary "$1" \
	    "$KD_URL/api/v1/series")
	[ "$code" = 202 ] || { echo "# submit: $code $(cat "$T/r.json")" >&2; return 1; }
	jq -r .id "$T/r.json"
}

# the stored patches, in the picker's JSON shape
patches_of() {
	curl -s "$KD_URL/api/v1/series/$1" | jq -S '[.patches[] | {counter,
	    total, subject, author, email, msgid, from_version, trailers}]'
}

# what the picker chooses offline for the same thread
expect() {	# expect MBOX [--version N] [--msgid ID]
	f=$1; shift
	"$K" series show --json --mbox "$f" "$@" | jq -S '[.patches[] |
	    {counter, total, subject, author, email, msgid, from_version,
	    trailers}]'
}

# ---- a cover-letter URL --------------------------------------------
ID1=$(submit "{\"url\": \"${PI_URL}test/basic-v1-0@example.org/\"}")
ok "cover letter URL accepted" test -n "$ID1"
ok "basic: fetched" kd_wait_state "$ID1" fetched applied built running done
curl -s "$KD_URL/api/v1/series/$ID1" >"$T/s1.json"
is "$(jfield "$T/s1.json" '.patches | length')" 3 "basic: 3 patches"
is "$(jfield "$T/s1.json" .cover.subject)" "mm: LRU lock contention fixes" \
    "basic: cover subject"
is "$(jfield "$T/s1.json" .base_commit)" \
    6dad8b86a10822fb5451a5c4533e37edf24af69c "basic: base-commit"
is "$(jfield "$T/s1.json" .change_id)" 20231114-lru-lock-1a2b3c4d5e6f \
    "basic: change-id"
is "$(jfield "$T/s1.json" '.patches[0].trailers[] | select(.name ==
    "Reviewed-by") | .value')" "Bob Reviewer <bob@example.com>" \
    "basic: a reviewer's trailer from a reply is on patch 1"
patches_of "$ID1" >"$T/got1.json"
expect "$FX/basic.mbox" >"$T/want1.json"
ok "basic: same patches, order and trailers as the offline picker" \
    cmp "$T/got1.json" "$T/want1.json"

# the page shows it all
curl -s "$KD_URL/series/$ID1" >"$T/p1.html"
like "mm: LRU lock contention fixes" "$T/p1.html" "page: cover subject"
like "\[1/3\]</span> (<a [^>]*>)?mm: move LRU stat updates out of lru_lock" \
    "$T/p1.html" "page: patch 1 in order"
like "\[3/3\]</span> (<a [^>]*>)?mm/swap: drop a stale comment" "$T/p1.html" \
    "page: patch 3"
like "href=\"${PI_URL}all/basic-v1-1@example.org/\"" "$T/p1.html" \
    "page: patch 1 links to its message on lore"
like "Reviewed-by: Bob Reviewer &lt;bob@example.com&gt;" "$T/p1.html" \
    "page: trailer, escaped"
like "6dad8b86a10822fb5451a5c4533e37edf24af69c" "$T/p1.html" \
    "page: base-commit"
like "20231114-lru-lock-1a2b3c4d5e6f" "$T/p1.html" "page: change-id"
curl -s "$KD_URL/" >"$T/index.html"
like "/series/$ID1\">mm: LRU lock contention fixes" "$T/index.html" \
    "front page lists the series"

# ---- a patch URL of a rerolled series, via /all/ and /T/ ------------
ID2=$(submit "{\"url\": \"${PI_URL}all/reroll-v2-1@example.org/T/\"}")
ok "rerolls: fetched" kd_wait_state "$ID2" fetched applied built running done
curl -s "$KD_URL/api/v1/series/$ID2" >"$T/s2.json"
is "$(jfield "$T/s2.json" .version)" 3 "rerolls: newest revision (v3)"
is "$(jfield "$T/s2.json" '[.patches[].from_version] | join(",")')" "2,3,2" \
    "rerolls: partial v3 filled from v2"
patches_of "$ID2" >"$T/got2.json"
expect "$FX/rerolls.mbox" --msgid reroll-v2-1@example.org >"$T/want2.json"
ok "rerolls: same as the offline picker" cmp "$T/got2.json" "$T/want2.json"

# an older revision on request, by field and by ?v=
ID3=$(submit "{\"url\": \"${PI_URL}linux-mm/reroll-v1-0@example.org/\", \"version\": 1}")
ok "rerolls v1: fetched" kd_wait_state "$ID3" fetched applied built running done
is "$(curl -s "$KD_URL/api/v1/series/$ID3" | jq .version)" 1 \
    "version field picks v1"
ID4=$(submit "{\"url\": \"${PI_URL}linux-mm/reroll-v3-1@example.org/?v=2\"}")
ok "rerolls ?v=2: fetched" kd_wait_state "$ID4" fetched applied built running done
is "$(curl -s "$KD_URL/api/v1/series/$ID4" | jq .version)" 2 "?v=2 picks v2"

# ---- /r/ with a %2F-escaped message-id; RFC 2047 subjects ------------
ID5=$(submit "{\"url\": \"${PI_URL}r/20231116%2Fslash-1@example.org\"}")
ok "slash id via /r/: fetched" kd_wait_state "$ID5" fetched applied built running done
is "$(curl -s "$KD_URL/api/v1/series/$ID5" | jq -r '.patches[0].subject')" \
    "mm/swap: one-liner" "slash id: the patch"
ID6=$(submit "{\"url\": \"${PI_URL}linux-mm/rfc-1@example.org/\"}")
ok "RFC PATCHv2: fetched" kd_wait_state "$ID6" fetched applied built running done
curl -s "$KD_URL/series/$ID6" >"$T/p6.html"
like "gr&#?[a-z0-9]*;?ö?ßere Batches|größere Batches" "$T/p6.html" \
    "RFC 2047 subject decoded on the page"
is "$(curl -s "$KD_URL/api/v1/series/$ID6" | jq .version)" 2 "PATCHv2 is v2"

# ---- the CLI follows a lore URL; the web form redirects --------------
"$K" -s "$KD_URL" submit "${PI_URL}test/basic-v1-2@example.org/" \
    >"$T/cli.out" 2>&1
CLI_ID=$(head -1 "$T/cli.out")
ok "CLI submit printed an id" test "$CLI_ID" -gt 0
is "$(curl -s "$KD_URL/api/v1/series/$CLI_ID" | jq .final)" true \
    "CLI followed the series to a rest"
curl -s -o /dev/null -w '%{http_code} %{redirect_url}' \
    --data-urlencode "url=${PI_URL}test/basic-v1-3@example.org/" \
    --data-urlencode "version=" --data-urlencode "base=" \
    --data-urlencode "csrf=$(kd_csrf)" \
    "$KD_URL/submit" >"$T/form.out"
like "^303 $KD_URL/series/[0-9]+$" "$T/form.out" \
    "form post redirects to the new series' page"

# ---- a 404 from lore touches nothing stored before -----------------
for i in $ID1 $ID2 $ID3 $ID4 $ID5 $ID6 $CLI_ID; do kd_wait_rest "$i"; done
curl -s "$KD_URL/api/v1/series/$ID1" >"$T/before1.json"
curl -s "$KD_URL/api/v1/series?limit=500" | jq -S . >"$T/before.json"
ID7=$(submit "{\"url\": \"${PI_URL}test/nosuch@example.org/\"}")
ok "404 thread: failed" kd_wait_state "$ID7" failed
curl -s "$KD_URL/api/v1/series/$ID7" >"$T/s7.json"
like "lore has no message (<|&lt;)?nosuch@example.org" "$T/s7.json" \
    "JSON names the reason"
curl -s "$KD_URL/series/$ID7" >"$T/p7.html"
like "state-failed" "$T/p7.html" "page: failed"
like "lore has no message (<|&lt;)?nosuch@example.org" "$T/p7.html" \
    "page: the reason"
curl -s "$KD_URL/api/v1/series?limit=500" | jq -S "del(.series[] |
    select(.id == $ID7))" >"$T/after.json"
ok "the failing submission touched no other series" \
    cmp "$T/before.json" "$T/after.json"
curl -s "$KD_URL/api/v1/series/$ID1" >"$T/after1.json"
ok "nor any stored patch or trailer" cmp "$T/before1.json" "$T/after1.json"

# ---- an mbox upload --------------------------------------------------
code=$(curl -s -o "$T/r.json" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/mbox' --data-binary "@$FX/rfc-forms.mbox" \
    "$KD_URL/api/v1/series")
is "$code" 202 "mbox upload accepted"
ID8=$(jq -r .id "$T/r.json")
ok "upload: fetched" kd_wait_state "$ID8" fetched applied built running done
patches_of "$ID8" >"$T/got8.json"
expect "$FX/rfc-forms.mbox" >"$T/want8.json"
ok "upload: same as the offline picker" cmp "$T/got8.json" "$T/want8.json"
is "$(curl -s "$KD_URL/api/v1/series/$ID8" | jq -r .source)" upload \
    "upload: source says so"

# ---- an upload with one message over 8 MiB is refused whole -------------
python3 - "$FX/basic.mbox" "$T/huge.mbox" <<'PY'
import sys
m = open(sys.argv[1]).read()
# a reply to the cover letter with a 9 MiB body, second in the mbox
first, sep, rest = m.partition("\nFrom ")
reply = ("From huge Mon Sep 17 00:00:00 2001\n"
    "Message-ID: <huge-reply@example.org>\n"
    "Subject: Re: [PATCH 0/3] mm: LRU lock contention fixes\n\n" +
    "quoted line of a very long reply\n" * (9 * 2**20 // 33) + "\n")
open(sys.argv[2], "w").write(first + "\n" + reply + "From " + rest)
PY
kd_wait_rest "$ID8"
curl -s "$KD_URL/api/v1/series?limit=500" | jq -S . >"$T/before9.json"
code=$(curl -s -o "$T/r9.json" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/mbox' --data-binary "@$T/huge.mbox" \
    "$KD_URL/api/v1/series")
is "$code" 400 "an upload with a 9 MiB message is refused"
is "$(jq -r .error "$T/r9.json")" "message 2 of the mbox (Message-ID \
<huge-reply@example.org>) is larger than 8 MiB, the most one message may be" \
    "naming the message and the cap"
curl -s "$KD_URL/api/v1/series?limit=500" | jq -S . >"$T/after9.json"
ok "the refused upload stored nothing" cmp "$T/before9.json" "$T/after9.json"

curl -s "$KD_URL/" >"$T/index2.html"
like "/series/$ID5\">mm/swap: one-liner" "$T/index2.html" \
    "front page: a series without a cover letter listed by its patch"
"$K" -s "$KD_URL" status >"$T/list.out"
like "^ +$ID1 +[a-z]+ +mm: LRU lock contention fixes" "$T/list.out" \
    "kperfci status lists the series"

ok "kperfcid stops cleanly" kd_stop
test_done
