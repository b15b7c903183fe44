#!/bin/sh
# tests/browser/check-page.sh: load a kperfci result page in headless
# Chromium (Debian `chromium`), save the rendered DOM and a screenshot, and
# check what a reader would see: the result table, at least one inline SVG
# chart with drawn points, a verdict, and a non-empty PNG.
#
#   tests/browser/check-page.sh URL OUTDIR [VERDICT_REGEX]
#
# Writes OUTDIR/dom.html and OUTDIR/page.png; prints TAP-style lines
# ("ok"/"not ok" with a reason) and exits non-zero on the first failure,
# so e2e tests can call it through `ok`.  Chromium's profile lives in
# OUTDIR/chrome, never in $HOME.
set -u
url=$1
out=$2
verdict=${3:-}
mkdir -p "$out"
command -v chromium >/dev/null || { echo "chromium not installed"; exit 1; }

chrome() {
	# the flags keep a headless run offline and quiet: no sandbox (root in
	# CI), no GPU, no background fetches, a profile of our own
	timeout 180 chromium --headless --no-sandbox --disable-gpu \
	    --disable-quic --no-first-run --disable-background-networking \
	    --disable-component-update --disable-sync \
	    --disable-dev-shm-usage --user-data-dir="$out/chrome" "$@"
}

fail() {
	echo "not ok - $1"
	exit 1
}

chrome --dump-dom "$url" >"$out/dom.html" 2>"$out/chrome-dom.log" ||
    fail "chromium --dump-dom failed (see $out/chrome-dom.log)"
grep -q '<table class="result"' "$out/dom.html" ||
    fail "the rendered DOM has no result table"
grep -q '<svg class="chart"' "$out/dom.html" ||
    fail "the rendered DOM has no <svg> chart"
grep -q '<circle' "$out/dom.html" ||
    fail "the charts have no drawn points"
grep -q 'class="verdict' "$out/dom.html" || fail "no verdict on the page"
if [ -n "$verdict" ]; then
	grep -Eq "Verdict: <strong>$verdict</strong>" "$out/dom.html" ||
	    fail "the verdict is not /$verdict/"
fi
chrome --screenshot="$out/page.png" --window-size=1280,2000 "$url" \
    >"$out/chrome-shot.log" 2>&1 ||
    fail "chromium --screenshot failed (see $out/chrome-shot.log)"
[ -s "$out/page.png" ] || fail "no screenshot written"
# PNG signature: 89 50 4E 47 0D 0A 1A 0A
sig=$(od -An -tx1 -N8 "$out/page.png" | tr -d ' \n')
[ "$sig" = 89504e470d0a1a0a ] || fail "page.png is not a PNG ($sig)"
size=$(wc -c <"$out/page.png")
# a blank 1280x2000 page compresses to a few KiB; a page with a table and
# charts does not
[ "$size" -gt 20000 ] || fail "page.png is only $size bytes: blank page?"
echo "ok - table, charts and verdict rendered; screenshot $size bytes"
