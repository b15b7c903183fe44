#!/bin/sh
# t0900-stats-cli: `kperfci stats compare` on generated sample files with
# known shifts (verdicts, JSON fields, reproducibility) and on bad files
# (a clear error naming the line and field).
. "$(dirname "$0")/../lib.sh"

K="$KPERFCI_BIN/kperfci"

# gen.py OUT SEED SHIFT_FAULT SHIFT_WALL: 12 boots x 5 iterations of
#   fault-free pages_per_sec (higher is better), swap wall (lower is better)
#   and read sys (unchanged), 2% boot-to-boot and 2% run-to-run noise, plus
#   a lock-profile line and an error line, which are not samples.
cat >"$T/gen.py" <<'EOF'
import json, random, sys
out, seed, sf, sw = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
r = random.Random(seed)
series = [("fault-free", "mode=shmem,tasks=4", "pages_per_sec", "pages/s", "higher", 100000.0 * (1 + sf)),
          ("swap-memhog", "memcgs=8", "wall", "s", "lower", 20.0 * (1 + sw)),
          ("file-read", "cgroups=64", "sys", "s", "lower", 5.0)]
with open(out, "w") as f:
    for boot in range(12):
        for (w, p, m, u, b, mean) in series:
            bf = 1 + 0.02 * r.gauss(0, 1)
            for it in range(5):
                v = mean * bf * (1 + 0.02 * r.gauss(0, 1))
                f.write(json.dumps({"boot": boot, "workload": w, "params": p, "iteration": it,
                                    "metric": m, "value": v, "unit": u, "better": b}) + "\n")
        f.write(json.dumps({"type": "lock-profile", "boot": boot, "locks": [["lru_lock", 12]]}) + "\n")
    f.write(json.dumps({"type": "error", "boot": 3, "message": "workload timed out"}) + "\n")
EOF

python3 "$T/gen.py" "$T/base.jsonl" 1 0 0
python3 "$T/gen.py" "$T/test.jsonl" 2 0.10 0.10
python3 "$T/gen.py" "$T/aa.jsonl" 3 0 0

ok "compare prints a table" sh -c "'$K' stats compare --base '$T/base.jsonl' --test '$T/test.jsonl' >'$T/table.txt'"
like '^fault-free:' "$T/table.txt" "table groups by workload"
like '^test: .*\(180 samples; skipped 12 lock-profile, 1 error lines\)' "$T/table.txt" "skipped lines counted"
like 'pages_per_sec .*improvement' "$T/table.txt" "+10% pages/s, higher is better: improvement"
like 'wall .*regression' "$T/table.txt" "+10% wall seconds, lower is better: regression"
like '\+ *[0-9.]+% \[ *\+[0-9.]+%, *\+[0-9.]+%\] *\*' "$T/table.txt" "significant row shows %change [CI] and is marked"
like 'sys .*no change' "$T/table.txt" "unchanged metric: no change"

ok "compare --json" sh -c "'$K' stats compare --base '$T/base.jsonl' --test '$T/test.jsonl' --json >'$T/out.json'"
cat >"$T/check.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["metric"]: r for r in d["rows"]}
f, w, s = rows["pages_per_sec"], rows["wall"], rows["sys"]
assert f["verdict"] == "improvement", f
assert w["verdict"] == "regression", w
assert s["verdict"] == "no change", s
assert 5 < f["pct_change"] < 15 and f["ci95"][0] > 0 and f["ci95"][1] > f["ci95"][0], f
assert f["p_adjusted"] <= f["alpha_look"] and f["p_test"] == "t" and f["primary"] is True, f
assert f["base"]["boots"] == 12 and f["base"]["samples"] == 60, f["base"]
assert len(f["test"]["boot_means"]) == 12, f["test"]
assert f["better"] == "higher" and w["better"] == "lower" and f["unit"] == "pages/s"
assert d["counts"]["improvement"] == 1 and d["counts"]["regression"] == 1, d["counts"]
assert d["options"]["resamples"] == 2000 and d["options"]["looks"] == 1, d["options"]
# swap-memhog is judged by wall_sec and sys_sec: a metric named "wall" is
# secondary, shown with its verdict but not in the headline
assert w["primary"] is False and w["p_test"] == "t", w
assert d["headline"] == "improvement", d["headline"]
assert d["primary_counts"]["regression"] == 0 and d["primary_counts"]["improvement"] == 1, d
# significant rows first
assert d["rows"][0]["significant"] and d["rows"][1]["significant"] and not d["rows"][2]["significant"]
print("ok")
EOF
ok "JSON fields: verdicts, %change, CI, p, boots, counts, order" python3 "$T/check.py" "$T/out.json"

