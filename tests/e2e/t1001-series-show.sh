#!/bin/sh
# t1001-series-show: `kperfci series show --mbox` on the fixture threads:
# the readable listing, JSON, revisions, message-ids, stdin, and a clear
# error for each kind of bad input.
. "$(dirname "$0")/../lib.sh"

K="$KPERFCI_BIN/kperfci"
FX="$SRC/tests/fixtures/threads"

ok "basic: listing" sh -c "'$K' series show --mbox '$FX/basic.mbox' >'$T/out'"
like "^v1, 3 patches$" "$T/out" "listing: revision and count"
like "^\[2/3\] mm/lru: batch folio moves$" "$T/out" "listing: patch line"
like "^      Reviewed-by: Bob Reviewer <bob@example.com>$" "$T/out" "listing: trailer"
like "^ignored \(sender is not the trailer's person\): Tested-by: Carol" "$T/out" \
    "listing: the ignored trailer is shown"

ok "rerolls: JSON" sh -c "'$K' series show --json --mbox '$FX/rerolls.mbox' >'$T/j'"
is "$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]));
print(j["version"], j["versions"], j["cover_subject"], [p["counter"] for p in j["patches"]],
      sorted(j["patches"][0]))' "$T/j")" \
    "3 [1, 2, 3] mm: batching [1, 2, 3] ['author', 'counter', 'date', 'email', 'from_version', 'msgid', 'subject', 'total', 'trailers']" \
    "JSON fields"
ok "rerolls --version 2" sh -c "'$K' series show --version 2 --mbox '$FX/rerolls.mbox' >'$T/out'"
like "^v2, 3 patches" "$T/out" "--version picks v2"
ok "--msgid restricts to its thread" sh -c \
    "cat '$FX/basic.mbox' '$FX/rfc-forms.mbox' | '$K' series show --msgid rfc-1@example.org --mbox - >'$T/out'"
like "^\[1/2\] mm: gr..ere Batches$" "$T/out" "the RFC thread, not basic"
ok "--messages prints message and diff" sh -c \
    "'$K' series show --messages --mbox '$FX/slash-msgid.mbox' >'$T/out'"
like "^diff --git a/swap.c b/swap.c$" "$T/out" "diff printed"

# bad input: exit 1 and one clear line
bad() {	# bad NAME PATTERN ARGS...
	n=$1 p=$2
	shift 2
	"$K" series show "$@" >"$T/out" 2>"$T/err"
	is "$?" "1" "$n: fails"
	like "$p" "$T/err" "$n: says why"
}
bad "no patches" "no patches in thread" --mbox "$FX/no-patches.mbox"
bad "missing revision" "revision v9 not found; the thread has v1, v2, v3" \
    --version 9 --mbox "$FX/rerolls.mbox"
bad "unknown msgid" "message <nope@x> is not in the thread" --msgid nope@x \
    --mbox "$FX/basic.mbox"
printf 'hello\nworld\n' >"$T/text"
bad "not an mbox" "not an mbox" --mbox "$T/text"
: >"$T/empty"
bad "empty file" "empty mbox" --mbox "$T/empty"
bad "missing file" "No such file" --mbox "$T/nonexistent"
head -c 120 "$FX/basic.mbox" >"$T/cut"
bad "cut inside the first message" "truncated" --mbox "$T/cut"
"$K" series show --mbox "$FX/truncated.mbox" >"$T/out" 2>"$T/err"
is "$?" "0" "truncated tail: the complete messages still give the series"
like "1 message\(s\) cut off, skipped" "$T/err" "truncated tail: warned"
"$K" series show --bogus >/dev/null 2>"$T/err"
is "$?" "2" "unknown option: usage error"

test_done
