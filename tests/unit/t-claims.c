/*
 * t-claims: claims read from text (the rules one by one) and checked
 * against comparison rows; the boots a claim needs.  The seed threads'
 * full text is checked end to end by tests/e2e/t1002-series-claims.sh.
 *
 * `t-claims --bench` (make bench-stats) checks on generated data that the
 * boots claims_boots_needed() asks for deliver the promised power with
 * the daemon's own decision rule (stats_compare, one look).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/claims.h"
#include "core/stats.h"
#include "lib/buf.h"
#include "tests/unit/tap.h"

static struct claims cs;

static const struct claim *
one(const char *body)
{
	claims_release(&cs);
	claims_extract(&cs, body, "test");
	return cs.n == 1 ? &cs.v[0] : NULL;
}

static size_t all(const char *);

static void
test_rules(void)
{
	const struct claim *c;
	size_t n;

	c = one("before after\nanon, 20 threads 3.04M 3.35M\n");
	ok(c && c->kind == CLAIM_BEFORE_AFTER && !strcmp(c->rule, "table-row")
	    && fabs(c->change_pct - 10.197) < 0.01 && c->cond.threads == 20,
	    "table-row under a before/after header: change computed");
	ok(one("anon, 20 threads 3.04M 3.35M\n") == NULL && cs.n == 0,
	    "the same row without header or change: not a claim");
	n = all("kernel build, 4K folios and 64K folios, system time:\n"
	    "                  Before (s) (stdev)  After (s) (stdev)\n"
	    "make -j96 (4K):   6445.69 (61.95)     6408.80 (69.46)\n"
	    "make -j96 (64K):  6841.71 (409.04)    6437.99 (435.55)\n");
	ok(n == 2 && !strcmp(cs.v[0].rule, "table-row") &&
	    cs.v[0].before == 6445.69 && cs.v[0].after == 6408.8 &&
	    cs.v[0].cond.threads == 96 && cs.v[0].cond.folio_kb == CLAIM_NONE &&
	    cs.v[1].cond.folio_kb == 64 && cs.v[1].metric == CLAIM_M_TIME_SYS,
	    "table-row: values with their spread in parentheses; the label's "
	    "make -jN and page size over the caption's");
	c = one("The lock share went from 64% to 20% with 96 processes.\n");
	ok(c && !strcmp(c->rule, "from-to") && c->before == 64 &&
	    c->after == 20 && c->cond.processes == 96,
	    "from-to: from N%% to M%%");
	c = one("It is 12% faster for shmem.\n");
	ok(c && c->kind == CLAIM_CHANGE && c->dir == CLAIM_DIR_BETTER &&
	    c->change_pct == 12, "pct-change: faster is better");
	c = one("Sys time is reduced by 8% on swap.\n");
	ok(c && c->dir == CLAIM_DIR_DOWN && c->change_pct == -8 &&
	    c->metric == CLAIM_M_TIME_SYS, "pct-change: reduced by N%%");
	c = one("The flush took 150ns.\n");
	ok(c && c->kind == CLAIM_LEVEL && c->metric == CLAIM_M_LATENCY &&
	    !strcmp(c->unit, "ns"), "level: a latency");
	c = one("As seen in [1], this cost 2% throughput.\n");
	ok(c == NULL && cs.n == 0, "a sentence citing other work: nothing");
	c = one("> quoted: 50% faster\n");
	ok(c == NULL && cs.n == 0, "quoted lines are not the author's claims");
	c = one("Text.\n---\nv2: 40% faster than v1\n");
	ok(c == NULL && cs.n == 0, "below --- is the changelog: skipped");
	c = one("Before:\nreal 0m2.000s\nreal 0m4.000s\nAfter:\nreal 0m1.500s\n");
	ok(c && !strcmp(c->rule, "time-block") && c->before == 3 &&
	    c->after == 1.5 && c->change_pct == -50, "time-block: means");
	ok(all("Before:\n6.07user 250.74system 4:17.26elapsed 99%CPU (0avgtext"
	    "+0avgdata 8373376maxresident)k\n0inputs+0outputs (55major+"
	    "33555018minor)pagefaults 0swaps\nAfter (1.8% faster):\n6.08user "
	    "246.09system 4:12.58elapsed 99%CPU (0avgtext+0avgdata "
	    "8373248maxresident)k\n") == 3 && cs.v[0].before == 257.26 &&
	    cs.v[0].metric == CLAIM_M_TIME_REAL && cs.v[2].after == 246.09 &&
	    cs.v[2].metric == CLAIM_M_TIME_SYS,
	    "time-block: time(1)'s default form; 99%CPU and the marker's "
	    "change are no claims");
	ok(all("Before:\nSys time: 73578.30, Real time: 864.05\nAfter: "
	    "(-54.7% sys time)\nSys time: 33314.76, Real time: 437.67\n") == 2
	    && cs.v[0].before == 864.05 && cs.v[1].after == 33314.76,
	    "time-block: 'Sys time: X, Real time: Y' lines");
	ok(all("  Before:\n    bw (  MiB/s): min= 1167, max= 1732, per=100.00%, "
	    "avg=1460.82, stdev= 4.38\n  After (+3.5%):\n    bw (  MiB/s): "
	    "min= 1285, max= 1738, per=100.00%, avg=1512.88, stdev= 4.34\n"
	    "Before: 11143285 us\nAfter: 10692644 us (+4.1%)\n") == 2 &&
	    cs.v[1].before == 11143285 && cs.v[1].metric == CLAIM_M_TIME_REAL &&
	    cs.v[0].after == 1512.88 && cs.v[0].metric == CLAIM_M_RATE,
	    "time-block: fio's avg= (never per=), a bare time after the marker");
	ok(all("* Before\nKmalloc N*alloc N*free(32): Average=355/750\n"
	    "* After\nKmalloc N*alloc N*free(32): Average=248/966\n") == 2 &&
	    cs.v[0].before == 355 && cs.v[0].after == 248 &&
	    cs.v[1].before == 750 && cs.v[1].after == 966 &&
	    cs.v[1].metric == CLAIM_M_LATENCY && cs.v[1].cond.threads ==
	    CLAIM_NONE, "time-block: '* Before' lists of Average=alloc/free "
	    "cycles, two latencies a line");
	n = all("   a) With this patch series applied:\n   real     0m0.166s\n"
	    "   @latency:\n   b) Without this patch series:\n"
	    "   real     0m0.066s\n\n2) Freeing.\n"
	    "   a) With this patch series applied:\n   real     0m0.004s\n"
	    "   b) Without this patch series:\n   real     0m0.077s\n");
	ok(n == 2 && cs.v[0].before == 0.066 && cs.v[0].after == 0.166 &&
	    cs.v[1].before == 0.077 && cs.v[1].after == 0.004,
	    "time-block: 'With this patch' first, 'Without' second: the "
	    "without block is the before");
	c = one("Results:\n- FPS improves by ~3.8%\n");
	ok(c && c->metric == CLAIM_M_RATE && c->change_pct == 3.8,
	    "pct-change: FPS is a rate");
	c = one("- Kernel cycles% drops from ~20% to ~18.7%\n");
	ok(c && c->metric == CLAIM_M_TIME_SYS && c->after == 18.7,
	    "from-to: the kernel's cycles are sys time");
	ok(all("for a 60.01s run time:\n   1440.34s available CPU time\n"
	    "      7.99s user time   (  0.55%)\n    279.13s system time ( 19.38%)"
	    "\n") == 0, "stress-ng --times lines: no claims");
	ok(all("43.23%   43.59%    0.00%  0x0     3489    415   "
	    "_find_first_and_bit\n 1.94%    0.00%    7.69%  0x0     5992    33"
	    "    cpupri_set\n") == 0, "perf c2c rows: no claims");
	c = one("We saw 30% lock contention.\nWith this patch, the lock "
	    "contention is 10%.\n");
	ok(c && !strcmp(c->rule, "level-pair") && c->before == 30 &&
	    c->after == 10, "level-pair across sentences");
	c = one("Order 4 folio with 8 threads is +7% here.\n");
	ok(c && c->cond.folio_kb == 64 && c->cond.threads == 8 &&
	    c->change_pct == 7, "conditions: order 4 is 64 kB; signed change");
}

/* The claims of body, any number. */
static size_t
all(const char *body)
{
	claims_release(&cs);
	claims_extract(&cs, body, "test");
	return cs.n;
}