"$K" stats compare --base "$T/base.jsonl" --test "$T/test.jsonl" --json --seed 7 >"$T/s7a.json"
"$K" stats compare --base "$T/base.jsonl" --test "$T/test.jsonl" --json --seed 7 >"$T/s7b.json"
"$K" stats compare --base "$T/base.jsonl" --test "$T/test.jsonl" --json --seed 8 >"$T/s8.json"
ok "same seed, same output" cmp "$T/s7a.json" "$T/s7b.json"
ok "another seed, another bootstrap" sh -c "! cmp -s '$T/s7a.json' '$T/s8.json'"
ok "--resamples is used" sh -c "'$K' stats compare --base '$T/base.jsonl' --test '$T/test.jsonl' --json --resamples 500 | grep -q '\"resamples\": 500'"

ok "A/A compare" sh -c "'$K' stats compare --base '$T/base.jsonl' --test '$T/aa.jsonl' --json >'$T/aa.json'"
ok "A/A: nothing called improvement or regression" python3 -c "
import json; d = json.load(open('$T/aa.json'))
assert d['counts']['improvement'] == 0 and d['counts']['regression'] == 0, d['counts']"

# bad files: exit 1 and an error naming the file, the line and the field
good=$(head -1 "$T/base.jsonl")
printf '%s\n%s\n' "$good" '{"boot":1,"workload":"w","params":"","iteration":0,"metric":"m","value":NaN,"unit":"s","better":"lower"}' >"$T/nan.jsonl"
printf '%s\n' '{"boot":1,"workload":"w","params":"","iteration":0,"value":1,"unit":"s","better":"lower"}' >"$T/missing.jsonl"
printf '%s\n%s\n%s\n' "$good" "" 'this is not json' >"$T/notjson.jsonl"
printf '%s\n' '{"boot":1,"workload":"w","params":"","iteration":0,"metric":"m","value":-3,"unit":"s","better":"lower"}' >"$T/neg.jsonl"
printf '%s\n' '{"type":"error","boot":1,"message":"panic"}' >"$T/failed.jsonl"

bad() {  # bad NAME FILE EXPECTED-PATTERN
	tap_n=$((tap_n + 1))
	"$K" stats compare --base "$T/base.jsonl" --test "$2" >"$T/bad.out" 2>"$T/bad.err"
	rc=$?
	if [ $rc = 1 ] && grep -Eq -- "$3" "$T/bad.err" && [ ! -s "$T/bad.out" ]; then
		echo "ok $tap_n - $1"
	else
		echo "not ok $tap_n - $1 (exit $rc)"
		tap_fail=$((tap_fail + 1))
		sed 's/^/#   /' "$T/bad.err"
	fi
}
bad "NaN value: names the line" "$T/nan.jsonl" 'nan.jsonl: line 2: not JSON'
bad "missing field: names line and field" "$T/missing.jsonl" 'missing.jsonl: line 1: field "metric": missing'
bad "not JSON: names the line" "$T/notjson.jsonl" 'notjson.jsonl: line 3: not JSON'
bad "negative seconds: names line and field" "$T/neg.jsonl" 'neg.jsonl: line 1: field "value": -3 is negative'
bad "missing file: names it" "$T/nonexistent.jsonl" 'nonexistent.jsonl: No such file'
bad "only error lines: a failed verdict" "$T/failed.jsonl" 'failed: every test boot reported no samples \(1 error lines\)'

tap_n=$((tap_n + 1))
"$K" stats compare --base "$T/base.jsonl" >/dev/null 2>"$T/usage.err"
rc=$?
if [ $rc = 2 ] && grep -q usage "$T/usage.err"; then echo "ok $tap_n - no --test: usage, exit 2"; else echo "not ok $tap_n - no --test (exit $rc)"; tap_fail=$((tap_fail + 1)); fi
tap_n=$((tap_n + 1))
"$K" stats compare --base "$T/base.jsonl" --test "$T/test.jsonl" --seed x >/dev/null 2>"$T/usage.err"
rc=$?
if [ $rc = 2 ] && grep -q -- '--seed: "x" is not a number' "$T/usage.err"; then echo "ok $tap_n - bad --seed named"; else echo "not ok $tap_n - bad --seed (exit $rc)"; tap_fail=$((tap_fail + 1)); sed 's/^/#   /' "$T/usage.err"; fi

test_done
