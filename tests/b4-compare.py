#!/usr/bin/env python3
# b4-compare.py B4_MBOX KPERFCI_JSON: compares what `b4 am` wrote (an mbox
# of the patches it chose, trailers folded into the commit messages) with
# `kperfci series show --json`: same patches (Message-IDs), same order,
# same subjects, same trailers in the same order.  Prints the differences
# and exits 1 when there are any.  Used by tests/e2e/t1100-b4-parity.sh.
import email, email.policy, json, re, sys

TRAILER = re.compile(r'^([A-Za-z0-9][A-Za-z0-9_-]*[A-Za-z0-9_-]): (\S.*)$')

def b4_patches(path):
    # b4 -o - does not always escape body lines starting with "From "
    # (it does offline, not after a fetch): split on its own separator
    out = []
    raw = open(path, 'rb').read()
    for chunk in re.split(rb'^From git@z Thu Jan  1 00:00:00 1970\n', raw, flags=re.M):
        if not chunk.strip():
            continue
        m = email.message_from_bytes(chunk, policy=email.policy.default)
        body = m.get_body(('plain',)).get_content().replace('\r', '')
        msg = body.split('\n---\n', 1)[0].rstrip('\n')
        last = msg.split('\n\n')[-1].split('\n')
        trs = [TRAILER.match(l).groups() for l in last if TRAILER.match(l)]
        subj = re.sub(r'^(\[[^]]*\]\s*)+', '', ' '.join(str(m['Subject']).split()))
        out.append({'msgid': str(m['Message-Id']).strip().strip('<>'),
                    'subject': subj, 'trailers': [list(t) for t in trs]})
    return out

def ours(path):
    j = json.load(open(path))
    return [{'msgid': p['msgid'], 'subject': p['subject'],
             'trailers': [[t['name'], t['value']] for t in p['trailers']]}
            for p in j['patches']]

a, b = b4_patches(sys.argv[1]), ours(sys.argv[2])
bad = 0
if len(a) != len(b):
    print('# b4 chose %d patches, kperfci %d' % (len(a), len(b)))
    bad = 1
for i, (x, y) in enumerate(zip(a, b)):
    for k in ('msgid', 'subject', 'trailers'):
        if x[k] != y[k]:
            print('# patch %d %s: b4 %r, kperfci %r' % (i + 1, k, x[k], y[k]))
            bad = 1
print('# %d patches compared' % len(a))
sys.exit(bad)