static void
test_lkp(void)
{
	const struct claim *c;

	c = one("   7291345 \xc2\xb1  2%     +12.3%    8188182        "
	    "will-it-scale.per_process_ops\n");
	ok(c && !strcmp(c->rule, "lkp-row") && c->before == 7291345 &&
	    c->after == 8188182 && c->change_pct == 12.3 &&
	    c->metric == CLAIM_M_RATE && !c->has_points,
	    "lkp-row: value, %%change, value, metric");
	c = one("     44.42            -3.1       41.32        "
	    "mpstat.cpu.all.sys%\n");
	ok(c && c->has_points && c->change_pts == -3.1 &&
	    fabs(c->change_pct - (41.32 - 44.42) / 44.42 * 100) < 1e-9 &&
	    c->metric == CLAIM_M_TIME_SYS && !strcmp(c->unit, "%"),
	    "lkp-row: a '%%' metric changes in points; the relative change "
	    "comes from the values");
	c = one("     12.10            +6.2       18.33        "
	    "perf-profile.self.cycles-pp.clear_page_erms\n");
	ok(c && c->has_points && c->metric == CLAIM_M_PROFILE,
	    "lkp-row: a perf-profile row is a profile share, in points");
	c = one("     38.20           -30.3        7.90        perf-profile."
	    "calltrace.cycles-pp._raw_spin_lock_irqsave.folio_lruvec_lock\n");
	ok(c && c->metric == CLAIM_M_LOCK, "lkp-row: a lock's profile row is "
	    "lock contention");
	ok(all("     44.42                     41.32        "
	    "mpstat.cpu.all.sys%\n") == 0, "lkp-row: no change column, no claim");
	ok(all("commit:\n  9a1f3e2c7b44 (\"mm: a\")\n  3d5f7a1b9c0e (\"mm: b\")\n"
	    "\n9a1f3e2c7b44 3d5f7a1b9c0e\n---------------- -----------\n"
	    "         %stddev     %change         %stddev\n"
	    "             \\          |                \\\n") == 0,
	    "lkp: commit ids and the table's header are not claims");
	ok(all("test machine: 104 threads 2 sockets with 192G memory\n"
	    "parameters:\n\n\tnr_task: 100%\n\tmode: process\n"
	    "\truntime: 300s\n") == 0,
	    "lkp: the machine and the parameters are not claims");
	ok(all("Throughput is 5% higher.\n\nThroughput is 5% higher.\n\n"
	    "kernel test robot noticed a 12.3% improvement of "
	    "will-it-scale.per_process_ops on:\n\n"
	    "     70109 \xc2\xb1  2%     +12.3%      78732        "
	    "will-it-scale.per_process_ops\n") == 2,
	    "a repeated claim and a headline after it: both dropped, each "
	    "once (a use after free found by fuzz-claims, input kept)");
	ok(all("kernel test robot noticed a 12.3% improvement of "
	    "will-it-scale.per_process_ops on:\n\n"
	    "     70109 \xc2\xb1  2%     +12.3%      78732        "
	    "will-it-scale.per_process_ops\n") == 1 &&
	    !strcmp(cs.v[0].rule, "lkp-row"),
	    "lkp: the headline is its table's row, listed once");
	ok(all("kernel test robot noticed a 34.9% improvement of "
	    "vm-scalability.throughput on:\n\n"
	    " 7.397e+08 \xc2\xb1  6%     +34.9%  9.978e+08 \xc2\xb1  3%  "
	    "vm-scalability.throughput\n") == 1 && cs.v[0].before == 7.397e8 &&
	    cs.v[0].after == 9.978e8 && cs.v[0].metric == CLAIM_M_RATE,
	    "lkp-row: e-notation values; the headline is that row");
	c = one("   -601.85          +106.5%      -1243        "
	    "sched_debug.cpu.nr_uninterruptible.min\n");
	ok(c && c->before == -601.85 && c->after == -1243 &&
	    c->change_pct == 106.5, "lkp-row: negative values, the printed "
	    "change kept");
	ok(all("      0.06 \xc2\xb1 17%      -0.0        0.04 \xc2\xb1 28%  "
	    "vm-scalability.stddev%\n") == 0,
	    "lkp-row: the runs' stddev row claims nothing");
	c = one("      5.84 \xc2\xb1 20%    +945.2%      61.00 \xc2\xb1 11%  "
	    "perf-sched.sch_delay.avg.ms.pipe_write.vfs_write\n");
	ok(c && c->metric == CLAIM_M_LATENCY, "lkp-row: perf-sched's .ms "
	    "rows are latency");
	c = one("      3.93 \xc2\xb1 39%      -2.2        1.75 \xc2\xb1 66%  "
	    "perf-profile.children.cycles-pp.mutex_unlock\n");
	ok(c && c->metric == CLAIM_M_PROFILE, "lkp-row: mutex_unlock is a "
	    "profile share, not a lock");
	c = one("    166309           +49.5%     248702        "
	    "vm-scalability.median\n");
	ok(c && c->metric == CLAIM_M_RATE, "lkp-row: vm-scalability.median "
	    "is a rate");
	ok(all("31b2ff82aefb33ce f77171d241e379ea93448a53d58 \n"
	    "---------------- --------------------------- \n") == 0,
	    "lkp: the commit-id head of the table is no claim");
	ok(all("+------------------+---------------------------------------+\n"
	    "| testcase: change | stress-ng: stress-ng.tee.ops_per_sec 500.7% "
	    "improvement |\n"
	    "| test machine     | 64 threads 2 sockets Intel(R) Xeon(R) Gold "
	    "6346 CPU |\n"
	    "| test parameters  | cpufreq_governor=performance |\n"
	    "|                  | nr_threads=100%              |\n"
	    "+------------------+---------------------------------------+\n")
	    == 1 && !strcmp(cs.v[0].rule, "lkp-box") &&
	    cs.v[0].change_pct == 500.7 && cs.v[0].metric == CLAIM_M_RATE &&
	    cs.v[0].cond.threads == CLAIM_NONE && cs.v[0].cond.cpus ==
	    CLAIM_NONE, "lkp-box: the side table's change; its machine and "
	    "parameters are no conditions");
	ok(all("parameters:\n\n\tnr_threads: 1t\n\tdisk: 1SSD\n\n"
	    "      7623            -6.0%       7164        "
	    "fsmark.files_per_sec\n") == 1 && cs.v[0].cond.threads == 1,
	    "lkp: \"nr_threads: 1t\" is the rows' thread count");
}

