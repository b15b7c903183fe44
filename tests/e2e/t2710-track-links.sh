#!/bin/sh
# t2710-track-links: what a tracked commit says reaches the pages and the
# terminal as text.  A regression whose first bad commit has a
# "Link: javascript:..." trailer and ESC/BEL bytes in its subject (put in
# the store as the bisect would) is shown on /regressions/ID without an
# href of that link (the text stays), an https link stays a link, and
# `kperfci track show` prints neither ESC nor BEL.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"

command -v jq >/dev/null || skip_all "jq not installed"
command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed"

kd_config "[tree \"far\"]\nurl = $T/no-such-repo.git\npath = $T/far.git\nbranch = master\n[track \"far\"]\ntree = far\nboots = 2"
ok "kperfcid starts with a [track]" kd_start
ok "and stops (its store made)" kd_stop

esc=$(printf '\033')
bel=$(printf '\007')
sqlite3 "$T/var/kperfci.db" <<SQL
INSERT INTO regressions (track, tree, workload, params, metric, unit, better,
    good_run, bad_run, good_commit, bad_commit, pct_change, state, first_bad,
    subject, author, link, created, updated)
VALUES ('far', 'far', 'will-it-scale', 'x', 'ops', 'ops/s', 1, 1, 2,
    'aaaa', 'bbbb', -12.5, 'found', 'bbbb',
    'mm: evil ${esc}]0;owned${bel}${esc}[2J subject', 'A <a@example.org>',
    'javascript:alert(document.cookie)', 1, 1),
    ('far', 'far', 'will-it-scale', 'y', 'ops', 'ops/s', 1, 1, 2,
    'aaaa', 'cccc', -9.5, 'found', 'cccc', 'mm: plain subject',
    'B <b@example.org>', 'https://lore.kernel.org/all/x@example.org/', 1, 1),
    ('far', 'far', 'will-it-scale', 'z', 'ops', 'ops/s', 1, 1, 2,
    'aaaa', 'dddd', -9.5, 'found', 'dddd', 'mm: data', 'C <c@example.org>',
    ' JavaScript:alert(1)', 1, 1);
SQL
ok "regressions stored" [ $? -eq 0 ]
ok "kperfcid starts again" kd_start
export KPERFCI_SERVER=$KD_URL

curl -fs "$KD_URL/regressions/1" >"$T/r1.html"
ok "/regressions/1 renders" [ -s "$T/r1.html" ]
ok "no href of a javascript: link" sh -c "! grep -qi 'href=\"[[:space:]]*javascript' '$T/r1.html'"
like "<br>javascript:alert\(document.cookie\)</dd>" "$T/r1.html" \
    "the link's text is shown as text"
ok "no ESC or BEL in the page" sh -c "! grep -q '[$esc$bel]' '$T/r1.html'"
curl -fs "$KD_URL/regressions/2" >"$T/r2.html"
like "<a href=\"https://lore.kernel.org/all/x@example.org/\" rel=\"noreferrer nofollow\">" \
    "$T/r2.html" "an https link stays a link"
curl -fs "$KD_URL/regressions/3" >"$T/r3.html"
ok "a spaced, mixed-case javascript: is no link either" \
    sh -c "! grep -qi 'href=\"[[:space:]]*javascript' '$T/r3.html'"

"$KPERFCI_BIN/kperfci" track show far >"$T/show.out"
ok "track show runs" [ $? -eq 0 ]
like "mm: evil \?\]0;owned\?\?\[2J subject" "$T/show.out" \
    "the subject is shown, its ESC and BEL as ?"
ok "track show prints no ESC or BEL" sh -c "! grep -q '[$esc$bel]' '$T/show.out'"
"$KPERFCI_BIN/kperfci" track list >"$T/list.out"
ok "track list prints no ESC or BEL" sh -c "! grep -q '[$esc$bel]' '$T/list.out'"

ok "kperfcid stops cleanly" kd_stop
test_done
