#!/bin/sh
# t1000-lore-fetch: `kperfci series show --url` against a real public-inbox
# (every URL form a person copies from lore resolves to the right thread)
# and against a misbehaving server (404, foreign host, redirects off the
# allowlist, oversize and truncated bodies).
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/pi-lib.sh"

command -v public-inbox-httpd >/dev/null || skip_all "public-inbox not installed"
K="$KPERFCI_BIN/kperfci"
FX="$SRC/tests/fixtures/threads"

ok "public-inbox starts" pi_start test linux-mm
ok "import basic thread" pi_import test "$FX/basic.mbox"
ok "import rerolls thread" pi_import linux-mm "$FX/rerolls.mbox"
ok "import slash-msgid thread" pi_import test "$FX/slash-msgid.mbox"
# the same thread on two lists (public-inbox 1.9's extindex folds
# identical copies; t-series covers duplicates that reach the picker)
ok "import basic thread into a second list" pi_import linux-mm "$FX/basic.mbox"

# show URL: kperfci series show --json for URL, allowed base PI_URL
show() {
	"$K" series show --json --url "$1" --allow "$PI_URL" >"$T/out.json" \
	    2>"$T/err.txt"
}
# field EXPR: a value from $T/out.json
field() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
	    "$T/out.json" "$1"
}

# every form of a URL to basic's patch 2 (or a reply) gives the v1 series
for form in \
    "test/basic-v1-2@example.org/" \
    "test/basic-v1-2@example.org" \
    "test/basic-v1-2@example.org/T/" \
    "test/basic-v1-2@example.org/T/#u" \
    "test/basic-v1-2@example.org/t/" \
    "test/basic-v1-2@example.org/t.mbox.gz" \
    "test/basic-v1-2@example.org/raw" \
    "test/%3Cbasic-v1-2%40example.org%3E/" \
    "all/basic-v1-0@example.org/" \
    "all/basic-r3@example.com/T/#mabc" \
    "r/basic-r1@example.com"
do
	ok "fetch $form" show "${PI_URL}$form"
	is "$(field '[p["msgid"] for p in j["patches"]]' 2>&1)" \
	    "['basic-v1-1@example.org', 'basic-v1-2@example.org', 'basic-v1-3@example.org']" \
	    "$form: the thread's three patches in order"
done
is "$(field 'j["patches"][0]["trailers"][1]["value"]')" \
    "Bob Reviewer <bob@example.com>" "follow-up trailer came through lore"

# a Message-ID with a '/' in it, escaped as lore escapes it
ok "fetch %2F-escaped id" show "${PI_URL}test/20231116%2Fslash-1@example.org/T/"
is "$(field 'j["patches"][0]["msgid"]')" "20231116/slash-1@example.org" "slash id resolved"

# revisions: newest by default, ?v=N on request, partial reroll filled
ok "fetch rerolls" show "${PI_URL}linux-mm/reroll-v1-0@example.org/"
is "$(field '(j["version"], [p["from_version"] for p in j["patches"]])')" \
    "(3, [2, 3, 2])" "newest revision, partial reroll filled from v2"
ok "fetch rerolls ?v=2" show "${PI_URL}linux-mm/reroll-v3-1@example.org/?v=2"
is "$(field 'j["version"]')" "2" "?v=2 picks v2"

# refusals
! show "${PI_URL}test/nosuch@example.org/"
like "lore has no message <nosuch@example.org> at ${PI_URL}" "$T/err.txt" "404 is named"
! show "http://127.0.0.2:${PI_URL##*:}test/basic-v1-2@example.org/"
like "is not on an allowed lore base \\(allowed: ${PI_URL}\\)" "$T/err.txt" \
    "another host is refused, allowed bases named"
! show "ftp://127.0.0.1/test/x@y/"
like "only http and https" "$T/err.txt" "non-http scheme refused"
! show "${PI_URL}test/x%20y@z/"
like "contains a space" "$T/err.txt" "message-id with a space refused"

# a misbehaving server
FPORT=$(free_port)
FAKE="http://127.0.0.1:$FPORT/"
curl -s "${PI_URL}test/basic-v1-1@example.org/t.mbox.gz" >"$T/thread.gz"
python3 "$SRC/tests/lore-fake.py" "$FPORT" "${PI_URL}test/" "$T/thread.gz" &
FAKE_PID=$!
stop_fake() { kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null; }
at_exit stop_fake
i=0
until curl -s -o /dev/null "$FAKE" || [ $i -gt 50 ]; do sleep 0.1; i=$((i + 1)); done

fake() {
	u=$1
	shift
	"$K" series show --json --url "$FAKE$u" --allow "$FAKE" "$@" \
	    >"$T/out.json" 2>"$T/err.txt"
}
ok "plain gzip from the fake server" fake "plain/basic-v1-1@example.org/"
is "$(field 'len(j["patches"])')" "3" "fake server's thread parsed"
! fake "redirect/basic-v1-1@example.org/"
like "redirect to ${PI_URL}test/basic-v1-1@example.org/t.mbox.gz refused: .*not on an allowed lore base" \
    "$T/err.txt" "redirect off the allowlist refused"
ok "redirect to an allowed base is followed" \
    fake "redirect/basic-v1-1@example.org/" --allow "$PI_URL"
ok "redirect within the base is followed" fake "self/basic-v1-1@example.org/"
! fake "loop/x@y/"
like "more than 5 redirects" "$T/err.txt" "redirect loop stops"
! fake "huge/x@y/"
like "response larger than 64 MiB" "$T/err.txt" "oversize body refused"
! fake "bomb/x@y/"
like "response larger than 64 MiB" "$T/err.txt" "gzip bomb refused"
! fake "trunc/x@y/"
like "truncated gzip response" "$T/err.txt" "truncated gzip named"

test_done