static void
test_mmtests(void)
{
	size_t n;

	n = all("Amean     elsp-64       221.87 (   0.00%)      216.02 *   "
	    "2.64%*\n");
	ok(n == 1 && !strcmp(cs.v[0].rule, "mmtests-row") &&
	    cs.v[0].before == 221.87 && cs.v[0].after == 216.02 &&
	    cs.v[0].cond.threads == 64 && cs.v[0].metric == CLAIM_M_TIME_REAL &&
	    cs.v[0].change_pct < 0,
	    "mmtests-row: the base column is no claim; elsp-64 is real time "
	    "at 64 threads");
	n = all("Hmean     faults/sec-16 6210345.77 (   0.00%)  6801220.10 *   "
	    "9.51%*  7020133.45 *  13.04%*\n");
	ok(n == 2 && cs.v[0].after == 6801220.10 && cs.v[1].after ==
	    7020133.45 && cs.v[1].before == 6210345.77 &&
	    cs.v[0].metric == CLAIM_M_RATE && cs.v[1].cond.threads == 16,
	    "mmtests-row: each later column against the base");
	ok(all("Stddev    elsp-256        0.85 (   0.00%)        0.61 (  "
	    "28.24%)\nCoeffVar  elsp-256        0.62 (   0.00%)        0.46 "
	    "(  25.81%)\n") == 0, "mmtests-row: Stddev and CoeffVar rows "
	    "claim nothing (and are not 'not understood')");
	n = all("Amean     syst-256     3097.23 (   0.00%)     2804.27 *   "
	    "9.46%*\n");
	ok(n == 1 && cs.v[0].metric == CLAIM_M_TIME_SYS, "mmtests-row: syst "
	    "is sys time");
	n = all("hackbench-process-pipes\n"
	    "                          5.15.0-rc3             5.15.0-rc3\n"
	    "                             vanilla  sched-wakeeflips-v1r1\n"
	    "Amean     48       1.3977 (   0.00%)      1.2400 *  11.28%*\n\n"
	    "tbench4\n"
	    "                          5.15.0-rc3             5.15.0-rc3\n"
	    "                             vanilla  sched-wakeeflips-v1r1\n"
	    "Hmean     16       8276.02 (   0.00%)     9327.17 *  12.70%*\n");
	ok(n == 2 && cs.v[0].metric == CLAIM_M_TIME_REAL &&
	    cs.v[0].cond.threads == CLAIM_NONE && cs.v[1].metric ==
	    CLAIM_M_RATE && cs.v[1].cond.threads == 16,
	    "mmtests-row: the test names the metric; hackbench counts "
	    "groups, tbench threads");
	n = all("Percentage huge-3        96.70 (   0.00%)       98.23 (   "
	    "1.58%)\nAmean     fault-both-1         0.00 (   0.00%)        "
	    "0.00 *   0.00%*\n");
	ok(n == 1 && cs.v[0].metric == CLAIM_M_OTHER &&
	    cs.v[0].cond.threads == 3, "mmtests-row: a Percentage row is a "
	    "claim; 0.00 on both sides is none");
	n = all("Amean     fault-both-3      2582.11 (   0.00%)     2563.68 (   "
	    "0.71%)\n\nScan rates drop, by 6% for the migration scanner and "
	    "by 29% for the free scanner.\n\n"
	    "Compaction migrate scanned    20815362    19573286\n"
	    "Compaction free scanned       16352612    11510663\n"
	    "Duration User 101.23 100.87\n");
	ok(n == 3 && !strcmp(cs.v[1].rule, "mmtests-vmstat") &&
	    cs.v[2].before == 16352612 && cs.v[2].after == 11510663,
	    "mmtests-vmstat: the counts under a table, the prose saying them "
	    "listed once; Duration rows claim nothing");
}

