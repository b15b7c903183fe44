#!/bin/sh
# t1500-load-native: kperfci-load on this machine, outside any guest:
# will-it-scale page_fault1 runs and its samples parse with positive values;
# list and topo work; bad parameters and impossible requests give clear
# errors (a JSON error line and a message); workloads that need a memory
# cgroup say plainly when cgroup v2 is missing (this host mounts v1).
. "$(dirname "$0")/../lib.sh"
L=$KPERFCI_BIN/kperfci-load
[ -x "$L" ] || skip_all "no $L"

# --- page_fault1 natively ----------------------------------------------------
ok "page-fault v1 runs" sh -c "'$L' run page-fault --variant 1 --tasks 2 --seconds 1 --iterations 2 --warmup 1 --json >'$T/pf.json'"
cat >"$T/check.py" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
want_iters = int(sys.argv[2])
assert lines, "no output"
seen = {}
for l in lines:
    s = json.loads(l)
    assert set(s) == {"workload", "params", "iteration", "metric", "value", "unit", "better"}, s
    assert s["workload"] == "page-fault", s
    assert s["params"] == "dir=/tmp,mode=process,tasks=2,thp=0,variant=1", s["params"]
    assert s["better"] == "higher", s
    assert isinstance(s["value"], float) and s["value"] > 0, s
    seen.setdefault(s["metric"], []).append(s["iteration"])
assert sorted(seen) == ["ops_per_sec", "ops_per_sec_per_task"], seen
for m, its in seen.items():
    assert its == list(range(1, want_iters + 1)), (m, its)
PY
ok "page-fault samples parse, positive, warm-up not emitted" python3 "$T/check.py" "$T/pf.json" 2

# per-task ops are the total over the tasks
ok "per-task ops = total / tasks" python3 -c "
import json,sys
s=[json.loads(l) for l in open('$T/pf.json')]
t={x['iteration']:x['value'] for x in s if x['metric']=='ops_per_sec'}
p={x['iteration']:x['value'] for x in s if x['metric']=='ops_per_sec_per_task'}
assert all(abs(t[i]/2-p[i]) < 1e-3*t[i] for i in t), (t,p)"

ok "page-fault v2 (private file) and v3 (shared file), threads" sh -c "
'$L' run page-fault --variant 2 --tasks 1 --seconds 0.3 --iterations 1 --warmup 0 --mode thread --dir '$T' >'$T/v2.json' &&
'$L' run page-fault --variant 3 --tasks 1 --seconds 0.3 --iterations 1 --warmup 0 --dir '$T' >'$T/v3.json' &&
grep -q '\"metric\":\"ops_per_sec\"' '$T/v2.json' && grep -q 'variant=3' '$T/v3.json'"
is "$(ls "$T" | grep -c willitscale)" 0 "page-fault files are unlinked"

ok "--out appends to a file" sh -c "'$L' run null --tasks 1 --seconds 0.1 --iterations 2 --warmup 0 --out '$T/null.json' >'$T/null.stdout' && [ ! -s '$T/null.stdout' ] && [ \$(grep -c overhead_usec '$T/null.json') = 2 ]"

# --- list and topo -------------------------------------------------------------
ok "list" sh -c "'$L' list >'$T/list'"
for w in fault-free page-fault swap-memhog file-read memcg-flush lock-profile; do
	like "^$w" "$T/list" "list describes $w"
done
like "--variant .*default 1" "$T/list" "list shows defaults"
ok "topo --json" sh -c "'$L' topo --json >'$T/topo.json'"
ok "topo matches this machine" python3 -c "
import json,os
t=json.load(open('$T/topo.json'))
assert t['threads']==os.cpu_count(), t
assert sum(len(n['cpus']) for n in t['nodes'])==t['threads']
assert t['mem_kb']>0 and t['sockets']>=1"

