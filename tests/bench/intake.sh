#!/bin/sh
# bench-intake: how long the offline intake (mbox split, MIME decode,
# series pick) takes on big synthetic threads.  Prints figures, asserts
# nothing about time.   make bench-intake
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
: "${KPERFCI_BIN:=$SRC/bin}"
T=$(mktemp -d "${TMPDIR:-/tmp}/kperfci-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

# gen N_PATCHES N_REPLIES DEPTH > mbox: a series of N patches, then
# N_REPLIES reviews, each nested DEPTH deep under a patch
gen() {
	python3 - "$@" <<'PY'
import sys
n, r, depth = map(int, sys.argv[1:])
out = sys.stdout
hunk = ''.join(' line %d\n' % i for i in range(3)) + '-old\n+new\n' + \
       ''.join(' line %d\n' % i for i in range(3))
def mail(mid, subj, body, irt=None, frm='Alice <alice@example.org>'):
    out.write('From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: %s\n'
              'Date: Tue, 14 Nov 2023 22:30:00 +0000\nMessage-Id: <%s>\n'
              'Subject: %s\n' % (frm, mid, subj))
    if irt:
        out.write('In-Reply-To: <%s>\nReferences: <%s>\n' % (irt, irt))
    out.write('\n%s\n' % body)
mail('c@x', '[PATCH v2 0/%d] big' % n, 'cover\n\n %d files changed, %d insertions(+), %d deletions(-)\n' % (n, n, n))
for i in range(1, n + 1):
    mail('p%d@x' % i, '[PATCH v2 %d/%d] change %d' % (i, n, i),
         'Change %d.\n\nSigned-off-by: Alice <alice@example.org>\n---\n'
         'diff --git a/f%d b/f%d\nindex 1..2 100644\n--- a/f%d\n+++ b/f%d\n'
         '@@ -1,7 +1,7 @@\n%s' % (i, i, i, i, i, hunk), 'c@x')
for j in range(r):
    parent = 'p%d@x' % (j % n + 1)
    for d in range(depth):
        mid = 'r%d-%d@y' % (j, d)
        mail(mid, 'Re: [PATCH v2] change', '> quoted\n\nReviewed-by: R%d <r%d@y.org>\n' % (j, j),
             parent, 'R%d <r%d@y.org>' % (j, j))
        parent = mid
PY
}

run() {	# run LABEL N R DEPTH
	gen "$2" "$3" "$4" >"$T/m"
	size=$(wc -c <"$T/m")
	start=$(date +%s.%N)
	"$KPERFCI_BIN/kperfci" series show --json --mbox "$T/m" >"$T/out"
	end=$(date +%s.%N)
	np=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(len(j["patches"]), sum(len(p["trailers"]) for p in j["patches"]))' "$T/out")
	python3 -c 'import sys; print("%-34s %7.2f MB %8.3f s  (patches, trailers: %s)" % (sys.argv[1], int(sys.argv[2]) / 1e6, float(sys.argv[4]) - float(sys.argv[3]), sys.argv[5]))' \
	    "$1" "$size" "$start" "$end" "$np"
}

echo "intake: kperfci series show --json --mbox (wall time)"
run "10 patches, 20 replies" 10 20 1
run "200 patches, 2000 replies" 200 2000 1
run "50 patches, 100 replies 50 deep" 50 100 50
run "2000 patches, 2000 replies" 2000 2000 1