static void
test_sweep(void)
{
	size_t n;

	n = all("+-------+---------+---------+---------+\n"
	    "| Cores | Patch 1 | Patch 2 | Patch 2 |\n"
	    "|       |    (ns) |    (ns) |    Diff |\n"
	    "+-------+---------+---------+---------+\n"
	    "|     1 |     132 |     129 | (-2.3%) |\n"
	    "|    24 |    1043 |    1015 | (-2.7%) |\n"
	    "+-------+---------+---------+---------+\n");
	ok(n == 2 && cs.v[0].before == 132 && cs.v[0].after == 129 &&
	    cs.v[0].change_pct == -2.3 && cs.v[1].cond.threads == 24 &&
	    cs.v[1].metric == CLAIM_M_LATENCY && !strcmp(cs.v[1].unit, "ns"),
	    "sweep-row: a boxed table by cores, the unit under its header");

	n = all("throughput by thread count:\n\n"
	    "  threads      base     patched    change\n"
	    "        1    512345      514201     +0.4%\n"
	    "       16   5120934     5689123    +11.1%\n");
	ok(n == 2 && !strcmp(cs.v[0].rule, "sweep-row") &&
	    cs.v[0].cond.threads == 1 && cs.v[1].cond.threads == 16 &&
	    cs.v[1].change_pct == 11.1 && cs.v[1].metric == CLAIM_M_RATE,
	    "sweep-row: a row per count, each its own thread count");
	n = all("throughput by thread count:\n\n"
	    "nr_threads       1        2        4\n"
	    "base         10.21    19.88    38.01\n"
	    "patched      10.25    20.10    39.87\n");
	ok(n == 3 && cs.v[2].cond.threads == 4 && cs.v[2].before == 38.01 &&
	    cs.v[2].after == 39.87, "sweep-row: a column per count");
	n = all("The gain grows with the thread count: 3% at 4 threads, 8% at "
	    "8 threads and 15% at 16 threads.\n");
	ok(n == 3 && cs.v[0].cond.threads == 4 && cs.v[1].cond.threads == 8 &&
	    cs.v[2].cond.threads == 16 && cs.v[2].kind == CLAIM_CHANGE &&
	    cs.v[2].change_pct == 15,
	    "a sweep in prose: each value with its own thread count");
	ok(all("Threads are pinned to CPUs and run on both sockets.\n") == 0,
	    "a sentence starting with 'Threads' is no sweep header");
	n = all("On a 512-processor machine:\n\nWithout the patches:\n"
	    "Gb Rep Threads   User      System     Wall flt/cpu/s\n"
	    " 32   3    1    1.416s    138.165s 139.050s 45073.831\n"
	    " 32   3    8    1.500s    374.008s  53.001s 16754.519\n\n"
	    "With the patches:\n"
	    " Gb Rep Threads   User      System     Wall flt/cpu/s\n"
	    " 32   3    8    1.279s    100.648s  20.039s 61724.641\n");
	ok(n == 4 && !strcmp(cs.v[0].rule, "sweep-split") &&
	    cs.v[0].metric == CLAIM_M_TIME_USER && cs.v[0].before == 1.5 &&
	    cs.v[0].after == 1.279 && cs.v[1].metric == CLAIM_M_TIME_SYS &&
	    cs.v[2].metric == CLAIM_M_TIME_REAL &&
	    cs.v[3].metric == CLAIM_M_RATE && cs.v[3].after == 61724.641 &&
	    cs.v[3].cond.threads == 8 && cs.v[3].cond.processes == CLAIM_NONE,
	    "sweep-split: a before and an after table matched by thread "
	    "count; set-up columns and '512-processor' are no claims");
	n = all("  Test          : tbench\n"
	    "  Units         : Normalized throughput\n"
	    "  Interpretation: Higher is better\n"
	    "  Clients:    tip[pct imp](CV)      new[pct imp](CV)\n"
	    "      1     1.00 [  0.00]( 0.43)     0.99 [ -0.87]( 1.34)\n"
	    "     16     1.00 [  0.00]( 1.06)     1.01 [  0.94]( 0.70)\n"
	    "  Test          : hackbench\n"
	    "  Units         : Normalized time in seconds\n"
	    "  Interpretation: Lower is better\n"
	    "  Case:           tip[pct imp](CV)      new[pct imp](CV)\n"
	    "   1-groups     1.00 [ -0.00](10.12)     1.09 [ -9.11](11.93)\n"
	    "  Test          : Various longer running benchmarks\n"
	    "  Units         : %diff in throughput reported\n"
	    "  Interpretation: Higher is better\n"
	    "  Benchmarks:                 %diff\n\n"
	    "  ycsb-cassandra             -0.54%\n\n"
	    "  hammerdb+mysql 16VU         0.76%\n");
	ok(n == 5 && !strcmp(cs.v[0].rule, "sweep-norm") &&
	    cs.v[0].cond.threads == 1 && cs.v[0].after == 0.99 &&
	    fabs(cs.v[0].change_pct + 0.87) < 1e-9 &&
	    cs.v[1].metric == CLAIM_M_RATE && cs.v[1].cond.threads == 16 &&
	    cs.v[2].metric == CLAIM_M_TIME_REAL &&
	    cs.v[2].cond.threads == CLAIM_NONE &&
	    fabs(cs.v[2].change_pct - 9.11) < 1e-9 &&
	    cs.v[3].kind == CLAIM_CHANGE && cs.v[3].change_pct == -0.54 &&
	    cs.v[4].change_pct == 0.76 && cs.v[4].cond.threads == CLAIM_NONE,
	    "sweep-norm: normalised [pct imp](CV) tables, the change turned "
	    "for lower-is-better, and a %diff table's rows");
}

static void
test_arrows(void)
{
	const struct claim *c;

	c = one("perf lock contention, lruvec lock:\n\n"
	    "    contended     1800223 -> 402117\n");
	ok(c && !strcmp(c->rule, "arrow-line") && c->before == 1800223 &&
	    c->after == 402117 && c->metric == CLAIM_M_LOCK &&
	    strstr(c->words, "contended"), "arrow-line: a contended count");
	c = one("    total wait    33.10 s -> 5.02 s\n");
	ok(c && c->before == 33.10 && c->after == 5.02 &&
	    !strcmp(c->unit, "s") && c->metric == CLAIM_M_LOCK,
	    "arrow-line: a unit after a space");
	c = one("    real  12m03s -> 9m41s\n");
	ok(c && c->before == 723 && c->after == 581 &&
	    c->metric == CLAIM_M_TIME_REAL, "arrow-line: time(1) minutes");
	c = one("real 3m05.112s -> 2m40.087s\n");
	ok(c && fabs(c->before - 185.112) < 1e-9 &&
	    fabs(c->after - 160.087) < 1e-9, "arrow-line: XmY.Zs");
	c = one("    _raw_spin_lock_irqsave      38.20% -> 7.90%\n");
	ok(c && c->metric == CLAIM_M_LOCK, "arrow-line: a spinlock's share "
	    "is lock contention");
	c = one("    clear_page_erms             12.10% -> 18.33%\n");
	ok(c && c->metric == CLAIM_M_PROFILE, "arrow-line: another function's "
	    "share is a profile share");
	ok(all("- patch 2: fix the comment (line 812 -> 815)\n"
	    "- v1 -> v2: split out the vmscan part\n"
	    "- rebased from 6.12-rc3 -> 6.13-rc1\n") == 0,
	    "line numbers, versions: no claims");
	c = one("The whole suite went from 1:02:11 to 0:58:40.\n");
	ok(c && !strcmp(c->rule, "from-to") && c->before == 3731 &&
	    c->after == 3520 && c->metric == CLAIM_M_TIME_REAL,
	    "from-to: h:mm:ss durations are real time");
	c = one("The contended count drops from 912344 to 120983.\n");
	ok(c && c->before == 912344 && c->metric == CLAIM_M_LOCK,
	    "from-to: counts with a metric word");
	ok(all("We scale from 16 to 64 threads.\n") == 0,
	    "from-to: counts of threads are conditions, not values");
}

