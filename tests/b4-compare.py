#!/usr/bin/env python3
# b4-compare.py B4_MBOX KPERFCI_JSON: compares what `b4 am` wrote (an mbox
# of the patches it chose, trailers folded into the commit messages) with
# `kperfci series show --json`: same patches (Message-IDs), same order,
# same subjects, same trailers in the same order -- and, when the JSON has
# them (--messages), the same commit messages as `git am` makes of b4's
# output (through git mailinfo) and diffs git finds there.  Prints the differences
# and exits 1 when there are any.  Used by tests/e2e/t1100-b4-parity.sh.
import email, email.policy, json, os, re, subprocess, sys, tempfile

TRAILER = re.compile(r'^([A-Za-z0-9][A-Za-z0-9_-]*[A-Za-z0-9_-]): (\S.*)$')

def b4_patches(path):
    # b4 -o - does not always escape body lines starting with "From "
    # (it does offline, not after a fetch): split on its own separator
    out = []
    raw = open(path, 'rb').read()
    for chunk in re.split(rb'^From git@z Thu Jan  1 00:00:00 1970\n', raw, flags=re.M):
        if not chunk.strip():
            continue
        # offline, b4 writes mboxrd (">From "): read it back as
        # `git am --patch-format=mboxrd` would
        chunk = re.sub(rb'^>(>*From )', rb'\1', chunk, flags=re.M)
        m = email.message_from_bytes(chunk, policy=email.policy.default)
        body = m.get_body(('plain',)).get_content().replace('\r', '')
        msg = body.split('\n---\n', 1)[0].rstrip('\n')
        last = msg.split('\n\n')[-1].split('\n')
        trs = [TRAILER.match(l).groups() for l in last if TRAILER.match(l)]
        subj = re.sub(r'^(\[[^]]*\]\s*)+', '', ' '.join(str(m['Subject']).split()))
        out.append({'msgid': str(m['Message-Id']).strip().strip('<>'),
                    'subject': subj, 'trailers': [list(t) for t in trs],
                    'git-am': mailinfo(chunk)})
    return out

def mailinfo(chunk):
    """(commit message, patch) as git am would take them from one mail"""
    with tempfile.TemporaryDirectory() as d:
        mf, pf = os.path.join(d, 'msg'), os.path.join(d, 'patch')
        info = subprocess.run(['git', 'mailinfo', mf, pf], input=chunk,
                              capture_output=True, check=True).stdout.decode()
        subj = re.search(r'^Subject: (.*)$', info, re.M).group(1)
        body = open(mf, encoding='utf-8').read()
        patch = open(pf, encoding='utf-8').read()
    lines = [l.rstrip() for l in (subj + '\n\n' + body).split('\n')]
    msg = re.sub(r'\n{3,}', '\n\n', '\n'.join(lines)).strip('\n') + '\n'
    return msg, patch

def ours(path):
    j = json.load(open(path))
    return [{'msgid': p['msgid'], 'subject': p['subject'],
             'trailers': [[t['name'], t['value']] for t in p['trailers']],
             'message': p.get('message'), 'diff': p.get('diff')}
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
    if y['message'] is not None:
        msg, patch = x['git-am']
        if msg != y['message']:
            print('# patch %d message: git am %r, kperfci %r' % (i + 1, msg, y['message']))
            bad = 1
        if not y['diff'] or y['diff'] not in patch:
            print('# patch %d diff is not what git am applies' % (i + 1))
            bad = 1
print('# %d patches compared' % len(a))
sys.exit(bad)
