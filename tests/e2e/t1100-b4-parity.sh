#!/bin/sh
# t1100-b4-parity: for every fixture thread, `b4 am` (the reference kernel
# developers trust) and `kperfci series show --json` choose the same
# patches, in the same order, with the same subjects and trailers -- first
# offline on the mbox files, then both fetching from a real public-inbox.
# Where kperfci differs on purpose, the case says why and asserts the
# documented difference.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/pi-lib.sh"

command -v b4 >/dev/null || skip_all "b4 not installed"
K="$KPERFCI_BIN/kperfci"
FX="$SRC/tests/fixtures/threads"
export XDG_CACHE_HOME="$T/xdg/cache" XDG_DATA_HOME="$T/xdg/data" \
    XDG_CONFIG_HOME="$T/xdg/config" GIT_CONFIG_GLOBAL=/dev/null
git init -q "$T/repo"
git -C "$T/repo" config user.name Tester
git -C "$T/repo" config user.email tester@example.org
git -C "$T/repo" config b4.attestation-policy off

b4am() {	# b4am OUT ARGS...: b4 am into OUT (an mbox), in the scratch repo
	out=$1
	shift
	(cd "$T/repo" && b4 "$@" -o - >"$out" 2>"$out.log")
}

for f in basic rerolls rfc-forms slash-msgid quirks unnumbered truncated; do
	b4am "$T/$f.b4" --offline-mode am -m "$FX/$f.mbox"
	"$K" series show --json --messages --mbox "$FX/$f.mbox" >"$T/$f.json" \
	    2>/dev/null
	ok "$f: b4 and kperfci agree, git am messages and diffs too (offline)" \
	    python3 "$SRC/tests/b4-compare.py" "$T/$f.b4" "$T/$f.json"
done

# attach-crlf: the patch is a base64 text/x-patch attachment after a text
# part holding the commit message.  b4 keeps only the part with the diff,
# so its commit message loses the text part (here the Signed-off-by);
# kperfci appends the attachment to the text, which is what `git am` does
# with the original mail.  Same patch, same subject; trailers differ by
# exactly that Signed-off-by.
b4am "$T/att.b4" --offline-mode am -m "$FX/attach-crlf.mbox"
"$K" series show --json --messages --mbox "$FX/attach-crlf.mbox" >"$T/att.json"
python3 "$SRC/tests/b4-compare.py" "$T/att.b4" "$T/att.json" >"$T/att.cmp"
like "patch 1 trailers: b4 \[\], kperfci \[\['Signed-off-by', 'J.rg R.del <joerg@example.org>'\]\]" \
    "$T/att.cmp" "attach-crlf: only the documented trailer difference"
like "patch 1 message: git am 'mm: fix the comment on folio_batch\\\\n', kperfci 'mm: fix the comment on folio_batch\\\\n\\\\nSigned-off-by: J.rg R.del <joerg@example.org>\\\\n'" \
    "$T/att.cmp" "attach-crlf: b4's message lacks the text part"
is "$(grep -c '^#' "$T/att.cmp")" "3" "attach-crlf: nothing else differs"
(cd "$T/repo" && git mailinfo "$T/mi.msg" "$T/mi.patch" \
    <"$FX/attach-crlf.mbox" >/dev/null)
like "^Signed-off-by: J.rg R.del <joerg@example.org>" "$T/mi.msg" \
    "attach-crlf: git mailinfo keeps the Signed-off-by, as kperfci does"

# no-patches: both find nothing; b4 prints, kperfci fails with the reason
b4am "$T/np.b4" --offline-mode am -m "$FX/no-patches.mbox"
like "No patches found" "$T/np.b4.log" "no-patches: b4 finds none"
! "$K" series show --mbox "$FX/no-patches.mbox" 2>"$T/np.err"
like "no patches in thread" "$T/np.err" "no-patches: kperfci says so"

# the same through a real lore: b4 fetching by message-id from the local
# public-inbox, kperfci by URL
if command -v public-inbox-httpd >/dev/null && pi_start test; then
	for f in basic rerolls rfc-forms; do
		pi_import test "$FX/$f.mbox"
	done
	git -C "$T/repo" config b4.midmask "${PI_URL}all/%s"
	git -C "$T/repo" config b4.searchmask "${PI_URL}all/?x=m&t=1&q=%s"
	for id in basic-v1-2@example.org reroll-v3-1@example.org rfc-2@example.org; do
		b4am "$T/srv-$id.b4" am "$id"
		"$K" series show --json --messages --url "${PI_URL}all/$id/" \
		    --allow "$PI_URL" \
		    >"$T/srv-$id.json" 2>/dev/null
		ok "$id: b4 and kperfci agree (local lore)" \
		    python3 "$SRC/tests/b4-compare.py" "$T/srv-$id.b4" "$T/srv-$id.json"
	done
else
	ok "public-inbox starts" false
fi

test_done