static void
test_fio(void)
{
	size_t n;

	n = all("fio --name=test --direct=1 --numjobs=8\n"
	    "v6.2:\t\twrite: IOPS=4328, BW=8724KiB/s\n"
	    "v6.2 (patched):\twrite: IOPS=801k, BW=1565MiB/s\n");
	ok(n == 2 && !strcmp(cs.v[0].rule, "fio-line") &&
	    cs.v[0].before == 4328 && cs.v[0].after == 801000 &&
	    cs.v[1].before == 8724 && cs.v[1].after == 1602560 &&
	    cs.v[1].metric == CLAIM_M_RATE && cs.v[1].cond.threads == 8,
	    "fio-line: IOPS= and BW= of the base and the patched line, "
	    "MiB/s in KiB/s, --numjobs the threads");
	n = all("\t\tdefault\t\t\t\tpatched\nrwmixwrite=10%\n"
	    "Instance 1\tr=27.5GiB/s,w=3125MiB/s\t\tr=75.9GiB/s,w=8636MiB/s\n");
	ok(n == 2 && cs.v[0].before == 27.5 && cs.v[0].after == 75.9 &&
	    cs.v[1].before == 3125 && cs.v[1].after == 8636 &&
	    !strcmp(cs.v[1].words, "w"),
	    "fio-line: r=/w= groups side by side; a setting is no claim");
	ok(all("fio -rw=rw -rwmixwrite=[10,30,50] --numjobs=252\n\n"
	    "Good gains for 30% and 50%.  For the 30% rwmixwrite mix the lock "
	    "contention numbers look like this.\n") == 0,
	    "fio-line: a percentage that is one of fio's rwmix settings is "
	    "that setting");
	n = all("perf-lock contention default\n"
	    " contended   total wait     max wait     avg wait         type   "
	    "caller\n\n"
	    "   9448820     14.96 m       1.54 ms     95.01 us     spinlock   "
	    "folio_lruvec_lock_irqsave+0x64\n"
	    "      4147     22.78 s     122.66 ms      5.49 ms     spinlock   "
	    "page_vma_mapped_walk+0x6f3\n\n"
	    "perf-lock contention patched\n"
	    " contended   total wait     max wait     avg wait         type   "
	    "caller\n\n"
	    "  58671816      2.50 h     519.68 us    153.45 us     spinlock   "
	    "folio_lruvec_lock_irqsave+0x70\n"
	    "        91    204.62 us      4.51 us      2.25 us     spinlock   "
	    "cluster_move+0x2e\n");
	ok(n == 4 && !strcmp(cs.v[0].rule, "perf-lock-pair") &&
	    cs.v[0].before == 9448820 && cs.v[0].after == 58671816 &&
	    cs.v[1].before == 14.96 && fabs(cs.v[1].after - 150) < 1e-9 &&
	    fabs(cs.v[2].after - 0.51968) < 1e-9 &&
	    cs.v[3].metric == CLAIM_M_LOCK,
	    "perf-lock-pair: the tables before and after matched by caller, "
	    "the after in the before's unit; a caller of one table only is "
	    "no claim");
}

