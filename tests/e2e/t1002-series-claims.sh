#!/bin/sh
# t1002-series-claims: `kperfci series claims` on the seed threads' real
# text (tests/fixtures/claims/0*.mbox): every claim of the seed's
# NAME.expected (the labelled corpus make bench-claims scores) is
# extracted, in order, with its numbers, metric and conditions, and
# nothing else; a thread that claims
# nothing yields nothing; a number no rule understands is listed as text,
# "not understood"; bad input gets a clear error.
. "$(dirname "$0")/../lib.sh"

K="$KPERFCI_BIN/kperfci"
FX="$SRC/tests/fixtures/claims"

# One line per claim, in expected.txt's form.
flat() {
	"$K" series claims --json --mbox "$1" | jq -r '.[] |
	    def n: if . == null then "-" else (. * 1000 | round / 1000 |
	        tostring) end;
	    def p: if . == null then "-" else ((. * 10 | round) / 10 |
	        tostring | if test("\\.") then . else . + ".0" end) end;
	    [.where, .kind, (.metric // "-"), (.before | n), (.after | n),
	     (.change_pct | p), (.direction // "-"),
	     (.conditions | to_entries | map(select(.value != null)) |
	      sort_by(.key) | map("\(.key)=\(.value)") | join(" "))] |
	    join("|")'
}

for f in 000-lru-stat 001-list-lru 002-root-flush 004-large-folio; do
	grep -v '^#' "$FX/$f.expected" >"$T/want.$f"
	flat "$FX/$f.mbox" >"$T/got.$f" 2>"$T/err.$f"
	if cmp -s "$T/want.$f" "$T/got.$f"; then
		ok "$f: the claims as written down" true
	else
		ok "$f: the claims as written down" false
		diff "$T/want.$f" "$T/got.$f" | sed 's/^/# /'
	fi
done
is "$(cat "$T"/want.* | wc -l)" 18 "the seeds hold 18 claims (4 threads)"

# The readable form says what each claim is.
"$K" series claims --mbox "$FX/004-large-folio.mbox" >"$T/txt"
like "patch 1/2: before-after \[level-pair\]" "$T/txt" \
    "text: the rule that matched"
like "before 61%, after 1%, change -98.4%" "$T/txt" "text: the numbers"

# A thread that claims nothing, and one whose number no rule reads.
"$K" series claims --json --mbox "$SRC/tests/fixtures/threads/rerolls.mbox" \
    >"$T/none"
is "$(jq length "$T/none")" 0 "a thread without numbers: no claims"
"$K" series claims --json --mbox "$SRC/tests/fixtures/threads/basic.mbox" \
    >"$T/basic"
is "$(jq -r '.[] | "\(.kind) \(.change_pct) \(.conditions.threads) \(.conditions.mode) \(.conditions.workload)"' "$T/basic")" \
    "change 30 80 shmem fault-free" \
    "a claim in a subject-like line: +30% shmem faults at 80 threads"
cat >"$T/odd.mbox" <<'MBOX'
From a@example.org Mon Jan  1 00:00:00 2024
From: A <a@example.org>
Subject: [PATCH] mm: tidy a comment
Message-ID: <odd-1@example.org>

Tidy a comment. This is 100% cosmetic.

Signed-off-by: A <a@example.org>
---
diff --git a/mm/a.c b/mm/a.c
--- a/mm/a.c
+++ b/mm/a.c
@@ -1 +1 @@
-a
+b
MBOX
"$K" series claims --json --mbox "$T/odd.mbox" >"$T/odd"
is "$(jq -r '.[0].kind + "|" + .[0].text' "$T/odd")" \
    "not understood|This is 100% cosmetic." \
    "an unreadable number is kept as text, not understood"
is "$(jq length "$T/odd")" 1 "and nothing is invented around it"

# Bad input.
"$K" series claims --mbox "$T/nosuch" >"$T/e1" 2>&1
is "$?" 1 "a missing file: status 1"
like "nosuch" "$T/e1" "the file is named"
printf 'not a mail at all\n' >"$T/junk"
"$K" series claims --mbox "$T/junk" >"$T/e2" 2>&1
is "$?" 1 "junk: status 1"
like "kperfci: " "$T/e2" "junk: an error that says why"
"$K" series claims --bogus >"$T/e3" 2>&1
is "$?" 2 "an unknown option: usage, status 2"
test_done
