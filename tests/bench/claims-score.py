#!/usr/bin/env python3
"""claims-score: precision and recall of `kperfci series claims` on the
labelled corpus tests/fixtures/claims/NAME.mbox + NAME.expected.

An expected line is where|kind|metric|before|after|change_pct|direction|
conditions (t1002's form).  A claim found matches an expected one when
where, kind and metric are the same, before and after agree to 0.1 % (or
are both absent), the change agrees to 0.15 points, and the counts that
say which row a claim speaks about (threads, processes, memcgs, folio_kb)
are the same; direction, the machine's CPUs and the workload hints are
not scored.  Each expected claim is matched at most once, so a claim
listed twice counts once right and once wrong.

usage: claims-score.py FIXTURE_DIR KPERFCI [KPERFCI_BEFORE]
"""
import json, os, subprocess, sys, time
from collections import defaultdict

SCORED = ("threads", "processes", "memcgs", "folio_kb")


def flat(c):
    cond = {k: str(v) for k, v in (c.get("conditions") or {}).items()
            if v is not None}
    return (c["where"], c["kind"], c.get("metric") or "-", c.get("before"),
            c.get("after"), c.get("change_pct"), cond, c.get("text", ""))


def num(s):
    return None if s == "-" else float(s)


def parse_expected(path):
    kind, want = "?", []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("# kind:"):
            kind = line.split(":", 1)[1].strip()
        if line.startswith("# set: held-out"):
            kind = "held-out:" + kind
        if not line or line.startswith("#"):
            continue
        f = line.split("|")
        cond = dict(kv.split("=", 1) for kv in f[7].split()) if \
            len(f) > 7 and f[7] else {}
        want.append((f[0], f[1], f[2], num(f[3]), num(f[4]), num(f[5]),
                     cond, line))
    return kind, want


def close(a, b, rel):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= max(abs(b) * rel, 1e-3)


def matches(g, w):
    if g[:3] != w[:3]:
        return False
    if not close(g[3], w[3], 1e-3) or not close(g[4], w[4], 1e-3):
        return False
    if w[5] is not None and (g[5] is None or abs(g[5] - w[5]) > 0.15):
        return False
    return all(g[6].get(k) == w[6].get(k) for k in SCORED)


def run(kperfci, mbox):
    p = subprocess.run([kperfci, "series", "claims", "--json", "--mbox",
                        mbox], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    return [flat(c) for c in json.loads(p.stdout)]


def score(kperfci, fx, verbose):
    per = defaultdict(lambda: [0, 0, 0])	# kind: right, found, expected
    for name in sorted(os.listdir(fx)):
        if not name.endswith(".expected"):
            continue
        base = name[:-len(".expected")]
        kind, want = parse_expected(os.path.join(fx, name))
        got = run(kperfci, os.path.join(fx, base + ".mbox"))
        if got is None:
            got = []
            if verbose:
                print("#   %s: the command failed" % base)
        used, right = [False] * len(want), 0
        for g in got:
            for i, w in enumerate(want):
                if not used[i] and matches(g, w):
                    used[i] = True
                    right += 1
                    break
            else:
                if verbose:
                    print("#   %s: wrong: %s|%s|%s|%s|%s|%s|%s  (%s)" % (
                        base, g[0], g[1], g[2], g[3], g[4], g[5],
                        " ".join("%s=%s" % kv for kv in sorted(g[6].items())),
                        g[7][:70]))
        if verbose:
            for i, w in enumerate(want):
                if not used[i]:
                    print("#   %s: missed: %s" % (base, w[7]))
        keys = [kind, "overall"]
        if kind.startswith("held-out:"):
            keys = [kind.split(":", 1)[1], "overall", "held-out"]
        for k in keys:
            per[k][0] += right
            per[k][1] += len(got)
            per[k][2] += len(want)
    return per


def pct(a, b):
    return "%5.1f%%" % (100.0 * a / b) if b else "    - "


def main():
    fx, now = sys.argv[1], sys.argv[2]
    before = sys.argv[3] if len(sys.argv) > 3 else None
    verbose = os.environ.get("CLAIMS_VERBOSE") == "1"
    cur = score(now, fx, verbose)
    old = score(before, fx, False) if before else None
    kinds = sorted(k for k in cur if k not in ("overall", "held-out")) + \
        ["overall"] + (["held-out"] if "held-out" in cur else [])
    print("claims on the labelled corpus (%s): precision = right / found, "
          "recall = right / expected" % fx)
    hdr = "%-9s %8s %8s %8s" % ("kind", "expected", "found", "right")
    if old:
        print(hdr + "   %-17s %-17s" % ("before: P     R", "after: P      R"))
    else:
        print(hdr + "   %-8s %-8s" % ("precision", "recall"))
    for k in kinds:
        r, f, e = cur[k]
        line = "%-9s %8d %8d %8d" % (k, e, f, r)
        if old:
            o = old[k]
            line += "   %s %s    %s %s" % (pct(o[0], o[1]), pct(o[0], o[2]),
                                          pct(r, f), pct(r, e))
        else:
            line += "   %s   %s" % (pct(r, f), pct(r, e))
        print(line)
    print("(held-out: the letters marked '# set: held-out', written after "
          "the rules and not tuned to; they count in their kind and overall)")
    r, f, e = cur["overall"]
    p = r / f if f else 1.0
    rc = r / e if e else 1.0
    print("targets (precision >= 95%%, recall >= 85%%): %s" %
          ("met" if p >= 0.95 and rc >= 0.85 else "NOT met"))
    # extraction time for a 1 MB letter made of the corpus' bodies
    big = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                       "claims-1mb.%d.mbox" % os.getpid())
    src = open(os.path.join(fx, "mmtests-faults.mbox")).read()
    head, body = src.split("\n\n", 1)
    body = body.split("\n-- \n")[0]
    filler = "".join(open(os.path.join(fx, n)).read().split("\n\n", 1)[1]
                     .split("\n---\n")[0].replace("\n-- \n", "\n")
                     for n in sorted(os.listdir(fx)) if n.endswith(".mbox"))
    text = body
    while len(text) < 1 << 20:
        text += "\n" + filler
    open(big, "w").write(head + "\n\n" + text + "\n-- \n2.47.1\n")
    t0 = time.monotonic()
    run(now, big)
    t1 = time.monotonic()
    tc = os.environ.get("CLAIMS_T_CLAIMS")
    if tc and os.path.exists(tc):
        body_file = big + ".body"
        open(body_file, "w").write(text)
        out = subprocess.run([tc, "--extract-ms", body_file],
                             capture_output=True, text=True).stdout.split()
        os.unlink(body_file)
        if out:
            print("a 1 MB letter (%s bytes): claims_extract %s ms, best of 5 "
                  "(target: under 50 ms); %s claims" % (out[1], out[0],
                                                       out[2]))
    os.unlink(big)
    print("the whole `kperfci series claims` on it (mbox parse included): "
          "%.0f ms" % ((t1 - t0) * 1000))

if __name__ == "__main__":
    main()