static void
test_prose(void)
{
	const struct claim *c;
	size_t n;

	n = all("will-it-scale page_fault2 improves by 7.5% and the memhog "
	    "test's sys time drops from 629.1s to 457.5s.\n");
	ok(n == 2 && cs.v[0].kind == CLAIM_CHANGE && cs.v[0].change_pct == 7.5 &&
	    cs.v[0].metric == CLAIM_M_NONE &&
	    !strcmp(cs.v[0].cond.workload, "page-fault") &&
	    cs.v[1].kind == CLAIM_BEFORE_AFTER &&
	    cs.v[1].metric == CLAIM_M_TIME_SYS && cs.v[1].before == 629.1 &&
	    !strcmp(cs.v[1].cond.workload, "swap-memhog"),
	    "two claims in one sentence, each with its own metric");
	n = all("lru-file-mmap-read gets 17%-47% faster on 4-socket servers "
	    "but 3%-8% slower on 2-socket ones.\n");
	ok(n == 2 && cs.v[0].kind == CLAIM_CHANGE && cs.v[0].change_pct == 17 &&
	    cs.v[0].dir == CLAIM_DIR_BETTER && cs.v[1].change_pct == -3,
	    "a range 'N%-M% faster' is its lower bound, with its word");
	c = one("perf c2c shows the cycles per load dropping from ~2.2K-8.7K "
	    "to ~0.5K-2.2K.\n");
	ok(c && c->metric == CLAIM_M_LATENCY && c->before == 2200 &&
	    c->after == 500, "from-to: ranges by their lower bounds; cycles "
	    "per load are a cost");
	c = one("The zone lock contention drops.  The cache miss rate stays at "
	    "0.2%.\n");
	ok(c && c->kind == CLAIM_LEVEL && c->metric == CLAIM_M_OTHER &&
	    c->before == 0.2, "level: a cache miss rate is its own metric");
	c = one("The spinlock contention cycles% goes from 46.1% down to "
	    "21.3%.\n");
	ok(c && c->kind == CLAIM_BEFORE_AFTER && c->before == 46.1 &&
	    c->after == 21.3, "from-to: 'from X down to Y' is a pair, no level");
	c = one("bonnie++ sequential creates go from about 2200/s to about "
	    "2500/s, roughly a 14% improvement.\n");
	ok(c && c->before == 2200 && c->after == 2500 && c->change_pct == 14 &&
	    c->metric == CLAIM_M_RATE, "from-to: hedged values per second, "
	    "and the author's change of the pair is the pair's");
	c = one("the network bandwidth of lmbench's test with 16-pair processes "
	    "increases 70.5% with the patch.\n");
	ok(c && c->metric == CLAIM_M_RATE && c->change_pct == 70.5 &&
	    c->cond.processes == CLAIM_NONE,
	    "'16-pair' is no value and no count: the bandwidth is the metric");
	n = all("The kernel test robot had reported a -7.2% per_thread_ops "
	    "regression of the old layout.  Putting mmap_lock in an isolated "
	    "cacheline buys an extra 3.6% of SMP scalability.\n");
	ok(n == 1 && cs.v[0].change_pct == 3.6 &&
	    cs.v[0].dir == CLAIM_DIR_BETTER, "the problem a robot had "
	    "reported is no claim; 'buys an extra N%' is a gain");
	n = all("Throughput improves by 4% with 8 threads and by 11% with 64 "
	    "threads.\n");
	ok(n == 2 && cs.v[0].cond.threads == 8 && cs.v[1].cond.threads == 64 &&
	    cs.v[1].kind == CLAIM_CHANGE && cs.v[1].metric == CLAIM_M_RATE,
	    "each number its own thread count; the metric from the head");
	n = all("The sys time drops from 629.1s to 457.5s with memhog. The "
	    "memhog test runs 32 processes in 32 memcgs.\n");
	ok(n == 1 && cs.v[0].cond.processes == 32 && cs.v[0].cond.memcgs == 32,
	    "a set-up sentence after a claim fills in its counts");
	ok(all("We set memory.high to 80% of memory.max for every memcg.\n") ==
	    0, "configuration is not a claim (nor not understood)");
	ok(all("About 25% of the time spent holding lru_lock goes to the "
	    "stats. No functional change; 100% of callers are converted.\n") ==
	    0, "a share of what no metric names is not a claim");
	ok(all("The throttle sleeps in 20 ms steps.\n") == 0,
	    "a duration nothing measures is not a claim");
	n = all("A root flush took 69us idle and ~0.9ms with 128 memcgs.\n");
	ok(n == 1 && cs.v[0].kind == CLAIM_LEVEL && cs.v[0].before == 69,
	    "a context sentence is listed once");
	n = all("page_fault2 gains 10%-18% on 4-socket machines.\n");
	ok(n == 1 && cs.v[0].change_pct == 10 && cs.v[0].dir ==
	    CLAIM_DIR_BETTER, "a range: its lower end, not a -18%% drop");
	n = all("As a result:\n- throughput improves by ~3.8%\n- sys time "
	    "drops from ~20.1% to ~18.7%\n");
	ok(n == 2 && cs.v[0].metric == CLAIM_M_RATE &&
	    cs.v[1].metric == CLAIM_M_TIME_SYS, "list items are sentences");
	n = all("the GET throughput up 3.2%, with the p50 latency unchanged at "
	    "0.175ms.\n");
	ok(n == 2 && cs.v[0].dir == CLAIM_DIR_UP && cs.v[1].kind ==
	    CLAIM_LEVEL && cs.v[1].metric == CLAIM_M_LATENCY,
	    "up N%%: a change; a latency level in the next clause");
	ok(all("Tested on v6.12-rc4 (commit 6d4675e60135) with 4 CPUs, 8G of "
	    "memory, 2 runs each, on 2024-11-04.\n") == 0,
	    "versions, commit ids, machine sizes, counts, dates: nothing");
	n = all("    IOPS        412k -> 498k\n"
	    "    bandwidth   1.61 GiB/s -> 1.94 GiB/s\n"
	    "dTLB-load-misses go from 2,345,678 to 1,234,567.\n");
	ok(n == 3 && cs.v[0].before == 412000 && cs.v[1].metric == CLAIM_M_RATE &&
	    !strcmp(cs.v[1].unit, "GiB/s") && cs.v[2].before == 2345678 &&
	    cs.v[2].metric == CLAIM_M_OTHER,
	    "k suffixes, GiB/s, thousands separators; a perf stat counter");
	n = all("| workload                | base    | patched | delta  |\n"
	    "|-------------------------|---------|---------|--------|\n"
	    "| page_fault1, 16 threads | 1234567 | 1301234 | +5.4%  |\n");
	ok(n == 1 && !strcmp(cs.v[0].rule, "table-row") &&
	    cs.v[0].cond.threads == 16 && cs.v[0].change_pct == 5.4,
	    "a markdown table row");
	ok(all("netperf UDP_RR is unchanged (within 0.5%).\n") == 0,
	    "a tolerance is not a claim");
	ok(all("Success rates stay near 100% even under pressure.\n") == 0,
	    "a bound (\"near 100%\") is not a claim");
	n = all("  hackbench -g 16 -l 10000 (process, pipe): 2.31s -> 2.18s\n");
	ok(n == 1 && cs.v[0].metric == CLAIM_M_TIME_REAL && cs.v[0].after ==
	    2.18, "arrow-line: a benchmark's command line as its label");
	claims_release(&cs);
	claims_extract(&cs, "It is 12% faster for shmem.\n", "cover letter");
	claims_extract(&cs, "It is 12% faster for shmem.\n", "patch 1/1");
	ok(cs.n == 1, "identical claims are listed once");
}