# --- bad input -----------------------------------------------------------------
bad() {	# bad NAME PATTERN ARGS...: fails, one JSON error line matching, stderr too
	name=$1 pat=$2; shift 2
	"$L" "$@" >"$T/bad.out" 2>"$T/bad.err"
	rc=$?
	tap_n=$((tap_n + 1))
	if [ $rc -ne 0 ] && [ "$(wc -l <"$T/bad.out")" = 1 ] &&
	    python3 -c "import json,sys; e=json.load(open('$T/bad.out'))['error']; assert '''$pat''' in e, e" 2>/dev/null &&
	    grep -qF -- "$pat" "$T/bad.err"; then
		echo "ok $tap_n - $name"
	else
		echo "not ok $tap_n - $name (rc $rc)"
		sed 's/^/#   /' "$T/bad.out" "$T/bad.err"
		tap_fail=$((tap_fail + 1))
	fi
}
ncpu=$(getconf _NPROCESSORS_ONLN)
bad "unknown workload" 'unknown workload "frob"' run frob
bad "more tasks than CPUs" "task count $((ncpu + 1)) is more than the $ncpu online CPUs" run page-fault --tasks $((ncpu + 1))
bad "a node that does not exist" "NUMA node 7 does not exist" run page-fault --tasks node:7
bad "variant out of range" "--variant 9 is out of range 1..3" run page-fault --variant 9
bad "unknown parameter" "unknown parameter --colour" run page-fault --colour red
bad "bad fraction" 'bad fraction "1.5"' run page-fault --tasks 1.5
bad "missing value" "--variant needs a value" run page-fault --variant
bad "bad seconds" "--seconds" run page-fault --seconds -1
bad "no command" "no command"
bad "matrix file missing" "cannot read $T/none.conf" --matrix "$T/none.conf"
printf '[run "x"]\nworkload = page-fault\nvariant 2\n' >"$T/bad.conf"
bad "matrix syntax error names file:line" "$T/bad.conf:3: expected key = value" --matrix "$T/bad.conf"
ok "shipped matrix passes --check" "$L" --matrix "$SRC/etc/workloads.conf" --check

# --- lock-profile: the built-in kernel sampler, natively ----------------------
if [ "$(id -u)" = 0 ] && [ -r /proc/kallsyms ]; then
	ok "lock-profile of page-fault runs (the sampler pass)" sh -c "'$L' run lock-profile --pass profile --target page-fault --tasks 1 --seconds 0.5 --iterations 1 >'$T/lp.json'"
	ok "lock-profile line has the documented shape" python3 -c "
import json
l=open('$T/lp.json').read().splitlines()
assert len(l)==1, l
p=json.loads(l[0])
assert p['workload']=='lock-profile' and p['type']=='lock-profile', p
assert p['event'] in ('cycles','cpu-clock'), p
assert p['params']=='depth=1,dir=/tmp,event=auto,freq=999,mode=process,pass=profile,target=page-fault,tasks=1,thp=0,top=10,variant=1', p['params']
assert p['total_samples']>0 and p['top'], p
assert all(0<t['share']<=1 for t in p['top'])
assert abs(sum(t['share'] for t in p['top']))<=1.0001
for k in p['locks']:
    assert set(k)=={'lock','symbol','share','callers'}, k
    assert sum(c['share'] for c in k['callers'])<=k['share']+1e-3, k
"
	# the contention pass: samples only when something waited; each is a
	# per-lock wait metric, and an (all) row leads when there is any
	ok "lock-profile's contention pass runs" sh -c "'$L' run lock-profile --pass contention --target page-fault --tasks 2 --seconds 0.5 --iterations 1 >'$T/lc.json'"
	ok "contention samples have the documented shape" python3 -c "
import json
l=[json.loads(x) for x in open('$T/lc.json').read().splitlines()]
for s in l:
    assert s['workload']=='lock-profile' and s['metric'] in ('wait_share','wait_total','wait_count','wait_max'), s
    assert ',lock=' in ','+s['params'] and 'pass=contention' in s['params'], s
    assert s['value']>=0 and s['better']=='lower', s
if l:
    assert 'lock=(all)' in l[0]['params'], l[0]
"
else
	echo "# not root or no kallsyms: lock-profile not tested natively"
fi

# --- cgroup v2 -----------------------------------------------------------------
if [ "$(stat -fc %T /sys/fs/cgroup)" != cgroup2fs ]; then
	for w in fault-free swap-memhog file-read memcg-flush; do
		bad "$w says cgroup v2 is missing" "cgroup v2 is not available" run $w --seconds 0.1 --iterations 1
	done
	like "memcg-flush needs a cgroup v2 memory controller" "$T/bad.err" "message names the workload"
else
	echo "# cgroup v2 host: the missing-v2 messages are not testable here"
fi

# a matrix with a failing entry still runs the next one
printf '[run "a"]\nworkload = page-fault\nvariant = 9\n[run "b"]\nworkload = null\ntasks = 1\nseconds = 0.1\niterations = 1\nwarmup = 0\n' >"$T/two.conf"
"$L" --matrix "$T/two.conf" >"$T/two.out" 2>/dev/null
is "$?" 1 "matrix with a failing run exits 1"
like '^\{"error":"page-fault: --variant 9 is out of range 1..3","workload":"page-fault"\}$' "$T/two.out" "its error line names the workload"
like '"workload":"null"' "$T/two.out" "the next run still ran"

test_done