static void
test_check(void)
{
	struct claim c = { .kind = CLAIM_BEFORE_AFTER, .metric = CLAIM_M_RATE,
	    .has_change = 1, .change_pct = 30 };
	struct claim_row rows[] = {
		{ "fault-free", "mode=shmem,tasks=node,ntasks=2",
		    "pages_per_sec", "improvement", 1, 14, 10, 18, 1, 0.01, 1 },
		{ "fault-free", "mode=shmem,tasks=all,ntasks=4",
		    "pages_per_sec", "improvement", 1, 28, 25, 33, 1, 0.01, 1 },
		{ "swap-memhog", "groups=4,ntasks=4", "wall_sec", "no change",
		    -1, 0.2, -1.5, 1.8, 1, 0.01, 1 },
	};
	struct claim_check k;

	c.cond.threads = 80;
	c.cond.cpus = 80;
	c.cond.folio_kb = c.cond.processes = c.cond.memcgs = CLAIM_NONE;
	strcpy(c.cond.workload, "fault-free");
	strcpy(c.cond.mode, "shmem");
	claims_check(&c, rows, 3, &k);
	ok(k.row == 1 && k.verdict == CLAIM_CONSISTENT,
	    "80 of 80 threads maps to tasks=all; +30%% in [25, 33]: consistent");
	c.cond.threads = 20;
	claims_check(&c, rows, 3, &k);
	ok(k.row == 0 && k.verdict == CLAIM_SMALLER,
	    "20 of 80 maps to the smaller count; [10, 18] < 30: smaller");
	c.change_pct = -30;
	claims_check(&c, rows, 3, &k);
	ok(k.verdict == CLAIM_OPPOSITE, "a claimed drop, measured rise: opposite");
	c.change_pct = 12;
	claims_check(&c, rows, 3, &k);
	ok(k.verdict == CLAIM_CONSISTENT, "12 in [10, 18]: consistent");
	ok(strstr(k.why, "20 threads of the author's 80 CPUs") &&
	    strstr(k.why, "ntasks=2"), "why: the share that chose the row "
	    "(%s)", k.why);
	c.cond.cpus = CLAIM_NONE;
	c.cond.threads = 3;
	claims_check(&c, rows, 3, &k);
	ok(k.row == 1 && strstr(k.why, "nearest task count, ntasks=4"),
	    "3 threads, no machine size: the nearest count, 4, and why (%s)",
	    k.why);
	c.cond.threads = 2;
	claims_check(&c, rows, 3, &k);
	ok(k.row == 0, "2 threads: the row with 2 tasks");
	c.cond.threads = 20;
	c.cond.cpus = 80;

	memset(&c.cond, 0, sizeof(c.cond));
	c.cond.threads = c.cond.cpus = c.cond.folio_kb = CLAIM_NONE;
	c.cond.processes = c.cond.memcgs = CLAIM_NONE;
	strcpy(c.cond.workload, "swap-memhog");
	c.kind = CLAIM_CHANGE;
	c.metric = CLAIM_M_NONE;
	c.dir = CLAIM_DIR_BETTER;
	c.change_pct = 25;
	claims_check(&c, rows, 3, &k);
	ok(k.row == 2 && k.has_expected && k.expected_pct == -25 &&
	    k.verdict == CLAIM_NOT_REPRODUCED,
	    "25%% better on a lower-is-better time: -25%%; CI holds 0: not reproduced");
	rows[2].exercised = 0;
	claims_check(&c, rows, 3, &k);
	ok(k.verdict == CLAIM_NOT_MEASURED && strstr(k.why, "did not run"),
	    "a row whose changed code never ran: not measured here, with why");
	strcpy(c.cond.workload, "memcg-flush");
	claims_check(&c, rows, 3, &k);
	ok(k.row == -1 && k.verdict == CLAIM_NOT_MEASURED,
	    "no row of the workload: not measured here");
	{
		struct claim_row lk[] = {
			{ "lock-contention", "lock=lru_lock,ntasks=4",
			    "wait_share", "improvement", -1, -40, -50, -30, 1,
			    0.01, 1 },
			{ "lock-contention", "lock=lru_lock,ntasks=4",
			    "wait_count", "improvement", -1, -70, -80, -60, 1,
			    0.01, 1 },
		};
		struct claim l = c;

		l.kind = CLAIM_BEFORE_AFTER;
		l.metric = CLAIM_M_LOCK;
		l.words = "contended";
		l.change_pct = -77.7;
		l.dir = CLAIM_DIR_NONE;
		strcpy(l.cond.lock, "lru_lock");
		l.cond.workload[0] = '\0';
		claims_check(&l, lk, 2, &k);
		ok(k.row == 1 && k.verdict == CLAIM_CONSISTENT,
		    "a contended count maps to the lock's wait_count row");
		l.words = "lock contention";
		claims_check(&l, lk, 2, &k);
		ok(k.row == 0, "a lock share maps to wait_share");
		l.metric = CLAIM_M_PROFILE;
		l.words = "clear_page_erms";
		claims_check(&l, lk, 2, &k);
		ok(k.row == -1 && k.verdict == CLAIM_NOT_MEASURED &&
		    strstr(k.why, "clear_page_erms"),
		    "a profile share: not measured here, and why");
	}
	c.kind = CLAIM_LEVEL;
	claims_check(&c, rows, 3, &k);
	ok(k.verdict == CLAIM_CONTEXT, "a level is context, not checked");
	c.kind = CLAIM_UNKNOWN;
	claims_check(&c, rows, 3, &k);
	ok(k.verdict == CLAIM_NOT_UNDERSTOOD, "unknown stays not understood");
}

static void
test_boots(void)
{
	int n5 = claims_boots_needed(1.5, 5, 0.05, 0.95);
	int n3 = claims_boots_needed(1.5, 3, 0.05, 0.95);
	int n20 = claims_boots_needed(1.5, 20, 0.05, 0.95);

	/* normal approximation: 2 (1.96 + 1.645)^2 (1.5/5)^2 = 2.34; the
	   t quantiles at so few degrees of freedom make it 4, and the one
	   boot of margin 5 */
	ok(n5 >= 4 && n5 <= 6, "5%% at 1.5%% noise: %d boots per side", n5);
	ok(n3 > n5, "a smaller effect needs more boots (%d > %d)", n3, n5);
	/* the smallest n the t test can work with (2), plus the margin;
	   a monotone search, not an iteration that oscillates between
	   df 2 and df 6 */
	ok(n20 == 3, "a 20%% effect: the minimum, 2, and the margin (%d)",
	    n20);
	ok(claims_boots_needed(1.095, 10, 0.008, 0.95) >= 3,
	    "a 10%% effect at 1.1%% noise and alpha 0.008: %d (2 would have "
	    "48.8%% power: bench-stats)",
	    claims_boots_needed(1.095, 10, 0.008, 0.95));
	ok(claims_boots_needed(0, 5, 0.05, 0.95) == -1 &&
	    claims_boots_needed(1, 0, 0.05, 0.95) == -1,
	    "no noise or no effect: -1");
	ok(claims_boots_needed(1.5, 5, 0.01, 0.95) > n5,
	    "a stricter level needs more boots");
}

/* ---- bench ------------------------------------------------------------ */

#define BENCH_ITERS	5

static void
bench_side(gsl_rng *r, struct stats_set *s, int nb, double sb, double sr,
    double factor)
{
	for (int b = 0; b < nb; b++) {
		double bf = 1 + sb * gsl_ran_gaussian(r, 1);

		for (int i = 0; i < BENCH_ITERS; i++) {
			struct stats_sample x = {
				.boot = b, .workload = "sim", .params = "",
				.metric = "m", .unit = "ops/s",
				.better = STATS_HIGHER, .iteration = i,
			};

			x.value = 1000 * factor * bf *
			    (1 + sr * gsl_ran_gaussian(r, 1));
			if (stats_set_add(s, &x, NULL, 0))
				abort();
		}
	}
}

static int
bench(int reps)
{
	/* boot noise, run noise, effect (all %) */
	static const double cells[][3] = { { 1.5, 1, 5 }, { 1.5, 1, 3 },
	    { 3, 2, 5 }, { 1, 1, 10 }, { 3, 3, 20 } };
	struct stats_opts o;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	stats_opts_init(&o);
	o.looks = 1;
	printf("boots per side a claim needs (claims_boots_needed, 95%% power "
	    "at alpha %.3g, one look) and the power the daemon's rule then "
	    "has: %d comparisons per cell, %d runs per boot\n", o.alpha, reps,
	    BENCH_ITERS);
	printf("%-9s %-8s %-7s %6s %8s\n", "boot sd", "run sd", "effect",
	    "boots", "power%");
	for (size_t c = 0; c < sizeof(cells) / sizeof(cells[0]); c++) {
		double sb = cells[c][0] / 100, sr = cells[c][1] / 100;
		double cv = 100 * sqrt(sb * sb + sr * sr / BENCH_ITERS);
		int n = claims_boots_needed(cv, cells[c][2], o.alpha, 0.95);
		int hit = 0;

		gsl_rng_set(r, 42 + c);
		for (int k = 0; k < reps; k++) {
			struct stats_set a, b;
			struct stats_result res;

			stats_set_init(&a);
			stats_set_init(&b);
			bench_side(r, &a, n, sb, sr, 1);
			bench_side(r, &b, n, sb, sr, 1 + cells[c][2] / 100);
			stats_compare(&a, &b, &o, &res);
			if (res.n == 1 && res.rows[0].verdict ==
			    STATS_IMPROVEMENT)
				hit++;
			stats_result_release(&res);
			stats_set_release(&a);
			stats_set_release(&b);
		}
		printf("%6.1f%%   %5.1f%%   %5.1f%% %6d %8.1f\n", cells[c][0],
		    cells[c][1], cells[c][2], n, 100.0 * hit / reps);
		fflush(stdout);
	}
	gsl_rng_free(r);
	return 0;
}

/*
 * A table row after a paragraph that grew the line buffer: the previous
 * sentence's prefix pointed into the buffer it moved (a use after free
 * under ASan, found by fuzz-claims; its input is kept in the corpus).
 */
static void
test_prefix_lifetime(void)
{
	struct buf t = BUF_INIT(0);
	const struct claim *c = NULL;
	size_t i;

	buf_addstr(&t, "At 64 memcgs it is faster by 5% here.\n\n");
	for (i = 0; i < 600; i++)
		buf_addstr(&t, "word ");
	buf_addstr(&t, "\nanon, 20 threads 3.04M 3.35M +10.2%\n");
	claims_release(&cs);
	claims_extract(&cs, t.data, "test");
	for (i = 0; i < cs.n; i++)
		if (!strcmp(cs.v[i].rule, "table-row"))
			c = &cs.v[i];
	ok(c && c->cond.threads == 20 && c->cond.memcgs == CLAIM_NONE,
	    "a table row after a long paragraph: its own conditions, none "
	    "from a sentence whose text has moved");
	buf_release(&t);
}

/* `t-claims --extract-ms FILE`: CPU ms claims_extract takes on FILE's text
   (make bench-claims: the 50 ms target for a 1 MB letter). */
static int
extract_ms(const char *path)
{
	FILE *f = fopen(path, "r");
	struct buf b = BUF_INIT(0);
	char chunk[65536];
	size_t n;
	struct timespec t0, t1;
	double best = 1e9;

	if (!f)
		return 1;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	for (int r = 0; r < 5; r++) {
		claims_release(&cs);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		claims_extract(&cs, b.data ? b.data : "", "bench");
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
		if ((t1.tv_sec - t0.tv_sec) * 1e3 +
		    (t1.tv_nsec - t0.tv_nsec) / 1e6 < best)
			best = (t1.tv_sec - t0.tv_sec) * 1e3 +
			    (t1.tv_nsec - t0.tv_nsec) / 1e6;
	}
	printf("%.1f %zu %zu\n", best, b.len, cs.n);
	claims_release(&cs);
	buf_release(&b);
	return 0;
}

/* A "---" heading underline is no cut line; git's cut line is; a table
   of "before / after / delta" groups. */
static void
test_sections(void)
{
	const struct claim *c;
	size_t n;

	n = all("Tests\n---\n\nThe fault rate improves by 12%.\n");
	ok(n == 1 && cs.v[0].kind == CLAIM_CHANGE &&
	    fabs(cs.v[0].change_pct - 12) < 1e-9,
	    "under a \"Tests\" underline the letter goes on");
	n = all("Signed-off-by: A <a@x.org>\n---\nThe fault rate improves by 12%.\n");
	is_int(n, 0, "after a trailer \"---\" is the cut line");
	n = all("Some text\n---\n mm/x.c | 2 +-\nThe fault rate improves by 12%.\n");
	is_int(n, 0, "a \"---\" with the diffstat below it is the cut line");
	n = all("\n---\nThe fault rate improves by 12%.\n");
	is_int(n, 0, "a \"---\" after a blank line is the cut line");

	n = all("   make -j<NR>     |   System Time (seconds)  |   Total Time (seconds)\n"
	    " (NR / Mem / ZRAM) | (Before / After / Delta) | (Before / After / Delta)\n"
	    " With 4k pages only:\n"
	    "  6 / 192M / 3G    |    5258 /  5235 / -0.3%  |    1420 /  1414 / -0.3%\n"
	    " With 64k mTHP:\n"
	    " 24 / 512M / 5G    |    5104 /  4641 / -18.7% |     376 /   358 / -4.8%\n");
	ok(n == 4, "group table: a claim per metric column of each row (%zu)", n);
	c = n == 4 ? &cs.v[0] : NULL;
	ok(c && !strcmp(c->rule, "group-row") && c->metric == CLAIM_M_TIME_SYS &&
	    c->before == 5258 && c->after == 5235 &&
	    fabs(c->change_pct + 0.3) < 1e-9 && c->cond.threads == 6 &&
	    c->cond.folio_kb == CLAIM_NONE,
	    "sys time 5258 -> 5235, the row's -0.3%, at -j6");
	c = n == 4 ? &cs.v[1] : NULL;
	ok(c && c->metric == CLAIM_M_TIME_REAL && c->before == 1420,
	    "\"Total Time\" is the real time");
	c = n == 4 ? &cs.v[2] : NULL;
	ok(c && c->cond.threads == 24 && c->cond.folio_kb == 64 &&
	    fabs(c->change_pct - (4641.0 - 5104) / 5104 * 100) < 1e-9,
	    "under \"With 64k mTHP:\": 64 kB folios; a Delta its numbers "
	    "disagree with (-18.7%% for -9.1%%) gives way to theirs");
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--bench"))
		return bench(argc > 2 ? atoi(argv[2]) : 400);
	if (argc > 2 && !strcmp(argv[1], "--extract-ms"))
		return extract_ms(argv[2]);
	test_rules();
	test_lkp();
	test_mmtests();
	test_sweep();
	test_arrows();
	test_fio();
	test_prose();
	test_prefix_lifetime();
	test_check();
	test_boots();
	test_sections();
	claims_release(&cs);
	return tap_done();
}
