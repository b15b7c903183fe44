/*
 * claims: quantitative claims read from a series' own text, and checked
 * (see claims.h).
 *
 * How a body is read.  Quoted lines ('>'), the diff, the "---" changelog
 * and the signature are skipped, and so are lines that are not the
 * author's measurements: trailers, shell commands of a reproducer,
 * dmesg, a kernel test robot's parameters, a pasted perf profile (perf
 * report, perf c2c), stress-ng's --times lines.  A line
 * that is data (a table row, a time(1) line, a "name before -> after"
 * line) is read as a line by the line rules; the other lines form
 * paragraphs cut into sentences, read by the sentence rules.
 *
 * One claim per number, or per pair of numbers (before, after).  Its
 * metric words come from its own clause (a sentence cut at ", ", "; ",
 * " and ", " but ", " while "), then the text back to the previous
 * claim's number, then the sentence's head (up to its first number); a
 * sentence with no metric words at all speaks of the table above it (its
 * caption's metric).  Its counts (threads, processes, CPUs, memcgs) are
 * the ones nearest to it in its clause, then in the text between its
 * neighbours' numbers, then in the sentence's head, then in the head of
 * the sentence before it in the paragraph ("With 32 processes, ... .  The
 * average wait ...").  A sentence that names counts and claims nothing
 * after a sentence that claimed something of the same workload fills in
 * what that claim did not say ("... the memhog test's sys time drops from
 * A to B.  The memhog test runs 32 processes in 32 memcgs.").  A line
 * rule's claim takes its label's conditions, then its caption's (the
 * last sentence ending in ':' or naming a metric), then the set-up's
 * (the last sentence that named counts and claimed nothing).
 *
 * Never a claim: a number in a sentence citing other work ("[1]",
 * "commit f26b3fa04611"), versions ("v6.12-rc4", "6.12-rc3 -> 6.13-rc1"),
 * counts ("80 threads", "3 of 4 patches", "line 812"), machine and
 * memory sizes ("384G"), configuration ("memory.high at 80% of
 * memory.max"), a share of something that is no metric ("25% of the
 * time ... goes to", "100% of callers"), a duration nothing measures
 * ("sleeps in 20 ms steps").  A '%' a sentence gives without a rule that
 * reads it ("100% cosmetic") is kept as text, CLAIM_UNKNOWN.  A sentence
 * gives at most one level (context); identical claims are listed once,
 * and a kernel test robot's headline is its table's row.
 *
 * The rules (keep this list and the code in step):
 *   lkp-row       "  7291345 ±  2%  +12.3%  8188182  will-it-scale.workload":
 *                 value ("7.397e+08", "-601.85"), %change (points for
 *                 '%' and perf-profile metrics), value, metric; a row
 *                 without a change, and a stddev row, claims nothing; the
 *                 commit-id head above the rows is skipped, and
 *                 "nr_threads: 1t" gives the rows' thread count
 *   lkp-box       "| testcase: change | stress-ng: ...ops_per_sec 10.5%
 *                 regression |": one change; the box's machine and
 *                 parameter rows claim nothing
 *   mmtests-row   "Amean  elsp-64  221.87 ( 0.00%)  216.02 *  2.64%*": the
 *                 first column is the base, each later column a claim;
 *                 the label gives the metric ("elsp", "syst", "user",
 *                 "tput", "faults/sec") and the thread count ("-64");
 *                 Stddev, CoeffVar, Min, Max and BAmean rows claim nothing;
 *                 a bare count label takes its metric from the test's
 *                 name line or caption ("hackbench-process-pipes": time,
 *                 groups are no threads; "tbench4": rate at N threads);
 *                 "Percentage huge-3" rows claim; 0.00 -> 0.00 does not
 *   mmtests-vmstat "Compaction migrate scanned  20815362  19573286" under
 *                 an mmtests table: a label and two counts; the prose
 *                 percentage that says the same row is listed once
 *   sweep-row     a table by thread (process, CPU) count: "threads base
 *                 patched change" then "16 5120934 5689123 +11.1%", or
 *                 "nr_threads 1 2 4 8" then a base and a patched row; one
 *                 claim per count; boxed "| Cores | Patch 1 | Patch 2 |"
 *                 tables with a "(ns)" unit line under the header
 *   sweep-split   "Without the patches:" and "With the patches:" tables
 *                 under the same header "Gb Rep Threads User System Wall
 *                 flt/cpu/s": rows matched by the count, one claim per
 *                 column that names a metric (set-up columns claim nothing)
 *   sweep-norm    normalised tables: "Test : tbench", "Units", "Interpretation:
 *                 Lower is better", "Clients: tip[pct imp](CV) new[pct
 *                 imp](CV)" rows: each later column a claim, its change the
 *                 pct imp (turned for lower-is-better; CV is spread); a
 *                 "%diff" table's rows are changes
 *   fio-line      "v6.2: write: IOPS=4328, BW=8724KiB/s" then "(patched):
 *                 write: IOPS=801k, BW=1565MiB/s" (in the base's unit);
 *                 "Instance 1 r=27.5GiB/s,w=3125MiB/s r=75.9GiB/s,...";
 *                 the command's --numjobs are the threads, and a
 *                 percentage that is one of its -rwmixwrite=[10,30,50]
 *                 names that setting ("for rw 10%"), no claim
 *   perf-lock-pair a "perf lock contention" table, then another: rows
 *                 matched by caller, contended and the three waits before
 *                 and after (in the before's unit)
 *   arrow-line    "contended 1800223 -> 402117", "total wait 33.10 s ->
 *                 5.02 s", "real 12m03s -> 9m41s", "_raw_spin_lock 38.2%
 *                 -> 7.9%": a short label and two values
 *   table-row     "shmem, 80 threads  7.94M  10.33M  (+30%)": a label, a
 *                 before and an after value, an optional change; without
 *                 the change only under a "before after" header, where
 *                 each value may carry its spread ("6445.69 (61.95)"); the
 *                 label's "make -j96" is the threads, "(64K)" the folio
 *                 size and "(4K)" none, over the caption's
 *   time-block    "Before:" / "After:" ("After (1.8% faster):", "* Before",
 *                 "a) With this patch series applied:" then "b) Without
 *                 this patch series:", either first)
 *                 followed by time(1) lines (real, user, sys; its default
 *                 "6.07user 250.74system 4:17.26elapsed 99%CPU", never the
 *                 CPU share), "Sys time: X, Real time: Y", fio's "bw ...
 *                 avg=" and "iops ... avg=" (never per=), a bare "94055.61
 *                 qps" or "11143285 us", "Average=355/750" (alloc/free
 *                 cycles): the mean of each before vs after
 *   from-to       "from 64% to 20%", "64% -> 20%", "from 629.1s to
 *                 457.5s", "from 1:02:11 to 0:58:40", "from 912344 to
 *                 120983" (counts only with a metric word in the clause)
 *   pct-change    "~25% improvement", "60% ... contention reduction",
 *                 "+15%", "reduced by 20%", "up 3.2%", "The gain grows:
 *                 3% at 4 threads"
 *   level         "52.8% of all cycles spent spinning on lru_lock",
 *                 "took 69us", "dropped to 43%": one value, one a sentence
 *   level-pair    a level, then a sentence "With this patch ..." giving a
 *                 level of the same metric: before and after
 */
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_cdf.h>
#include <jansson.h>

#include "core/claims.h"
#include "core/series.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

#define CLAIMS_MAX		256	/* per series: a sane bound */
#define CLAIMS_SENTENCE_MAX	2048
#define CLAIMS_TOK_MAX		24	/* tokens a data line is read by */
#define CLAIMS_SWEEP_MAX	16	/* columns of a sweep table */
#define CLAIMS_TB_SLOTS		24	/* figures of a time-block */

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- words ---------------------------------------------------------- */

/*
 * Metric words: what a claim measures, which workload and lock it names.
 * Matched case-insensitively as substrings of the claim's words; the
 * first entry with a metric class gives the claim's class.
 */
static const struct claim_word {
	const char	*pat;
	const char	*word;		/* canonical, for metric_words */
	enum claim_metric metric;	/* CLAIM_M_NONE: only a hint */
	const char	*workload;	/* hint or NULL */
	const char	*lock;		/* hint or NULL */
} claim_words[] = {
	{ "pages per second", "pages/s", CLAIM_M_RATE, "fault-free", NULL },
	{ "pages/s", "pages/s", CLAIM_M_RATE, "fault-free", NULL },
	{ "throughput", "throughput", CLAIM_M_RATE, NULL, NULL },
	{ "bandwidth", "bandwidth", CLAIM_M_RATE, NULL, NULL },
	{ "cache miss rate", "cache miss rate", CLAIM_M_OTHER, NULL, NULL },
	{ "fps", "FPS", CLAIM_M_RATE, NULL, NULL },
	{ "ops/s", "ops/s", CLAIM_M_RATE, NULL, NULL },
	{ "operations per second", "ops/s", CLAIM_M_RATE, NULL, NULL },
	{ "per_process_ops", "per_process_ops", CLAIM_M_RATE, "page-fault",
	    NULL },
	{ "per_thread_ops", "per_thread_ops", CLAIM_M_RATE, "page-fault",
	    NULL },
	{ "faults/s", "faults/s", CLAIM_M_RATE, "page-fault", NULL },
	{ "page fault1", "page_fault1", CLAIM_M_NONE, "page-fault", NULL },
	{ "page_fault1", "page_fault1", CLAIM_M_NONE, "page-fault", NULL },
	{ "page_fault2", "page_fault2", CLAIM_M_NONE, "page-fault", NULL },
	{ "will-it-scale", "will-it-scale", CLAIM_M_NONE, "page-fault", NULL },
	{ "faulting", "faults", CLAIM_M_NONE, "fault-free", NULL },
	{ "faults", "faults", CLAIM_M_NONE, "fault-free", NULL },
	{ "memhog", "memhog", CLAIM_M_NONE, "swap-memhog", NULL },
	{ "swap", "swap", CLAIM_M_NONE, "swap-memhog", NULL },
	{ "zram", "zram", CLAIM_M_NONE, "swap-memhog", NULL },
	{ "inode", "inode/dentry", CLAIM_M_NONE, "file-read", "list_lru" },
	{ "dentry", "inode/dentry", CLAIM_M_NONE, "file-read", "list_lru" },
	{ "file read", "file read", CLAIM_M_NONE, "file-read", NULL },
	{ "flush", "flush", CLAIM_M_NONE, "memcg-flush", "rstat" },
	{ "latency", "latency", CLAIM_M_LATENCY, NULL, NULL },
	{ "p50", "latency", CLAIM_M_LATENCY, NULL, NULL },
	{ "p95", "latency", CLAIM_M_LATENCY, NULL, NULL },
	{ "p99", "latency", CLAIM_M_LATENCY, NULL, NULL },
	{ "sys time", "sys time", CLAIM_M_TIME_SYS, NULL, NULL },
	{ "system time", "sys time", CLAIM_M_TIME_SYS, NULL, NULL },
	/* "Kernel cycles% drops from ~20% to ~18.7%": the kernel's share */
	{ "kernel cycles", "sys time", CLAIM_M_TIME_SYS, NULL, NULL },
	{ "user time", "user time", CLAIM_M_TIME_USER, NULL, NULL },
	{ "wall time", "wall time", CLAIM_M_TIME_REAL, NULL, NULL },
	{ "elapsed", "wall time", CLAIM_M_TIME_REAL, NULL, NULL },
	{ "contended", "contended", CLAIM_M_LOCK, NULL, NULL },
	{ "total wait", "total wait", CLAIM_M_LOCK, NULL, NULL },
	{ "max wait", "max wait", CLAIM_M_LOCK, NULL, NULL },
	{ "avg wait", "avg wait", CLAIM_M_LOCK, NULL, NULL },
	{ "average wait", "avg wait", CLAIM_M_LOCK, NULL, NULL },
	{ "wait time", "total wait", CLAIM_M_LOCK, NULL, NULL },
	{ "wait events", "contended", CLAIM_M_LOCK, NULL, NULL },
	{ "contention", "lock contention", CLAIM_M_LOCK, NULL, NULL },
	{ "spinning", "lock contention", CLAIM_M_LOCK, NULL, NULL },
	{ "spin_lock", "lock contention", CLAIM_M_LOCK, NULL, NULL },
	/* "the cycles per load dropping from ~2.2K to ~0.5K": a cost */
	{ "cycles per", "cycles", CLAIM_M_LATENCY, NULL, NULL },
	{ "cycles", "cycles", CLAIM_M_NONE, NULL, NULL },
	{ "lru lock", "lru_lock", CLAIM_M_NONE, NULL, "lru_lock" },
	{ "lru_lock", "lru_lock", CLAIM_M_NONE, NULL, "lru_lock" },
	{ "lruvec_lock", "lru_lock", CLAIM_M_NONE, NULL, "lru_lock" },
	{ "lruvec lock", "lru_lock", CLAIM_M_NONE, NULL, "lru_lock" },
	{ "deferred queue lock", "split_queue_lock", CLAIM_M_NONE, NULL,
	    "split_queue_lock" },
	{ "split_queue_lock", "split_queue_lock", CLAIM_M_NONE, NULL,
	    "split_queue_lock" },
	{ "split queue lock", "split_queue_lock", CLAIM_M_NONE, NULL,
	    "split_queue_lock" },
	{ "zone lock", "zone lock", CLAIM_M_NONE, NULL, "zone_lock" },
	{ "list_lru", "list_lru", CLAIM_M_NONE, NULL, "list_lru" },
	{ "mmap_lock", "mmap_lock", CLAIM_M_NONE, NULL, "mmap_lock" },
	{ "rstat", "rstat", CLAIM_M_NONE, NULL, "rstat" },
	{ "iops", "iops", CLAIM_M_RATE, NULL, NULL },
	{ "bandwidth", "bandwidth", CLAIM_M_RATE, NULL, NULL },
	/* perf stat events: a counter no suite here measures */
	{ "tlb-load-misses", "tlb misses", CLAIM_M_OTHER, NULL, NULL },
	{ "tlb-store-misses", "tlb misses", CLAIM_M_OTHER, NULL, NULL },
	{ "cache-misses", "cache misses", CLAIM_M_OTHER, NULL, NULL },
	{ "context-switches", "context switches", CLAIM_M_OTHER, NULL, NULL },
};

/* Change words right after "N%" (or before it, with "by"). */
static const struct {
	const char	*word;
	enum claim_dir	 dir;
} claim_change_words[] = {
	{ "improvement", CLAIM_DIR_BETTER }, { "improve", CLAIM_DIR_BETTER },
	{ "faster", CLAIM_DIR_BETTER }, { "better", CLAIM_DIR_BETTER },
	{ "speedup", CLAIM_DIR_BETTER }, { "speed-up", CLAIM_DIR_BETTER },
	{ "gain", CLAIM_DIR_BETTER }, { "boost", CLAIM_DIR_BETTER },
	{ "regression", CLAIM_DIR_WORSE }, { "slower", CLAIM_DIR_WORSE },
	{ "worse", CLAIM_DIR_WORSE }, { "degradation", CLAIM_DIR_WORSE },
	{ "reduction", CLAIM_DIR_DOWN }, { "reduce", CLAIM_DIR_DOWN },
	{ "decrease", CLAIM_DIR_DOWN }, { "drop", CLAIM_DIR_DOWN },
	{ "lower", CLAIM_DIR_DOWN }, { "less", CLAIM_DIR_DOWN },
	{ "fewer", CLAIM_DIR_DOWN }, { "cut", CLAIM_DIR_DOWN },
	{ "fall", CLAIM_DIR_DOWN }, { "shrink", CLAIM_DIR_DOWN },
	{ "lose", CLAIM_DIR_WORSE }, { "loss", CLAIM_DIR_WORSE },
	{ "increase", CLAIM_DIR_UP }, { "higher", CLAIM_DIR_UP },
	{ "more", CLAIM_DIR_UP }, { "growth", CLAIM_DIR_UP },
	{ "grow", CLAIM_DIR_UP }, { "rise", CLAIM_DIR_UP },
};

/* Words that make a percentage in their clause a setting, not a result. */
static const char *const claims_config_words[] = {
	"memory.max", "memory.high", "memory.low", "memory.min", "limit",
	"set to", "threshold", "watermark", "ratio", "at most", "nr_task",
	"swappiness", "vm.", "sysctl", "default", "= ", NULL,
};

/* Counts: a bare number right before one of these is a condition. */
static const char *const claims_count_words[] = {
	"threads", "thread", "processes", "process", "procs", "cpus", "cpu",
	"memcgs", "memcg", "cgroups", "cgroup", "cores", "core", "nodes",
	"node", "sockets", "socket", "clients", "jobs", "runs", "boots",
	"iterations", "patches", "patch", "times", "lines", "files",
	"freshly", NULL,
};

/* ---- small helpers --------------------------------------------------- */

static int
claims_icontains(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	int c0 = tolower((unsigned char)needle[0]);

	/* the first byte compared inline: strncasecmp per position is what
	   made extraction slow on long text */
	for (size_t i = 0; i + n <= len; i++)
		if (tolower((unsigned char)hay[i]) == c0 &&
		    strncasecmp(hay + i, needle, n) == 0)
			return 1;
	return 0;
}

static int
claims_is_word_char(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Does s[0..len) start with word w (case-insensitive, then a non-letter)? */
static int
claims_starts_word(const char *s, size_t len, const char *w)
{
	size_t n = strlen(w);

	return len >= n && !strncasecmp(s, w, n) &&
	    (len == n || !isalpha((unsigned char)s[n]));
}

/* Digits with an optional fraction at s[0..len): their length, 0 none. */
static size_t
claims_digits(const char *s, size_t len, double *v)
{
	char b[40];
	size_t i = 0;

	size_t j = 0;

	while (i < len && isdigit((unsigned char)s[i]) && j < 18)
		b[j++] = s[i++];
	if (!i)
		return 0;
	/* thousands separators: "2,345,678" (a lead of at most three
	   digits, then groups of exactly three) */
	while (i <= 3 || memchr(s, ',', i)) {
		if (i + 3 >= len || s[i] != ',' ||
		    !isdigit((unsigned char)s[i + 1]) ||
		    !isdigit((unsigned char)s[i + 2]) ||
		    !isdigit((unsigned char)s[i + 3]) ||
		    (i + 4 < len && isdigit((unsigned char)s[i + 4])) ||
		    j + 3 > 30)
			break;
		memcpy(b + j, s + i + 1, 3);
		j += 3;
		i += 4;
	}
	if (i + 1 < len && s[i] == '.' && isdigit((unsigned char)s[i + 1])) {
		b[j++] = s[i++];
		while (i < len && isdigit((unsigned char)s[i]) && j < 38)
			b[j++] = s[i++];
	}
	/* digits and one '.' only: strtod rounds them correctly */
	b[j] = '\0';
	*v = strtod(b, NULL);
	return i;
}

/*
 * A duration at s: "12m03s", "3m05.112s", "1h02m10s", "1:02:11",
 * "0:58:40.5", "2:40.087" -> seconds.  Returns the length, 0 when s holds
 * no duration of those forms (a plain "20.3s" is a number with a unit).
 */
static size_t
claims_duration_at(const char *s, size_t len, double *secs)
{
	double part[3], d;
	size_t i, l, n = 0;

	/* clock form: digits (':' two digits){1,2}, a fraction at the end */
	if ((l = claims_digits(s, len, &d)) && l < len && s[l] == ':' &&
	    !memchr(s, '.', l)) {
		part[n++] = d;
		i = l;
		while (n < 3 && i + 2 < len + 0 && s[i] == ':' &&
		    isdigit((unsigned char)s[i + 1]) &&
		    isdigit((unsigned char)s[i + 2]) &&
		    (i + 3 >= len || !isdigit((unsigned char)s[i + 3]) ||
		    s[i + 3] == '.')) {
			l = claims_digits(s + i + 1, len - i - 1, &d);
			part[n++] = d;
			i += 1 + l;
			if (memchr(s + i - l, '.', l))
				break;
		}
		if (n < 2 || (i < len && claims_is_word_char(s[i])))
			return 0;
		*secs = n == 3 ? part[0] * 3600 + part[1] * 60 + part[2] :
		    part[0] * 60 + part[1];
		return i;
	}
	/* unit form: [Nh][Nm]N[.f]s, at least two parts */
	i = 0;
	*secs = 0;
	while (i < len && n < 3) {
		if (!(l = claims_digits(s + i, len - i, &d)) || i + l >= len)
			break;
		if (s[i + l] == 'h' && n == 0)
			*secs += d * 3600;
		else if (s[i + l] == 'm' && (i + l + 1 >= len ||
		    s[i + l + 1] != 's'))
			*secs += d * 60;
		else if (s[i + l] == 's')
			*secs += d;
		else
			break;
		n++;
		i += l + 1;
		if (s[i - 1] == 's')
			break;
	}
	if (n < 2 || (i < len && claims_is_word_char(s[i])))
		return 0;
	return i;
}

/* Units a value may carry, longest first (after an optional space). */
static const char *const claims_units[] = {
	"pages/s", "faults/s", "ops/s", "MB/s", "GB/s", "KB/s", "GiB/s",
	"MiB/s", "KiB/s", "/s", "seconds",
	"secs", "sec", "ms", "us", "ns", "\xc2\xb5s", "s", NULL,
};

/*
 * A value at s[0..len): a number with its multiplier (K, M, G) and unit
 * ("%", "s", "ms", "us", "ns", "pages/s", ...; "33.10 s" with a space),
 * or a duration (unit "s").  Returns the length consumed, 0 when s holds
 * no number; unit "" for a bare number.
 */
static size_t
claims_value(const char *s, size_t len, double *v, char unit[8])
{
	size_t l, i;
	double d;

	unit[0] = '\0';
	if (!len || !isdigit((unsigned char)s[0]))
		return 0;
	/* a duration has ':', 'h' or 'm' and a digit after its first digits */
	for (i = 0; i < len && (isdigit((unsigned char)s[i]) || s[i] == '.');
	    i++)
		;
	if (i + 1 < len && (s[i] == ':' || s[i] == 'h' || s[i] == 'm') &&
	    isdigit((unsigned char)s[i + 1]) &&
	    (l = claims_duration_at(s, len, v))) {
		strcpy(unit, "s");
		return l;
	}
	if (!(l = claims_digits(s, len, &d)))
		return 0;
	i = l;
	/* a kernel test robot's "7.397e+08" */
	if (i + 3 < len && s[i] == 'e' && (s[i + 1] == '+' || s[i + 1] ==
	    '-') && isdigit((unsigned char)s[i + 2])) {
		size_t k = i + 2;
		int ex = 0;

		while (k < len && isdigit((unsigned char)s[k]) && ex < 100)
			ex = ex * 10 + (s[k++] - '0');
		d *= pow(10, s[i + 1] == '-' ? -ex : ex);
		i = k;
	}
	if (i < len && (s[i] == 'K' || s[i] == 'M' || s[i] == 'G' ||
	    s[i] == 'k')) {
		if (i + 1 >= len || !claims_is_word_char(s[i + 1])) {
			d *= s[i] == 'K' || s[i] == 'k' ? 1e3 : s[i] == 'M' ?
			    1e6 : 1e9;
			i++;
		} else if (s[i + 1] == 'B' && (i + 2 >= len ||
		    !claims_is_word_char(s[i + 2]))) {
			i += 2;		/* a size: "384GB" */
		}
	}
	*v = d;
	if (i < len && s[i] == '%') {
		strcpy(unit, "%");
		return i + 1;
	}
	for (int sp = 0; sp < 2; sp++) {
		size_t at = i + (size_t)sp;

		if (sp && (at > len || s[i] != ' '))
			break;
		for (const char *const *u = claims_units; *u; u++) {
			size_t ul;

			if (at >= len || s[at] != (*u)[0])
				continue;	/* the first byte first: fast */
			ul = strlen(*u);
			if (at + ul <= len && !strncmp(s + at, *u, ul) &&
			    (at + ul == len || (!claims_is_word_char(s[at + ul])
			    && s[at + ul] != '/'))) {
				snprintf(unit, 8, "%s", !strcmp(*u, "\xc2\xb5s") ?
				    "us" : (*u)[0] == 's' ? "s" : *u);
				return at + ul;
			}
		}
	}
	return i;
}

/*
 * The counts right before a word of each of lists[0..4) nearest to [at,
 * end) of s[0..len): "80 threads", "128 memcgs", "80-CPU" (at = end = 0:
 * the first); CLAIM_NONE where none.
 */
static void
claims_count_near4(const char *s, size_t len,
    const char *const *const lists[4], size_t at, size_t end, int best[4])
{
	size_t bestd[4];

	for (int k = 0; k < 4; k++) {
		best[k] = CLAIM_NONE;
		bestd[k] = (size_t)-1;
	}
	for (size_t i = 0; i < len; i++) {
		size_t j, d;
		long n = 0;

		if (!isdigit((unsigned char)s[i]) ||
		    (i > 0 && (claims_is_word_char(s[i - 1]) || s[i - 1] == '.')))
			continue;
		for (j = i; j < len && isdigit((unsigned char)s[j]) &&
		    j - i < 7; j++)
			n = n * 10 + (s[j] - '0');
		if (j < len && (isdigit((unsigned char)s[j]) || (s[j] == '.' &&
		    j + 1 < len && isdigit((unsigned char)s[j + 1])))) {
			i = j;
			continue;
		}
		if (j < len && (s[j] == ' ' || s[j] == '-'))
			j++;
		if (n <= 0 || j >= len || !isalpha((unsigned char)s[j])) {
			i = j > i ? j - 1 : i;
			continue;
		}
		for (int k = 0; k < 4; k++)
			for (const char *const *w = lists[k]; *w; w++) {
				size_t wl;

				if (tolower((unsigned char)s[j]) !=
				    tolower((unsigned char)(*w)[0]))
					continue;
				wl = strlen(*w);
				if (j + wl > len || strncasecmp(s + j, *w, wl))
					continue;
				/* "512-processor" is no count of processes */
				if (j + wl < len && isalpha((unsigned char)
				    s[j + wl]))
					break;
				d = i >= end ? i - end : at > j + wl ?
				    at - j - wl : 0;
				if (d < bestd[k]) {
					bestd[k] = d;
					best[k] = (int)n;
				}
				break;
			}
		i = j > i ? j - 1 : i;
	}
}

/* "order 2" -> 16 (kB), "16K folio" / "64kB" -> 16 / 64, "PMD" -> 2048. */
static int
claims_folio_kb(const char *s, size_t len)
{
	for (size_t i = 0; i + 6 < len; i++) {
		if ((s[i] == 'o' || s[i] == 'O') &&
		    strncasecmp(s + i, "order ", 6) == 0 &&
		    isdigit((unsigned char)s[i + 6])) {
			int o = s[i + 6] - '0';

			if (i + 7 < len && isdigit((unsigned char)s[i + 7]))
				o = o * 10 + (s[i + 7] - '0');
			if (o >= 0 && o <= 10)
				return 4 << o;
		}
	}
	if (!claims_icontains(s, len, "folio") && !claims_icontains(s, len,
	    "thp"))
		goto pmd;
	for (size_t i = 0; i < len; i++) {
		size_t j;
		long n = 0;

		if (!isdigit((unsigned char)s[i]) ||
		    (i > 0 && claims_is_word_char(s[i - 1])))
			continue;
		for (j = i; j < len && isdigit((unsigned char)s[j]) &&
		    j - i < 6; j++)
			n = n * 10 + (s[j] - '0');
		if (j + 1 < len && (s[j] == 'K' || s[j] == 'k') &&
		    (s[j + 1] == ' ' || s[j + 1] == 'B' || s[j + 1] == ')' ||
		    s[j + 1] == ',') && (n == 8 || n == 16 || n == 32 ||
		    n == 64 || n == 128 || n == 256 || n == 512 || n == 1024))
			return (int)n;
		i = j - 1;
	}
pmd:
	if (claims_icontains(s, len, "pmd"))
		return 2048;
	return CLAIM_NONE;
}

static void
claims_cond_init(struct claim_cond *c)
{
	memset(c, 0, sizeof(*c));
	c->threads = c->processes = c->cpus = c->memcgs = CLAIM_NONE;
	c->folio_kb = CLAIM_NONE;
}

static int
claims_cond_has_counts(const struct claim_cond *c)
{
	return c->threads != CLAIM_NONE || c->processes != CLAIM_NONE ||
	    c->memcgs != CLAIM_NONE || c->folio_kb != CLAIM_NONE ||
	    c->cpus != CLAIM_NONE;
}

/* What c does not know yet, from o. */
static void
claims_cond_merge(struct claim_cond *c, const struct claim_cond *o)
{
	if (c->threads == CLAIM_NONE)
		c->threads = o->threads;
	if (c->processes == CLAIM_NONE)
		c->processes = o->processes;
	if (c->cpus == CLAIM_NONE)
		c->cpus = o->cpus;
	if (c->memcgs == CLAIM_NONE)
		c->memcgs = o->memcgs;
	if (c->folio_kb == CLAIM_NONE)
		c->folio_kb = o->folio_kb;
	if (!c->mode[0])
		memcpy(c->mode, o->mode, sizeof(c->mode));
	if (!c->workload[0])
		memcpy(c->workload, o->workload, sizeof(c->workload));
	if (!c->lock[0])
		memcpy(c->lock, o->lock, sizeof(c->lock));
}

/*
 * Which of claim_words[] s holds, as a bit mask: one pass over s, each
 * position compared only with the patterns that start with its letter
 * (a pass per pattern is what made a 1 MB letter slow).
 */
static signed char claims_first[26][16];	/* claim_words by letter */
static unsigned char claims_plen[NELEM(claim_words)];
static pthread_once_t claims_first_once = PTHREAD_ONCE_INIT;

static void
claims_first_init(void)
{
	_Static_assert(NELEM(claim_words) <= 64, "claim_words: a 64-bit mask");
	memset(claims_first, -1, sizeof(claims_first));
	for (size_t i = 0; i < NELEM(claim_words); i++) {
		int c = tolower((unsigned char)claim_words[i].pat[0]) - 'a';
		size_t k = 0;

		claims_plen[i] = (unsigned char)strlen(claim_words[i].pat);
		if (c < 0 || c >= 26)
			continue;	/* every pattern starts with a letter */
		while (k < 15 && claims_first[c][k] >= 0)
			k++;
		claims_first[c][k] = (signed char)i;
	}
}

static uint64_t
claims_scan(const char *s, size_t len)
{
	uint64_t hit = 0;

	pthread_once(&claims_first_once, claims_first_init);
	for (size_t i = 0; i + 1 < len; i++) {
		int c = tolower((unsigned char)s[i]) - 'a';
		int c1;

		if (c < 0 || c >= 26 || claims_first[c][0] < 0)
			continue;
		c1 = tolower((unsigned char)s[i + 1]);
		for (size_t k = 0; k < 16 && claims_first[c][k] >= 0; k++) {
			int w = claims_first[c][k];
			const char *p = claim_words[w].pat;

			/* the second byte inline, then the rest */
			if (c1 == p[1] && i + claims_plen[w] <= len &&
			    !strncasecmp(s + i + 2, p + 2, claims_plen[w] - 2))
				hit |= UINT64_C(1) << w;
		}
	}
	return hit;
}

/* "make -j96": a kernel build's job count, its threads; else CLAIM_NONE. */
static int
claims_make_jobs(const char *s, size_t len)
{
	for (size_t i = 0; i + 7 < len; i++) {
		size_t j = i + 7;
		long n = 0;

		if (s[i] != 'm' || strncmp(s + i, "make -j", 7) != 0 ||
		    (i > 0 && claims_is_word_char(s[i - 1])))
			continue;
		for (; j < len && isdigit((unsigned char)s[j]) && n < 1000000;
		    j++)
			n = n * 10 + (s[j] - '0');
		if (j > i + 7 && n > 0 && (j == len ||
		    !claims_is_word_char(s[j])))
			return (int)n;
	}
	return CLAIM_NONE;
}

/*
 * Fills what s says of the conditions into c, where c does not know; the
 * counts nearest to [at, end) of s (0, 0: the first).
 */
/* The counts of s nearest to [at, end) that c does not know yet. */
static void
claims_counts_near(struct claim_cond *c, const char *s, size_t len,
    size_t at, size_t end)
{
	static const char *const threads[] = { "threads", "thread", NULL };
	static const char *const procs[] = { "processes", "procs", "process",
	    NULL };
	static const char *const cpus[] = { "CPUs", "CPU", "cpus", NULL };
	static const char *const memcgs[] = { "memcgs", "cgroups", "memcg",
	    "freshly created memcgs", NULL };

	static const char *const *const lists[4] = { threads, procs, cpus,
	    memcgs };
	int *slot[4] = { &c->threads, &c->processes, &c->cpus, &c->memcgs };
	int got[4];

	/* one pass over s for the four kinds of count: a pass per kind is
	   what made a 1 MB letter slow */
	claims_count_near4(s, len, lists, at, end, got);
	for (int k = 0; k < 4; k++)
		if (*slot[k] == CLAIM_NONE)
			*slot[k] = got[k];
	if (c->folio_kb == CLAIM_NONE)
		c->folio_kb = claims_folio_kb(s, len);
}

static void
claims_cond_near(struct claim_cond *c, const char *s, size_t len, size_t at,
    size_t end)
{
	uint64_t hit;

	if (!s)
		return;
	claims_counts_near(c, s, len, at, end);
	if (!c->mode[0]) {
		if (claims_icontains(s, len, "shmem"))
			strcpy(c->mode, "shmem");
		else if (claims_icontains(s, len, "anon"))
			strcpy(c->mode, "anon");
	}
	hit = claims_scan(s, len);
	for (size_t i = 0; i < NELEM(claim_words); i++) {
		const struct claim_word *w = &claim_words[i];

		if ((w->workload && c->workload[0]) || (w->lock && c->lock[0]) ||
		    (!w->workload && !w->lock) || !(hit & (UINT64_C(1) << i)))
			continue;
		if (w->workload && !c->workload[0])
			snprintf(c->workload, sizeof(c->workload), "%s",
			    w->workload);
		if (w->lock && !c->lock[0])
			snprintf(c->lock, sizeof(c->lock), "%s", w->lock);
	}
}

static void
claims_cond_read(struct claim_cond *c, const char *s, size_t len)
{
	claims_cond_near(c, s, len, 0, 0);
}

/* Metric words of s into words (deduplicated) and the metric class. */
static enum claim_metric
claims_words_read(struct buf *words, const char *s, size_t len)
{
	enum claim_metric m = CLAIM_M_NONE;
	uint64_t hit;

	if (!s)
		return m;
	hit = claims_scan(s, len);
	for (size_t i = 0; i < NELEM(claim_words); i++) {
		const struct claim_word *w = &claim_words[i];

		if (!(hit & (UINT64_C(1) << i)))
			continue;
		if (!words->data || !strstr(words->data, w->word))
			buf_addf(words, "%s%s", words->len ? ", " : "",
			    w->word);
		if (w->metric != CLAIM_M_NONE && m == CLAIM_M_NONE)
			m = w->metric;
	}
	return m;
}

/* Does s name a metric at all (a class or a hint)? */
static int
claims_has_words(const char *s, size_t len)
{
	return claims_scan(s, len) != 0;
}

/* The metric class of s alone, CLAIM_M_NONE when it names none. */
static enum claim_metric
claims_class(const char *s, size_t len)
{
	uint64_t hit = claims_scan(s, len);

	for (size_t i = 0; i < NELEM(claim_words); i++)
		if (claim_words[i].metric != CLAIM_M_NONE &&
		    (hit & (UINT64_C(1) << i)))
			return claim_words[i].metric;
	return CLAIM_M_NONE;
}

/* A data line's tokens (whitespace-separated). */
struct claims_toks {
	const char	*t[CLAIMS_TOK_MAX];
	size_t		 l[CLAIMS_TOK_MAX];
	size_t		 n;
};

static void
claims_tokens(const char *line, size_t len, struct claims_toks *tk)
{
	size_t i = 0;

	tk->n = 0;
	while (i < len && tk->n < CLAIMS_TOK_MAX) {
		while (i < len && isspace((unsigned char)line[i]))
			i++;
		if (i >= len)
			break;
		tk->t[tk->n] = line + i;
		while (i < len && !isspace((unsigned char)line[i]))
			i++;
		tk->l[tk->n] = line + i - tk->t[tk->n];
		/* a markdown table's cell borders are no tokens */
		if (tk->l[tk->n] == 1 && tk->t[tk->n][0] == '|')
			continue;
		tk->n++;
	}
}

/* Is token t[0..l) exactly a value (a number with an optional unit)? */
static int
claims_tok_value(const char *t, size_t l, double *v, char unit[8])
{
	if (l && t[0] == '~')
		t++, l--;
	return l && claims_value(t, l, v, unit) == l;
}

/* A signed change token "+12.3%", "-3.1", "\xe2\x88\x92" 5%: 1 and its
   value and whether it had '%'. */
static int
claims_tok_signed(const char *t, size_t l, double *v, int *pct)
{
	int neg;
	size_t skip, n;
	double d;

	if (l > 2 && t[0] == '(' && t[l - 1] == ')')
		t++, l -= 2;
	if (l >= 2 && (t[0] == '+' || t[0] == '-'))
		skip = 1;
	else if (l >= 4 && !strncmp(t, "\xe2\x88\x92", 3))
		skip = 3;
	else
		return 0;
	neg = t[0] != '+';
	n = claims_digits(t + skip, l - skip, &d);
	if (!n)
		return 0;
	*pct = skip + n < l && t[skip + n] == '%';
	if (skip + n + (size_t)*pct != l)
		return 0;
	*v = neg ? -d : d;
	return 1;
}

/* ---- the extraction state -------------------------------------------- */

struct claims_span {
	const char	*s;
	size_t		 len;
};

static const struct claims_span claims_nospan = { NULL, 0 };

/* A figure of a time-block: the sum of its values per phase. */
struct claims_tb_slot {
	char		 key[40];	/* "real", "bw", "qps" */
	enum claim_metric metric;
	char		 unit[8];
	double		 sum[2];
	int		 n[2];
};

/* Two tables by count, before and after, with the same header. */
#define CLAIMS_SPLIT_ROWS	16
struct claims_split {
	int		 phase;		/* 0 none, 1 the first table's rows,
					   2 between, 3 the second's rows */
	char		 hdr[200];	/* the header, spaces collapsed (12
					   tokens of at most 15 bytes) */
	size_t		 ncol, key;	/* columns; the count's column */
	int		 what;		/* 0 threads, 1 processes, 2 cpus */
	enum claim_metric m[CLAIMS_TOK_MAX];	/* per column, NONE: skip */
	char		 name[CLAIMS_TOK_MAX][16];
	size_t		 nrows;
	int		 count[CLAIMS_SPLIT_ROWS];
	double		 v[CLAIMS_SPLIT_ROWS][CLAIMS_TOK_MAX];
	char		 unit[CLAIMS_TOK_MAX][8];
};

/* A table by count: one claim per thread (process, CPU) count. */
struct claims_sweep {
	int		 mode;		/* 0 none, 1 a row per count, 2 a
					   column per count */
	int		 what;		/* 0 threads, 1 processes, 2 cpus */
	int		 col[CLAIMS_SWEEP_MAX];
	size_t		 ncol;
	double		 v[2][CLAIMS_SWEEP_MAX];
	char		 unit[8];
	int		 nrows;
};

/* A table of "|" columns, each cell a group "before / after / delta"
   under a header naming each column's metric (claims_rule_group). */
#define CLAIMS_GROUP_COLS 6
struct claims_group {
	int		 on;		/* 1 header seen, 2 its second line */
	int		 ncol;		/* columns, the label's first */
	enum claim_metric m[CLAIMS_GROUP_COLS];
	int		 at[3];		/* before, after, delta: parts */
	int		 what;		/* the label's count: -1 none */
	int		 jobs;		/* the label head says "-j<N>" */
	int		 folio_kb;	/* a caption in the table's rows */
};

struct claims_ctx {
	struct claims	*out;
	const char	*where;
	/* the last sentence ending in ':' or with metric words: a table's
	   caption */
	char		*caption;
	/* the counts of the last sentence that claimed nothing */
	struct claim_cond setup;
	/* the head of the sentence before, in this paragraph */
	struct claim_cond carry;
	size_t		 prev_first, prev_end;	/* its claims */
	/* time-block: sums of real/user/sys per phase */
	char		*tb_title;
	int		 tb_phase;	/* 0 none, 1 before, 2 after */
	struct claims_tb_slot tb[CLAIMS_TB_SLOTS];	/* 0..2 real, user,
						   sys; then fio, rates */
	size_t		 tb_nslot;
	int		 tb_near;	/* the line before was the block's */
	int		 tb_seen;	/* "with" markers seen: 1 before, 2
					   after (in either order) */
	int		 table_header;	/* "before after" seen in paragraph */
	int		 lkp_box;	/* in a robot's "| testcase: |" box */
	char		*mm_test;	/* an mmtests table's test name */
	/* what the caption says, read once (claims_caption) */
	int		 cap_read;
	struct claim_cond cap_cond;
	char		*cap_words;
	enum claim_metric cap_metric;
	int		 mm_seen;	/* an mmtests row in this message */
	struct claims_sweep sweep;
	struct claims_split split;
	struct claims_group group;
	/* a normalised table ("Test : tbench", "tip[pct imp](CV)") */
	int		 nm_on;		/* 1 after "Test :", 2 under a header */
	int		 nm_lower;	/* "Interpretation: Lower is better" */
	int		 nm_what;	/* -1 no count, 0 threads */
	int		 nm_diff;	/* a "%diff" table: one change a row */
	int		 nm_rows;	/* rows read under the header */
	/* perf lock contention tables, before then after, by caller */
	int		 pl_phase;	/* 0, 1 the first's rows, 2 between,
					   3 the second's rows */
	size_t		 pl_n;
	char		 pl_caller[CLAIMS_SPLIT_ROWS][48];
	double		 pl_v[CLAIMS_SPLIT_ROWS][4];
	char		 pl_u[CLAIMS_SPLIT_ROWS][3][4];
	/* fio: "--numjobs=8" of its command, the base's "IOPS=" line */
	int		 fio_jobs;
	uint64_t	 fio_mix[2];	/* rwmixwrite= percentages: 0..127 */
	int		 fio_has;
	double		 fio_v[2];
	char		 fio_u[2][8];
	enum claim_metric nm_metric;
	char		 nm_test[24];
	size_t		 first;		/* first claim of this message */
	/* the current sentence up to its first number: shared conditions */
	struct claims_span prefix;
	int		 sent_words;	/* the sentence names a metric */
};

static struct claim *
claims_new(struct claims_ctx *x, enum claim_kind kind, const char *rule,
    const char *text, size_t len)
{
	struct claims *cs = x->out;
	struct claim *c;
	size_t i, j;

	if (cs->n >= CLAIMS_MAX)
		return NULL;
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? cs->cap * 2 : 16;
		cs->v = xrealloc(cs->v, cs->cap * sizeof(*cs->v));
	}
	c = &cs->v[cs->n++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->rule = rule;
	c->where = xstrdup(x->where);
	/* one line of text, spaces collapsed */
	c->text = xmalloc(len + 1);
	for (i = j = 0; i < len; i++) {
		char ch = text[i] == '\t' || text[i] == '\n' ? ' ' : text[i];

		if (ch == ' ' && (j == 0 || c->text[j - 1] == ' '))
			continue;
		c->text[j++] = ch;
	}
	while (j && c->text[j - 1] == ' ')
		j--;
	c->text[j] = '\0';
	claims_cond_init(&c->cond);
	return c;
}

static void
claims_free_one(struct claim *c)
{
	free(c->text);
	free(c->where);
	free(c->words);
}

/* Drops the last claim (one a rule started and then found no claim). */
static void
claims_drop_last(struct claims_ctx *x)
{
	claims_free_one(&x->out->v[--x->out->n]);
}

/* Before and after, and the change they make. */
static void
claims_set_pair(struct claim *c, double b, double a, const char *unit)
{
	c->has_before = c->has_after = 1;
	c->before = b;
	c->after = a;
	if (b != 0) {
		c->change_pct = (a - b) / fabs(b) * 100.0;
		c->has_change = 1;
	}
	snprintf(c->unit, sizeof(c->unit), "%s", unit);
}

/* Time units make a latency, unless the words said lock wait. */
static enum claim_metric
claims_unit_metric(const struct claim *c, enum claim_metric m)
{
	if (m == CLAIM_M_NONE && strchr(c->unit, '/'))
		return CLAIM_M_RATE;	/* pages/s, MB/s, GiB/s */
	if ((!strcmp(c->unit, "us") || !strcmp(c->unit, "ms") ||
	    !strcmp(c->unit, "ns")) && m != CLAIM_M_LOCK)
		return CLAIM_M_LATENCY;
	return m;
}

static void
claims_set_words(struct claim *c, struct buf *words, enum claim_metric m)
{
	if (c->metric == CLAIM_M_NONE)
		c->metric = claims_unit_metric(c, m);
	free(c->words);
	c->words = buf_detach(words, NULL);
	if (!c->words)
		c->words = xstrdup("");
}

/*
 * The caption's conditions, metric words and class, read once per
 * caption (every claim under it asks: reading it per claim is what made
 * a 1 MB letter slow).  NULL when there is no caption.
 */
static const struct claim_cond *
claims_caption(struct claims_ctx *x)
{
	struct buf words = BUF_INIT(512);

	if (!x->caption)
		return NULL;
	if (x->cap_read)
		return &x->cap_cond;
	claims_cond_init(&x->cap_cond);
	claims_cond_read(&x->cap_cond, x->caption, strlen(x->caption));
	x->cap_metric = claims_words_read(&words, x->caption,
	    strlen(x->caption));
	free(x->cap_words);
	x->cap_words = buf_detach(&words, NULL);
	x->cap_read = 1;
	return &x->cap_cond;
}

/* The caption's metric words into an empty words; its class. */
static enum claim_metric
claims_caption_words(struct claims_ctx *x, struct buf *words)
{
	if (!claims_caption(x))
		return CLAIM_M_NONE;
	if (x->cap_words && x->cap_words[0])
		buf_addf(words, "%s", x->cap_words);
	return x->cap_metric;
}

/*
 * A line rule's claim: metric words from its label, then the caption;
 * conditions from its label, the caption, the set-up.
 */
static void
claims_describe_line(struct claims_ctx *x, struct claim *c,
    struct claims_span label)
{
	struct buf words = BUF_INIT(512);
	enum claim_metric m = CLAIM_M_NONE;

	if (label.s)
		claims_cond_read(&c->cond, label.s, label.len);
	if (x->caption)
		claims_cond_merge(&c->cond, claims_caption(x));
	claims_cond_merge(&c->cond, &x->setup);
	if (label.s)
		m = claims_words_read(&words, label.s, label.len);
	if (!words.len && x->caption)
		m = claims_caption_words(x, &words);
	else if (m == CLAIM_M_NONE && c->metric == CLAIM_M_NONE &&
	    claims_caption(x))
		m = x->cap_metric;
	claims_set_words(c, &words, m);
}

/* Identical claims (the text and where aside). */
static int
claims_same(const struct claim *a, const struct claim *b)
{
	return a->kind == b->kind && a->metric == b->metric &&
	    a->has_before == b->has_before && a->has_after == b->has_after &&
	    a->has_change == b->has_change &&
	    (!a->has_before || a->before == b->before) &&
	    (!a->has_after || a->after == b->after) &&
	    (!a->has_change || fabs(a->change_pct - b->change_pct) < 1e-9) &&
	    !strcmp(a->unit, b->unit) && !strcmp(a->words, b->words) &&
	    !memcmp(&a->cond, &b->cond, sizeof(a->cond));
}

/*
 * The claims of this message that were said before (listed once), and a
 * headline change that is a row of the table below it ("noticed a 12.3%
 * improvement of will-it-scale.per_process_ops" and the row
 * "... +12.3% ... will-it-scale.per_process_ops").
 */
static void
claims_dedup(struct claims_ctx *x)
{
	struct claims *cs = x->out;
	unsigned char drop[CLAIMS_MAX] = { 0 };
	size_t i, j, k;

	/* mark first, against the claims as extracted (a drop frees) */
	for (i = x->first; i < cs->n && i < CLAIMS_MAX; i++) {
		const struct claim *c = &cs->v[i];

		for (j = 0; j < i && !drop[i]; j++)
			drop[i] = !drop[j] && claims_same(&cs->v[j], c);
		/* "drop by 6% ... and by 29% for the free scanner" above the
		   vmstat rows that say 20815362 -> 19573286 (-6.0%) and
		   16352612 -> 11510663 (-29.6%) */
		for (j = i + 1; j < cs->n && !drop[i] && !strcmp(c->unit, "%") &&
		    (c->kind == CLAIM_CHANGE || c->kind == CLAIM_UNKNOWN); j++) {
			const struct claim *r = &cs->v[j];
			double want = c->kind == CLAIM_CHANGE ?
			    fabs(c->change_pct) : c->before;

			drop[i] = !strcmp(r->rule, "mmtests-vmstat") &&
			    r->has_change && fabs(fabs(r->change_pct) - want) < 1;
		}
		if (drop[i] || c->kind != CLAIM_CHANGE)
			continue;
		for (j = x->first; j < cs->n && !drop[i]; j++) {
			const struct claim *r = &cs->v[j];

			drop[i] = j != i && r->rule &&
			    !strcmp(r->rule, "lkp-row") && r->has_change &&
			    !r->has_points && fabs(fabs(r->change_pct) -
			    fabs(c->change_pct)) < 0.05 && r->words[0] &&
			    strstr(c->text, r->words);
		}
	}
	for (i = k = x->first; i < cs->n; i++) {
		if (drop[i]) {
			claims_free_one(&cs->v[i]);
			continue;
		}
		if (k != i)
			cs->v[k] = cs->v[i];
		k++;
	}
	cs->n = k;
}

/* ---- line rules ------------------------------------------------------- */

static size_t claims_word(const char *, size_t, char *, size_t);
static enum claim_dir claims_change_word(const char *);

/*
 * lkp-row: a kernel test robot comparison row.  value [± N%] change value
 * [± N%] metric; the change is in points for a '%' metric and the
 * perf-profile rows.  A row with no change column is read and claims
 * nothing.  Returns 1 when the line is such a row.
 */
/* A lock in a perf-profile row's call chain: "_raw_spin_lock",
   "folio_lruvec_lock_irqsave" ("mutex_unlock" is the unlock's cost). */
static int
claims_lkp_names_lock(const char *m, size_t l)
{
	for (size_t i = 1; i + 4 <= l; i++)
		if ((m[i - 1] == '_' || m[i - 1] == '.') &&
		    !strncmp(m + i, "lock", 4))
			return 1;
	return 0;
}

static enum claim_metric
claims_lkp_metric(const char *m, size_t l)
{
	if (claims_icontains(m, l, "perf-profile"))
		return claims_lkp_names_lock(m, l) ? CLAIM_M_LOCK :
		    CLAIM_M_PROFILE;
	/* perf-sched's wait and delay times, in ms (".count" rows are
	   counts) */
	if (claims_starts_word(m, l, "perf-sched") &&
	    claims_icontains(m, l, ".ms"))
		return CLAIM_M_LATENCY;
	if (claims_icontains(m, l, "sys%") || claims_icontains(m, l,
	    "sys_time") || claims_icontains(m, l, "system_time") ||
	    claims_starts_word(m, l, "iostat.cpu.system"))
		return CLAIM_M_TIME_SYS;
	if (claims_icontains(m, l, "user%") || claims_icontains(m, l,
	    "usr%") || claims_icontains(m, l, "user_time"))
		return CLAIM_M_TIME_USER;
	if (claims_icontains(m, l, "elapsed"))
		return CLAIM_M_TIME_REAL;
	if (claims_icontains(m, l, "latency"))
		return CLAIM_M_LATENCY;
	/* vm-scalability's own figures: its median, throughput and the
	   work done (its .time.* and .free_time rows are not) */
	if (claims_icontains(m, l, "throughput") || claims_icontains(m, l,
	    "_ops") || claims_icontains(m, l, "per_sec") ||
	    claims_starts_word(m, l, "will-it-scale") ||
	    claims_starts_word(m, l, "vm-scalability.median") ||
	    claims_starts_word(m, l, "vm-scalability.workload"))
		return CLAIM_M_RATE;
	return CLAIM_M_OTHER;
}

static size_t
claims_lkp_skip_stddev(const struct claims_toks *tk, size_t i)
{
	double d;
	char u[8];

	/* "± 2%", "±223%", or "2%" where a mail reader lost the '±' */
	if (i < tk->n && tk->l[i] >= 2 && !strncmp(tk->t[i], "\xc2\xb1", 2)) {
		if (tk->l[i] == 2 && i + 1 < tk->n)
			return i + 2;
		return i + 1;
	}
	if (i < tk->n && claims_tok_value(tk->t[i], tk->l[i], &d, u) &&
	    !strcmp(u, "%"))
		return i + 1;
	return i;
}

/* A row's value: "7291345", "7.397e+08", "-601.85". */
static int
claims_lkp_value(const char *t, size_t l, double *v, char unit[8])
{
	if (l > 1 && t[0] == '-' && claims_tok_value(t + 1, l - 1, v, unit)) {
		*v = -*v;
		return 1;
	}
	return claims_tok_value(t, l, v, unit);
}

static int
claims_rule_lkp_row(struct claims_ctx *x, const char *line, size_t len)
{
	struct claims_toks tk;
	double v0, v1, ch = 0;
	char u0[8], u1[8];
	int pct = 0, has_ch = 0, letter = 0;
	size_t i = 0;
	const char *m;
	size_t ml;
	struct claim *c;

	claims_tokens(line, len, &tk);
	if (tk.n < 3 || !claims_lkp_value(tk.t[0], tk.l[0], &v0, u0) ||
	    u0[0])
		return 0;
	i = claims_lkp_skip_stddev(&tk, 1);
	if (i < tk.n && claims_tok_signed(tk.t[i], tk.l[i], &ch, &pct)) {
		has_ch = 1;
		i++;
	}
	if (i >= tk.n || !claims_lkp_value(tk.t[i], tk.l[i], &v1, u1) || u1[0])
		return 0;
	i = claims_lkp_skip_stddev(&tk, i + 1);
	if (i + 1 != tk.n)
		return 0;
	m = tk.t[i];
	ml = tk.l[i];
	for (size_t k = 0; k < ml; k++)
		if (isalpha((unsigned char)m[k]))
			letter = 1;
	if (!letter || !(memchr(m, '.', ml) || memchr(m, '%', ml)))
		return 0;
	/* the spread of the runs ("vm-scalability.stddev%") claims nothing */
	if (!has_ch || claims_icontains(m, ml, "stddev"))
		return 1;
	c = claims_new(x, CLAIM_BEFORE_AFTER, "lkp-row", line, len);
	if (!c)
		return 1;
	claims_set_pair(c, v0, v1, m[ml - 1] == '%' ? "%" : "");
	if (m[ml - 1] == '%' || claims_icontains(m, ml, "perf-profile") ||
	    !pct) {
		c->has_points = 1;
		c->change_pts = ch;
	} else {
		c->change_pct = ch;
		c->has_change = 1;
	}
	c->metric = claims_lkp_metric(m, ml);
	claims_cond_merge(&c->cond, &x->setup);
	claims_cond_read(&c->cond, m, ml);
	free(c->words);
	c->words = xstrndup(m, ml);
	return 1;
}

/*
 * lkp-box: the robot's side table of other tests it saw change,
 * "| testcase: change | stress-ng: stress-ng.tee.ops_per_sec 500.7%
 * improvement |": one change claim of that metric; its machine and
 * parameter rows ("| test machine | 64 threads 2 sockets ...",
 * "|  | nr_threads=100% |") and borders ("+----+") are read and claim
 * nothing.  Returns 1 when the line is part of such a box.
 */
static int
claims_rule_lkp_box(struct claims_ctx *x, const char *line, size_t len)
{
	static const char *const keys[] = { "test machine", "test parameters",
	    "testcase", NULL };
	struct claims_toks tk;
	size_t i = 0, c0, c1;
	const char *const *k;
	struct claim *c;

	while (i < len && line[i] == ' ')
		i++;
	if (i < len && line[i] == '+' && len - i > 8) {
		for (size_t j = i; j < len; j++)
			if (line[j] != '+' && line[j] != '-')
				return 0;
		return 1;
	}
	if (i >= len || line[i] != '|' || line[len - 1] != '|')
		return 0;
	for (c0 = ++i; i < len && line[i] != '|'; i++)
		;
	if (i >= len - 1)
		return 0;
	c1 = i;
	while (c0 < c1 && line[c0] == ' ')
		c0++;
	while (c1 > c0 && line[c1 - 1] == ' ')
		c1--;
	if (c1 == c0)
		return x->lkp_box;	/* a parameter row goes on */
	for (k = keys; *k && !claims_starts_word(line + c0, c1 - c0, *k); k++)
		;
	if (!*k)
		return 0;
	x->lkp_box = 1;
	if (!claims_starts_word(line + c0, c1 - c0, "testcase: change"))
		return 1;
	/* "suite: metric  N% improvement": the metric, the change, the word */
	claims_tokens(line + c1 + 1, len - c1 - 2, &tk);
	for (size_t t = 1; t + 1 < tk.n; t++) {
		double v;
		char u[8], w[16];
		enum claim_dir d;

		if (!claims_tok_value(tk.t[t], tk.l[t], &v, u) || strcmp(u, "%"))
			continue;
		claims_word(tk.t[t + 1], tk.l[t + 1], w, sizeof(w));
		d = claims_change_word(w);
		if (d != CLAIM_DIR_BETTER && d != CLAIM_DIR_WORSE)
			break;
		c = claims_new(x, CLAIM_CHANGE, "lkp-box", line, len);
		if (!c)
			return 1;
		c->has_change = 1;
		c->dir = d;
		c->change_pct = d == CLAIM_DIR_WORSE ? -v : v;
		strcpy(c->unit, "%");
		c->metric = claims_lkp_metric(tk.t[t - 1], tk.l[t - 1]);
		free(c->words);
		c->words = xstrndup(tk.t[t - 1], tk.l[t - 1]);
		break;
	}
	return 1;
}

/* mmtests: the label's metric ("elsp-64" real time, "syst" sys). */
static enum claim_metric
claims_mmtests_metric(const char *l, size_t n)
{
	static const struct {
		const char *pat;
		enum claim_metric m;
	} map[] = {
		{ "elsp", CLAIM_M_TIME_REAL }, { "elapsed", CLAIM_M_TIME_REAL },
		{ "real", CLAIM_M_TIME_REAL }, { "wall", CLAIM_M_TIME_REAL },
		{ "syst", CLAIM_M_TIME_SYS }, { "sys", CLAIM_M_TIME_SYS },
		/* thpscale: fault-base, fault-huge, fault-both (usec) */
		{ "fault-b", CLAIM_M_LATENCY }, { "fault-h", CLAIM_M_LATENCY },
		{ "user", CLAIM_M_TIME_USER }, { "lat", CLAIM_M_LATENCY },
		{ "tput", CLAIM_M_RATE }, { "/sec", CLAIM_M_RATE },
		{ "ops", CLAIM_M_RATE }, { "trans", CLAIM_M_RATE },
		{ "throughput", CLAIM_M_RATE }, { "faults", CLAIM_M_RATE },
		{ "mb/s", CLAIM_M_RATE }, { "ops/s", CLAIM_M_RATE },
	};

	for (size_t i = 0; i < NELEM(map); i++)
		if (claims_icontains(l, n, map[i].pat))
			return map[i].m;
	return CLAIM_M_NONE;
}

/*
 * A row labelled by a bare count ("Amean 48 1.3977 ( 0.00%) ..."): what
 * its test (the name line above the table, "hackbench-process-pipes",
 * or the caption, "tbench on a 2-socket machine") measures, and whether
 * the count is of threads (tbench, dbench, specjbb clients) or of
 * something else (hackbench's groups, netperf's instance label).
 */
static enum claim_metric
claims_mmtests_test(struct claims_ctx *x, int *count)
{
	static const struct {
		const char	*test;
		enum claim_metric m;
		int		 threads;
	} tests[] = {
		{ "hackbench", CLAIM_M_TIME_REAL, 0 },
		{ "tbench", CLAIM_M_RATE, 1 }, { "dbench", CLAIM_M_RATE, 1 },
		{ "specjbb", CLAIM_M_RATE, 1 }, { "netperf", CLAIM_M_RATE, 0 },
		{ "sysbench", CLAIM_M_RATE, 1 },
	};
	const char *name = x->mm_test ? x->mm_test : x->caption;

	if (!name)
		return CLAIM_M_NONE;
	for (size_t i = 0; i < NELEM(tests); i++)
		if (claims_icontains(name, strlen(name), tests[i].test)) {
			if (!tests[i].threads)
				*count = CLAIM_NONE;
			return tests[i].m;
		}
	return CLAIM_M_NONE;
}

/*
 * mmtests' vmstat rows under its tables: "Compaction migrate scanned
 * 20815362  19573286", a label of words and two counts, base first.
 */
static int
claims_mmtests_vmstat(struct claims_ctx *x, const char *line, size_t len)
{
	struct claims_toks tk;
	double v[2];
	char u[2][8];
	struct claim *c;

	if (!x->mm_seen)
		return 0;
	claims_tokens(line, len, &tk);
	/* "Duration User 101.23 100.87": how long the test ran */
	if (tk.n < 3 || tk.n > 7 || claims_starts_word(tk.t[0], tk.l[0],
	    "Duration"))
		return 0;
	for (size_t t = 0; t + 2 < tk.n; t++)
		if (!isalpha((unsigned char)tk.t[t][0]))
			return 0;
	for (int k = 0; k < 2; k++)
		if (!claims_tok_value(tk.t[tk.n - 2 + k], tk.l[tk.n - 2 + k],
		    &v[k], u[k]) || u[k][0])
			return 0;
	if (!(c = claims_new(x, CLAIM_BEFORE_AFTER, "mmtests-vmstat", line,
	    len)))
		return 1;
	claims_set_pair(c, v[0], v[1], "");
	c->metric = CLAIM_M_OTHER;
	free(c->words);
	c->words = xstrndup(tk.t[0], (size_t)(tk.t[tk.n - 3] + tk.l[tk.n -
	    3] - tk.t[0]));
	return 1;
}

/*
 * mmtests-row: "Amean  elsp-64  221.87 (   0.00%)  216.02 *   2.64%*":
 * Amean, Hmean, Gmean and Median rows claim one per later column; the
 * other statistics' rows are read and claim nothing.
 */
static int
claims_rule_mmtests(struct claims_ctx *x, const char *line, size_t len)
{
	static const char *const claim_stats[] = { "Amean", "Hmean", "Gmean",
	    "Median", "Percentage", NULL };
	static const char *const other_stats[] = { "Stddev", "CoeffVar", "Min",
	    "Max", "Range", "BAmean-", "BHmean-", "BGmean-", "Bamean-",
	    NULL };
	double v[CLAIMS_SWEEP_MAX];
	size_t nv = 0, i = 0, lab, labl, dash;
	int claim = 0, count = CLAIM_NONE;
	enum claim_metric test = CLAIM_M_NONE;
	const char *const *s;

	while (i < len && line[i] == ' ')
		i++;
	if (i >= len || !strchr("AHGMSCRBP", line[i]))
		return claims_mmtests_vmstat(x, line, len);
	for (s = claim_stats; *s && !claims_starts_word(line + i, len - i, *s);
	    s++)
		;
	if (*s)
		claim = 1;
	else {
		for (s = other_stats; *s; s++)
			if (!strncmp(line + i, *s, strlen(*s)))
				break;
		if (!*s)
			return claims_mmtests_vmstat(x, line, len);
	}
	while (i < len && !isspace((unsigned char)line[i]))
		i++;
	while (i < len && isspace((unsigned char)line[i]))
		i++;
	lab = i;
	while (i < len && !isspace((unsigned char)line[i]))
		i++;
	labl = i - lab;
	if (!labl)
		return 0;
	/* the columns: value, then "( x%)" or "* x%*" */
	while (i < len && nv < CLAIMS_SWEEP_MAX) {
		double d, p;
		char u[8];
		size_t l;
		char close;

		while (i < len && line[i] == ' ')
			i++;
		if (i >= len)
			break;
		if (!(l = claims_value(line + i, len - i, &d, u)) || u[0])
			return 0;
		i += l;
		while (i < len && line[i] == ' ')
			i++;
		if (i >= len || (line[i] != '(' && line[i] != '*'))
			return 0;
		close = line[i] == '(' ? ')' : '*';
		i++;
		while (i < len && line[i] == ' ')
			i++;
		if (i < len && (line[i] == '-' || line[i] == '+'))
			i++;
		if (!(l = claims_digits(line + i, len - i, &p)))
			return 0;
		i += l;
		if (i >= len || line[i] != '%')
			return 0;
		i++;
		while (i < len && line[i] == ' ')
			i++;
		if (i >= len || line[i] != close)
			return 0;
		i++;
		if (nv == 0 && p != 0)
			return 0;	/* the first column is the base */
		v[nv++] = d;
	}
	if (nv < 2 || i < len)
		return nv >= 2;
	x->mm_seen = 1;
	if (!claim)
		return 1;
	/* "elsp-64": metric and count; "64": the count alone */
	for (dash = labl; dash > 0 && isdigit((unsigned char)line[lab +
	    dash - 1]); dash--)
		;
	if (dash < labl && (dash == 0 || line[lab + dash - 1] == '-')) {
		count = atoi(line + lab + dash);
		if (count <= 0 || count > 1000000)
			count = CLAIM_NONE;
	}
	/* a bare count: the test says what it counts and measures */
	if (dash == 0)
		test = claims_mmtests_test(x, &count);
	for (size_t k = 1; k < nv; k++) {
		struct claim *c;
		size_t ml = dash ? dash - (line[lab + dash - 1] == '-') : 0;

		if (v[0] == 0 && v[k] == 0)
			continue;	/* nothing measured on either side */
		if (!(c = claims_new(x, CLAIM_BEFORE_AFTER, "mmtests-row",
		    line, len)))
			return 1;
		claims_set_pair(c, v[0], v[k], "");
		c->cond.threads = count;
		c->metric = test != CLAIM_M_NONE ? test :
		    claims_mmtests_metric(line + lab, ml);
		if (c->metric == CLAIM_M_NONE && *s &&
		    !strcmp(*s, "Percentage"))
			c->metric = CLAIM_M_OTHER;	/* "huge-3": success */
		claims_describe_line(x, c, (struct claims_span){ line + lab,
		    ml });
		if (!c->words[0]) {
			free(c->words);
			c->words = xstrndup(line + lab, labl);
		}
	}
	return 1;
}

/* The sweep's count of column k (or row) into the claim's conditions. */
static void
claims_sweep_cond(struct claim *c, int what, int n)
{
	if (what == 1)
		c->cond.processes = n;
	else if (what == 2)
		c->cond.cpus = n;
	else
		c->cond.threads = n;
}

static void
claims_sweep_flush(struct claims_ctx *x)
{
	struct claims_sweep *w = &x->sweep;

	if (w->mode == 2 && w->nrows >= 2)
		for (size_t k = 0; k < w->ncol; k++) {
			char text[160];
			int n = snprintf(text, sizeof(text), "at %d: %g -> %g",
			    w->col[k], w->v[0][k], w->v[1][k]);
			struct claim *c = claims_new(x, CLAIM_BEFORE_AFTER,
			    "sweep-row", text, (size_t)n < sizeof(text) ?
			    (size_t)n : sizeof(text) - 1);

			if (!c)
				break;
			claims_set_pair(c, w->v[0][k], w->v[1][k], w->unit);
			claims_sweep_cond(c, w->what, w->col[k]);
			claims_describe_line(x, c, claims_nospan);
		}
	memset(w, 0, sizeof(*w));
}

/* The count a sweep header names: "threads", "nr_threads", "nr_task"... */
static int
claims_sweep_what(const char *t, size_t l)
{
	static const struct {
		const char *w;
		int what;
	} h[] = {
		{ "threads", 0 }, { "nr_threads", 0 }, { "thread", 0 },
		{ "nr_thread", 0 }, { "clients", 0 }, { "jobs", 0 },
		{ "tasks", 1 }, { "nr_task", 1 }, { "nr_tasks", 1 },
		{ "processes", 1 }, { "procs", 1 }, { "nr_procs", 1 },
		{ "cpus", 2 }, { "nr_cpus", 2 },
		/* one allocating thread per core: "| Cores | Patch 1 |" */
		{ "cores", 0 },
	};

	if (l && t[l - 1] == ':')
		l--;
	if (l < 4 || l > 10 || !strchr("tTnNcCjJpP", t[0]))
		return -1;
	for (size_t i = 0; i < NELEM(h); i++)
		if (l == strlen(h[i].w) && !strncasecmp(t, h[i].w, l))
			return h[i].what;
	return -1;
}

/* A row-per-count header names its columns: "threads base patched". */
static int
claims_sweep_header(const struct claims_toks *tk)
{
	static const char *const cols[] = { "base", "baseline", "before",
	    "vanilla", "patched", "after", "old", "new", "mainline", "change",
	    "delta", "patch", NULL };
	int named = 0;

	if (tk->n > 8)
		return 0;
	for (size_t i = 1; i < tk->n; i++) {
		char e = tk->t[i][tk->l[i] - 1];

		if (e == '.' || e == ',' || tk->l[i] > 16)
			return 0;
		for (const char *const *c = cols; *c; c++)
			if (tk->l[i] == strlen(*c) &&
			    !strncasecmp(tk->t[i], *c, tk->l[i]))
				named = 1;
	}
	return named;
}

/* Units under a sweep's header, "(ns) (ns) Diff": 1 when tk is that. */
static int
claims_sweep_units(struct claims_sweep *w, const struct claims_toks *tk)
{
	char u[8] = "";

	for (size_t i = 0; i < tk->n; i++) {
		const char *t = tk->t[i];
		size_t l = tk->l[i];
		double v;
		char vu[8];

		if (l > 2 && t[0] == '(' && t[l - 1] == ')') {
			/* "(ns)": the unit of "1 ns" */
			char b[12];

			if (l - 2 > 6)
				return 0;
			snprintf(b, sizeof(b), "1 %.*s", (int)(l - 2), t + 1);
			if (claims_value(b, strlen(b), &v, vu) != strlen(b) ||
			    !vu[0])
				return 0;
			if (!u[0])
				memcpy(u, vu, sizeof(u));
		} else if (!claims_starts_word(t, l, "diff") &&
		    !claims_starts_word(t, l, "change") &&
		    !claims_starts_word(t, l, "delta"))
			return 0;
	}
	if (!u[0])
		return 0;
	memcpy(w->unit, u, sizeof(w->unit));
	return 1;
}

/*
 * sweep-row: a header "threads base patched change" (a row per count) or
 * "nr_threads 1 2 4 8" (a column per count), then its rows.
 */
static int
claims_rule_sweep(struct claims_ctx *x, const char *line, size_t len)
{
	struct claims_sweep *w = &x->sweep;
	struct claims_toks tk;
	double d[CLAIMS_TOK_MAX];
	char u[CLAIMS_TOK_MAX][8];
	size_t nnum = 0;
	int what;

	claims_tokens(line, len, &tk);
	if (tk.n < 3)
		goto not_row;
	for (size_t i = 1; i < tk.n; i++)
		if (claims_tok_value(tk.t[i], tk.l[i], &d[i], u[i]))
			nnum++;
	if ((what = claims_sweep_what(tk.t[0], tk.l[0])) >= 0 &&
	    tk.n <= CLAIMS_SWEEP_MAX + 1 && (nnum || claims_sweep_header(&tk))) {
		claims_sweep_flush(x);
		if (nnum && nnum < tk.n - 1 && claims_sweep_header(&tk)) {
			w->mode = 1;	/* "Cores Patch 1 Patch 2" */
		} else if (nnum == tk.n - 1 && tk.n - 1 <= CLAIMS_SWEEP_MAX) {
			w->mode = 2;
			for (size_t i = 1; i < tk.n; i++) {
				if (u[i][0] || d[i] != floor(d[i]) ||
				    d[i] <= 0 || d[i] > 1e6) {
					w->mode = 0;
					return 0;
				}
				w->col[w->ncol++] = (int)d[i];
			}
		} else if (nnum == 0) {
			w->mode = 1;
		} else
			return 0;
		w->what = what;
		return 1;
	}
	if (w->mode == 1) {
		double n, ch = 0;
		char un[8];
		int pct = 0, has = 0;
		size_t last = tk.n - 1;
		struct claim *c;

		/* the header's second line: "| | (ns) | (ns) | Diff |" */
		if (!w->nrows && !nnum && claims_sweep_units(w, &tk))
			return 1;

		if (!claims_tok_value(tk.t[0], tk.l[0], &n, un) || un[0] ||
		    n != floor(n) || n <= 0 || n > 1e6)
			goto not_row;
		if (claims_tok_signed(tk.t[last], tk.l[last], &ch, &pct) && pct)
			has = 1, last--;
		if (last < 2 || !claims_tok_value(tk.t[1], tk.l[1], &d[1], u[1]) ||
		    !claims_tok_value(tk.t[2], tk.l[2], &d[2], u[2]) ||
		    strcmp(u[1], u[2]))
			goto not_row;
		c = claims_new(x, CLAIM_BEFORE_AFTER, "sweep-row", line, len);
		if (!c)
			return 1;
		w->nrows++;
		claims_set_pair(c, d[1], d[2], u[1][0] ? u[1] : w->unit);
		if (has) {
			c->change_pct = ch;
			c->has_change = 1;
		}
		claims_sweep_cond(c, w->what, (int)n);
		claims_describe_line(x, c, claims_nospan);
		return 1;
	}
	if (w->mode == 2) {
		int letter = 0;

		for (size_t k = 0; k < tk.l[0]; k++)
			letter |= isalpha((unsigned char)tk.t[0][k]);
		if (!letter || nnum != w->ncol || tk.n - 1 != w->ncol)
			goto not_row;
		/* a change or delta row says what the two rows say */
		if (w->nrows < 2 && !claims_starts_word(tk.t[0], tk.l[0],
		    "change") && !claims_starts_word(tk.t[0], tk.l[0], "delta") &&
		    !claims_starts_word(tk.t[0], tk.l[0], "diff")) {
			for (size_t k = 0; k < w->ncol; k++)
				w->v[w->nrows][k] = d[k + 1];
			snprintf(w->unit, sizeof(w->unit), "%s", u[1]);
			w->nrows++;
		}
		return 1;
	}
not_row:
	if (w->mode)
		claims_sweep_flush(x);
	return 0;
}

/*
 * The metric of a split table's column, by its name: "User", "System",
 * "Wall", "flt/cpu/s", "fault/wsec"; CLAIM_M_NONE for the set-up's
 * columns ("Gb", "Rep").
 */
static enum claim_metric
claims_split_metric(const char *t, size_t l)
{
	if (claims_starts_word(t, l, "user"))
		return CLAIM_M_TIME_USER;
	if (claims_starts_word(t, l, "system") || claims_starts_word(t, l,
	    "sys"))
		return CLAIM_M_TIME_SYS;
	if (claims_starts_word(t, l, "wall") || claims_starts_word(t, l,
	    "real") || claims_starts_word(t, l, "elapsed"))
		return CLAIM_M_TIME_REAL;
	if ((l > 2 && !strncmp(t + l - 2, "/s", 2)) || (l > 4 &&
	    !strncmp(t + l - 4, "/sec", 4)) || (l > 4 && !strncmp(t + l - 4,
	    "wsec", 4)))
		return CLAIM_M_RATE;
	return claims_class(t, l);
}

/*
 * A split table's header: "Gb Rep Threads User System Wall flt/cpu/s":
 * a count column and at least one metric column, no numbers; 1 when
 * line is one (the first: its rows are the base; the same header again:
 * its rows are the patched kernel's).
 */
static int
claims_split_header(struct claims_ctx *x, const char *line, size_t len)
{
	struct claims_split *w = &x->split;
	struct claims_toks tk;
	char hdr[sizeof(w->hdr)];
	size_t n = 0, key = (size_t)-1, metrics = 0;
	int what = -1;

	if (len > 120 || memchr(line, '.', len) || memchr(line, ',', len) ||
	    line[len - 1] == ':')
		return 0;
	claims_tokens(line, len, &tk);
	if (tk.n < 3 || tk.n > 12)
		return 0;
	/* the count's column first: cheap, and most lines have none */
	for (size_t i = 0; i < tk.n && key == (size_t)-1; i++) {
		if (tk.l[i] > 15)
			return 0;
		if ((what = claims_sweep_what(tk.t[i], tk.l[i])) >= 0)
			key = i;
	}
	if (key == (size_t)-1)
		return 0;
	for (size_t i = 0; i < tk.n; i++) {
		if (tk.l[i] > 15)
			return 0;
		if (i != key)
			metrics += claims_split_metric(tk.t[i], tk.l[i]) !=
			    CLAIM_M_NONE;
		if (n + tk.l[i] + 2 > sizeof(hdr))
			return 0;
		n += (size_t)snprintf(hdr + n, sizeof(hdr) - n, "%s%.*s",
		    i ? " " : "", (int)tk.l[i], tk.t[i]);
	}
	if (!metrics)
		return 0;
	if ((w->phase == 1 || w->phase == 2) && w->nrows &&
	    !strcmp(hdr, w->hdr)) {
		w->phase = 3;
		return 1;
	}
	memset(w, 0, sizeof(*w));
	snprintf(w->hdr, sizeof(w->hdr), "%s", hdr);
	w->ncol = tk.n;
	w->key = key;
	w->what = what;
	for (size_t i = 0; i < tk.n; i++) {
		w->m[i] = i == key ? CLAIM_M_NONE :
		    claims_split_metric(tk.t[i], tk.l[i]);
		snprintf(w->name[i], sizeof(w->name[i]), "%.*s",
		    (int)tk.l[i], tk.t[i]);
	}
	w->phase = 1;
	return 1;
}

/*
 * sweep-split: a row of a split table ("32 3 16 1.415s 1051.759s
 * 73.094s 5973.803 85087.358"): stored under the first header, and under
 * the second one claim per metric column against the first table's row
 * of the same count.
 */
static int
claims_rule_sweep_split(struct claims_ctx *x, const char *line, size_t len)
{
	struct claims_split *w = &x->split;
	struct claims_toks tk;
	double v[CLAIMS_TOK_MAX];
	char u[CLAIMS_TOK_MAX][8];
	size_t r;

	if (w->phase != 1 && w->phase != 3)
		return 0;
	claims_tokens(line, len, &tk);
	if (tk.n != w->ncol)
		goto end;
	for (size_t i = 0; i < tk.n; i++)
		if (!claims_tok_value(tk.t[i], tk.l[i], &v[i], u[i]))
			goto end;
	if (u[w->key][0] || v[w->key] != floor(v[w->key]) ||
	    v[w->key] <= 0 || v[w->key] > 1e6)
		goto end;
	if (w->phase == 1) {
		if (w->nrows < CLAIMS_SPLIT_ROWS) {
			w->count[w->nrows] = (int)v[w->key];
			memcpy(w->v[w->nrows], v, sizeof(v));
			for (size_t i = 0; i < tk.n; i++)
				memcpy(w->unit[i], u[i], sizeof(u[i]));
			w->nrows++;
		}
		return 1;
	}
	for (r = 0; r < w->nrows && w->count[r] != (int)v[w->key]; r++)
		;
	for (size_t i = 0; r < w->nrows && i < tk.n; i++) {
		char text[160];
		int n;
		struct claim *c;
		struct buf words = BUF_INIT(64);

		if (w->m[i] == CLAIM_M_NONE || strcmp(u[i], w->unit[i]))
			continue;
		n = snprintf(text, sizeof(text), "%s at %d %s: %g%s -> %g%s",
		    w->name[i], w->count[r], w->name[w->key], w->v[r][i], u[i],
		    v[i], u[i]);
		c = claims_new(x, CLAIM_BEFORE_AFTER, "sweep-split", text,
		    (size_t)n < sizeof(text) ? (size_t)n : sizeof(text) - 1);
		if (!c)
			break;
		claims_set_pair(c, w->v[r][i], v[i], u[i]);
		c->metric = w->m[i];
		claims_sweep_cond(c, w->what, w->count[r]);
		claims_describe_line(x, c, claims_nospan);
		buf_addstr(&words, w->name[i]);
		free(c->words);
		c->words = buf_detach(&words, NULL);
	}
	return 1;
end:
	/* the first table ends: wait for its pair; the second: done */
	w->phase = w->phase == 1 && w->nrows ? 2 : 0;
	return 0;
}

/* "Test          : hackbench": the value after a key and its ':'. */
static int
claims_norm_key(const char *s, size_t len, const char *key, size_t *val)
{
	size_t i, kl = strlen(key);

	if (len <= kl || strncmp(s, key, kl))
		return 0;
	for (i = kl; i < len && s[i] == ' '; i++)
		;
	if (i >= len || s[i] != ':')
		return 0;
	for (i++; i < len && s[i] == ' '; i++)
		;
	*val = i;
	return 1;
}

/* A cell "0.99 [ -0.87]( 1.34)" at s[*i..len): the value and pct imp. */
static int
claims_norm_cell(const char *s, size_t len, size_t *i, double *v, double *imp)
{
	size_t k = *i, l;
	int neg = 0;

	while (k < len && s[k] == ' ')
		k++;
	if (!(l = claims_digits(s + k, len - k, v)))
		return 0;
	for (k += l; k < len && s[k] == ' '; k++)
		;
	if (k >= len || s[k++] != '[')
		return 0;
	while (k < len && s[k] == ' ')
		k++;
	if (k < len && (s[k] == '-' || s[k] == '+'))
		neg = s[k++] == '-';
	if (!(l = claims_digits(s + k, len - k, imp)))
		return 0;
	for (k += l; k < len && s[k] == ' '; k++)
		;
	if (k >= len || s[k++] != ']')
		return 0;
	if (k < len && s[k] == '(') {	/* the CV: spread, no claim */
		while (k < len && s[k] != ')')
			k++;
		k += k < len;
	}
	if (neg)
		*imp = -*imp;
	*i = k;
	return 1;
}

/*
 * sweep-norm: a normalised table (tip is 1.00): "Test : tbench", "Units
 * : Normalized throughput", "Interpretation: Higher is better", a header
 * "Clients: tip[pct imp](CV) new[pct imp](CV)", rows "16  1.00 [ 0.00](
 * 1.06)  1.01 [ 0.94]( 0.70)": each later column a claim, its change the
 * pct imp (turned around when lower is better); "Clients" and
 * "#workers" rows are thread counts, "1-groups" none.  A "%diff" table's
 * row "ycsb-mongodb  0.09%" is one change.  1 when the line was read.
 */
static int
claims_rule_sweep_norm(struct claims_ctx *x, const char *line, size_t len)
{
	size_t i = 0, v0, lab, labl;
	struct claims_toks tk;
	double base, bimp, v, imp, n;
	char u[8];
	struct claim *c;

	while (i < len && line[i] == ' ')
		i++;
	if (claims_norm_key(line + i, len - i, "Test", &v0)) {
		x->nm_on = 1;
		x->nm_lower = x->nm_diff = x->nm_rows = 0;
		x->nm_what = -1;
		x->nm_metric = CLAIM_M_NONE;
		snprintf(x->nm_test, sizeof(x->nm_test), "%.*s",
		    (int)(len - i - v0), line + i + v0);
		return 1;
	}
	if (!x->nm_on)
		return 0;
	if (claims_norm_key(line + i, len - i, "Units", &v0)) {
		const char *t = line + i + v0;
		size_t tl = len - i - v0;

		x->nm_metric = claims_icontains(t, tl, "latency") ?
		    CLAIM_M_LATENCY : claims_icontains(t, tl, "throughput") ?
		    CLAIM_M_RATE : claims_icontains(t, tl, "time") ?
		    CLAIM_M_TIME_REAL : CLAIM_M_OTHER;
		return 1;
	}
	if (claims_norm_key(line + i, len - i, "Interpretation", &v0)) {
		x->nm_lower = claims_starts_word(line + i + v0, len - i - v0,
		    "lower");
		return 1;
	}
	if (claims_norm_key(line + i, len - i, "Statistic", &v0))
		return 1;
	claims_tokens(line + i, len - i, &tk);
	if (!tk.n)
		return 0;
	if (tk.t[0][tk.l[0] - 1] == ':') {	/* the header */
		x->nm_on = 2;
		x->nm_rows = 0;
		x->nm_what = claims_starts_word(tk.t[0], tk.l[0], "clients") ||
		    claims_starts_word(tk.t[0], tk.l[0], "#workers") ||
		    claims_sweep_what(tk.t[0], tk.l[0]) == 0 ? 0 : -1;
		x->nm_diff = tk.n == 2 && tk.l[1] == 5 &&
		    !strncmp(tk.t[1], "%diff", 5);
		return tk.n >= 2 && (x->nm_diff || claims_icontains(line, len,
		    "[pct imp]"));
	}
	if (x->nm_on != 2)
		return 0;
	if (x->nm_diff) {
		int pct;

		if (tk.n < 2 || tk.n > 4)
			return x->nm_on = 0;
		if (!claims_tok_signed(tk.t[tk.n - 1], tk.l[tk.n - 1], &v,
		    &pct)) {
			if (!claims_tok_value(tk.t[tk.n - 1], tk.l[tk.n - 1], &v,
			    u) || strcmp(u, "%"))
				return x->nm_on = 0;
		} else if (!pct)
			return x->nm_on = 0;
		x->nm_rows++;
		c = claims_new(x, CLAIM_CHANGE, "sweep-norm", line, len);
		if (!c)
			return 1;
		c->has_change = 1;
		c->change_pct = x->nm_lower ? -v : v;
		strcpy(c->unit, "%");
		c->metric = x->nm_metric;
		claims_describe_line(x, c, claims_nospan);
		free(c->words);
		c->words = xstrndup(tk.t[0], tk.l[0]);
		return 1;
	}
	/* a row: its label, then its cells */
	lab = i;
	while (i < len && line[i] != ' ')
		i++;
	labl = i - lab;
	if (!claims_norm_cell(line, len, &i, &base, &bimp))
		return x->nm_on = 0;
	x->nm_rows++;
	while (claims_norm_cell(line, len, &i, &v, &imp)) {
		c = claims_new(x, CLAIM_BEFORE_AFTER, "sweep-norm", line, len);
		if (!c)
			return 1;
		claims_set_pair(c, base, v, "");
		c->change_pct = x->nm_lower ? -imp : imp;
		c->metric = x->nm_metric;
		if (x->nm_what == 0 && claims_tok_value(line + lab, labl, &n,
		    u) && !u[0] && n == floor(n) && n > 0 && n < 1e6)
			c->cond.threads = (int)n;
		claims_describe_line(x, c, claims_nospan);
		free(c->words);
		c->words = xstrdup(x->nm_test);
	}
	return 1;
}

/* Bytes per second in one of a rate unit ("MiB/s"); 0 for others. */
static double
claims_rate_scale(const char *u)
{
	static const struct {
		const char *u;
		double f;
	} t[] = { { "KiB/s", 1024.0 }, { "MiB/s", 1048576.0 },
	    { "GiB/s", 1073741824.0 }, { "KB/s", 1e3 }, { "MB/s", 1e6 },
	    { "GB/s", 1e9 } };

	for (size_t i = 0; i < NELEM(t); i++)
		if (!strcmp(u, t[i].u))
			return t[i].f;
	return 0;
}

/*
 * fio's command line: "--numjobs=8" is the run's thread count;
 * "-rwmixwrite=[10,30,50]" (or "rwmixwrite=10%") the read/write mixes,
 * percentages that name a setting ("for the 30% and 50% mixes").
 */
static void
claims_fio_jobs(struct claims_ctx *x, const char *p, size_t len)
{
	double v;
	size_t l;

	if (!memchr(p, '=', len))
		return;
	for (size_t i = 0; i + 8 < len; i++) {
		if (p[i] == 'n' && !strncmp(p + i, "numjobs=", 8) &&
		    (l = claims_digits(p + i + 8, len - i - 8, &v)) && v >= 1 &&
		    v < 1e6)
			x->fio_jobs = (int)v;
		if (p[i] != 'r' || strncmp(p + i, "rwmix", 5))
			continue;
		for (i += 5; i < len && p[i] != '=' && p[i] != ' '; i++)
			;
		if (i >= len || p[i] != '=')
			continue;
		i += 1 + (i + 1 < len && p[i + 1] == '[');
		while (i < len && (l = claims_digits(p + i, len - i, &v))) {
			if (v >= 0 && v < 128 && v == floor(v))
				x->fio_mix[(int)v / 64] |= UINT64_C(1) <<
				    ((int)v % 64);
			i += l;
			if (i >= len || p[i] != ',')
				break;
			i++;
		}
	}
}

/* Is v% one of the letter's fio read/write mixes? */
static int
claims_is_fio_mix(const struct claims_ctx *x, double v)
{
	return v >= 0 && v < 128 && v == floor(v) &&
	    (x->fio_mix[(int)v / 64] >> ((int)v % 64) & 1);
}

/* A fio claim: before, after (in the before's unit), its figure's name. */
static void
claims_fio_claim(struct claims_ctx *x, const char *line, size_t len,
    const char *name, size_t nl, double b, const char *ub, double a,
    const char *ua)
{
	double fb = claims_rate_scale(ub), fa = claims_rate_scale(ua);
	struct claim *c;

	if (strcmp(ub, ua) && (!fb || !fa))
		return;
	if (strcmp(ub, ua))
		a = a * fa / fb;
	c = claims_new(x, CLAIM_BEFORE_AFTER, "fio-line", line, len);
	if (!c)
		return;
	claims_set_pair(c, b, a, ub);
	c->metric = CLAIM_M_RATE;
	if (x->fio_jobs > 0)
		c->cond.threads = x->fio_jobs;
	claims_describe_line(x, c, claims_nospan);
	free(c->words);
	c->words = xstrndup(name, nl);
}

/*
 * fio-line: fio's figures side by side.  "v6.2: write: IOPS=4328,
 * BW=8724KiB/s" then "v6.2 (patched): write: IOPS=801k, BW=1565MiB/s":
 * the base line, then the patched one (MiB/s in the base's KiB/s); or a
 * row "Instance 1  r=27.5GiB/s,w=3125MiB/s  r=75.9GiB/s,w=8636MiB/s":
 * each name before and after.  A lone "rwmixwrite=10%" is a setting.
 * The threads are the command's --numjobs.  1 when the line was read.
 */
static int
claims_rule_fio(struct claims_ctx *x, const char *line, size_t len)
{
	const char *e = memchr(line, '=', len);
	struct claims_toks tk;
	size_t g[2], ng = 0, i;

	if (!e)
		return 0;
	if (e - line >= 4 && !strncmp(e - 4, "IOPS", 4)) {
		const char *bw = NULL;
		double v[2];
		char u[2][8];
		int patched;

		for (i = (size_t)(e - line); i + 3 < len && !bw; i++)
			if (line[i] == 'B' && !strncmp(line + i, "BW=", 3))
				bw = line + i + 3;
		if (!bw || !claims_value(e + 1, len - (size_t)(e + 1 - line),
		    &v[0], u[0]) || !claims_value(bw, len - (size_t)(bw - line),
		    &v[1], u[1]) || !u[1][0])
			return 0;
		patched = claims_icontains(line, (size_t)(e - line), "patched");
		if (!patched) {
			x->fio_has = 1;
			memcpy(x->fio_v, v, sizeof(v));
			memcpy(x->fio_u, u, sizeof(u));
			return 1;
		}
		if (!x->fio_has)
			return 0;
		claims_fio_claim(x, line, len, "IOPS", 4, x->fio_v[0],
		    x->fio_u[0], v[0], u[0]);
		claims_fio_claim(x, line, len, "BW", 2, x->fio_v[1],
		    x->fio_u[1], v[1], u[1]);
		x->fio_has = 0;
		return 1;
	}
	claims_tokens(line, len, &tk);
	if (tk.n == 1 && tk.l[0] < 32 && isalpha((unsigned char)tk.t[0][0]) &&
	    tk.t[0][tk.l[0] - 1] == '%')
		return 1;	/* "rwmixwrite=10%": a setting */
	for (i = 0; i < tk.n; i++) {
		if (!memchr(tk.t[i], '=', tk.l[i]))
			continue;
		if (ng == 2)
			return 0;
		g[ng++] = i;
	}
	if (ng != 2 || g[0] == 0 || g[1] != tk.n - 1 || g[0] + 1 != g[1])
		return 0;
	/* "r=27.5GiB/s,w=3125MiB/s": the same names in both groups */
	{
		const char *a = tk.t[g[0]], *b = tk.t[g[1]];
		size_t al = tk.l[g[0]], bl = tk.l[g[1]], ai = 0, bi = 0;
		int n = 0;

		while (ai < al && bi < bl) {
			size_t an = ai, bn = bi, la, lb;
			double va, vb;
			char ua[8], ub[8];

			while (an < al && a[an] != '=')
				an++;
			while (bn < bl && b[bn] != '=')
				bn++;
			if (an >= al || bn >= bl || an - ai != bn - bi ||
			    an == ai || strncmp(a + ai, b + bi, an - ai))
				return n > 0;
			la = claims_value(a + an + 1, al - an - 1, &va, ua);
			lb = claims_value(b + bn + 1, bl - bn - 1, &vb, ub);
			if (!la || !lb || !ua[0] || !ub[0])
				return n > 0;
			claims_fio_claim(x, line, len, a + ai, an - ai, va, ua,
			    vb, ub);
			n++;
			ai = an + 1 + la + 1;	/* past the ',' */
			bi = bn + 1 + lb + 1;
		}
		return n > 0;
	}
}

/* Seconds in one of a perf lock time unit ("ms", "h"); 0 for others. */
static double
claims_time_scale(const char *u, size_t l)
{
	static const struct {
		const char *u;
		double f;
	} t[] = { { "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
	    { "m", 60 }, { "h", 3600 } };

	for (size_t i = 0; i < NELEM(t); i++)
		if (l == strlen(t[i].u) && !strncmp(u, t[i].u, l))
			return t[i].f;
	return 0;
}

/* perf lock contention's header: "contended total wait ... caller". */
static int
claims_perf_lock_header(struct claims_ctx *x, const char *p, size_t len)
{
	size_t i = 0;

	while (i < len && p[i] == ' ')
		i++;
	if (len - i < 40 || p[i] != 'c' || strncmp(p + i, "contended ", 10) ||
	    !claims_icontains(p + i, len - i, "caller"))
		return 0;
	if ((x->pl_phase == 1 || x->pl_phase == 2) && x->pl_n)
		x->pl_phase = 3;
	else {
		x->pl_phase = 1;
		x->pl_n = 0;
	}
	return 1;
}

/*
 * perf-lock-pair: "perf lock contention" run before and after, two
 * tables: "2665573  64.38 h  1.98 s  86.95 ms  rwsem:W
 * blkdev_llseek+0x31".  A row of the second table whose caller the
 * first one has: contended, total, max and avg wait before and after
 * (the after in the before's unit).  1 when the line was a row.
 */
static int
claims_rule_perf_lock(struct claims_ctx *x, const char *line, size_t len)
{
	static const char *const names[4] = { "contended", "total wait",
	    "max wait", "avg wait" };
	struct claims_toks tk;
	double v[4], f[3];
	char u[8];
	size_t r, cl;

	claims_tokens(line, len, &tk);
	if (tk.n != 9)
		goto end;
	if (!claims_tok_value(tk.t[0], tk.l[0], &v[0], u) || u[0])
		goto end;
	for (int k = 0; k < 3; k++)
		if (!claims_tok_value(tk.t[1 + 2 * k], tk.l[1 + 2 * k], &v[1 + k],
		    u) || u[0] || !(f[k] = claims_time_scale(tk.t[2 + 2 * k],
		    tk.l[2 + 2 * k])))
			goto end;
	cl = tk.l[8];
	for (size_t k = 0; k < tk.l[8]; k++)
		if (tk.t[8][k] == '+') {
			cl = k;		/* "+0x31" moves with the build */
			break;
		}
	if (x->pl_phase == 1) {
		if (x->pl_n < CLAIMS_SPLIT_ROWS) {
			r = x->pl_n++;
			snprintf(x->pl_caller[r], sizeof(x->pl_caller[r]),
			    "%.*s", (int)cl, tk.t[8]);
			memcpy(x->pl_v[r], v, sizeof(v));
			for (int k = 0; k < 3; k++)
				snprintf(x->pl_u[r][k], sizeof(x->pl_u[r][k]),
				    "%.*s", (int)tk.l[2 + 2 * k],
				    tk.t[2 + 2 * k]);
		}
		return 1;
	}
	for (r = 0; r < x->pl_n; r++)
		if (strlen(x->pl_caller[r]) == cl &&
		    !strncmp(x->pl_caller[r], tk.t[8], cl))
			break;
	for (int k = 0; r < x->pl_n && k < 4; k++) {
		double a = v[k];
		const char *un = k ? x->pl_u[r][k - 1] : "";
		struct claim *c;

		if (k)	/* in the before's unit */
			a = a * f[k - 1] / claims_time_scale(un, strlen(un));
		c = claims_new(x, CLAIM_BEFORE_AFTER, "perf-lock-pair", line,
		    len);
		if (!c)
			return 1;
		claims_set_pair(c, x->pl_v[r][k], a, un);
		c->metric = CLAIM_M_LOCK;
		if (x->fio_jobs > 0)
			c->cond.threads = x->fio_jobs;
		claims_describe_line(x, c, claims_nospan);
		free(c->words);
		c->words = xasprintf("%s, %s", names[k], x->pl_caller[r]);
	}
	return 1;
end:
	x->pl_phase = x->pl_phase == 1 && x->pl_n ? 2 : 0;
	return 0;
}

/* Arrows between a before and an after value. */
static size_t
claims_arrow_at(const char *s, size_t len)
{
	if (len >= 2 && (!strncmp(s, "->", 2) || !strncmp(s, "=>", 2)))
		return 2;
	if (len >= 3 && !strncmp(s, "\xe2\x86\x92", 3))
		return 3;
	return 0;
}

/*
 * arrow-line: "  contended     1800223 -> 402117", "real 12m03s ->
 * 9m41s", "_raw_spin_lock_irqsave 38.20% -> 7.90%": a label of a few
 * words, a value, an arrow, a value of the same unit, little after.
 */
static int
claims_rule_arrow_line(struct claims_ctx *x, const char *line, size_t len)
{
	size_t i, l0, l1, a, j, words = 0, lab_end;
	double v0, v1;
	char u0[8], u1[8];
	int letter = 0, ident = 1;
	enum claim_metric m = CLAIM_M_NONE;
	struct claim *c;
	const char *lab;
	size_t labl;

	/* the first value that an arrow follows */
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)line[i]) || (i > 0 &&
		    (claims_is_word_char(line[i - 1]) || line[i - 1] == '.' ||
		    line[i - 1] == '/' || line[i - 1] == ':')))
			continue;
		if (!(l0 = claims_value(line + i, len - i, &v0, u0)))
			continue;
		j = i + l0;
		while (j < len && line[j] == ' ')
			j++;
		if ((a = claims_arrow_at(line + j, len - j)))
			break;
		i += l0 - 1;
	}
	if (i >= len)
		return 0;
	j += a;
	while (j < len && line[j] == ' ')
		j++;
	if (!(l1 = claims_value(line + j, len - j, &v1, u1)) || strcmp(u0, u1))
		return 0;
	if (j + l1 < len && claims_is_word_char(line[j + l1]))
		return 0;
	if (len - (j + l1) > 16)
		return 0;
	/* the label: a few words with a letter, not a sentence's end */
	lab = line;
	lab_end = i;
	while (lab < line + lab_end && isspace((unsigned char)*lab))
		lab++;
	labl = line + lab_end - lab;
	while (labl && (lab[labl - 1] == ' ' || lab[labl - 1] == ':' ||
	    lab[labl - 1] == '\t'))
		labl--;
	if (labl > 64)
		return 0;
	for (size_t k = 0; k < labl; k++) {
		letter |= isalpha((unsigned char)lab[k]);
		if (lab[k] == ' ' && k + 1 < labl && lab[k + 1] != ' ')
			words++, ident = 0;
		if (lab[k] == '(' || lab[k] == ',')
			ident = 0;
	}
	if (!letter || words > 8)
		return 0;
	if (labl >= 4 && (!strncasecmp(lab + labl - 4, "from", 4) ||
	    !strncasecmp(lab + labl - 2, "to", 2) || !strncasecmp(lab +
	    labl - 2, "by", 2)))
		return 0;
	/* counts need a metric word: "line 812 -> 815" is none */
	if (claims_starts_word(lab, labl, "real"))
		m = CLAIM_M_TIME_REAL;
	else if (claims_starts_word(lab, labl, "user"))
		m = CLAIM_M_TIME_USER;
	else if (claims_starts_word(lab, labl, "sys"))
		m = CLAIM_M_TIME_SYS;
	else if ((m = claims_class(lab, labl)) == CLAIM_M_NONE && ident &&
	    !strcmp(u0, "%") && memchr(lab, '_', labl))
		m = claims_icontains(lab, labl, "lock") ? CLAIM_M_LOCK :
		    CLAIM_M_PROFILE;
	if (m == CLAIM_M_NONE && !u0[0] && !(x->caption &&
	    claims_class(x->caption, strlen(x->caption)) != CLAIM_M_NONE))
		return 0;
	c = claims_new(x, CLAIM_BEFORE_AFTER, "arrow-line", line, len);
	if (!c)
		return 1;
	claims_set_pair(c, v0, v1, u0);
	c->metric = m;
	claims_describe_line(x, c, (struct claims_span){ lab, labl });
	if (c->metric == CLAIM_M_NONE && !strcmp(c->unit, "s"))
		c->metric = CLAIM_M_TIME_REAL;
	return 1;
}

/*
 * A table row's label says its own sizes: "make -j96 (64K):" is 96 jobs
 * (threads) with 64 kB folios, "(4K)" the base page (no large folio,
 * whatever the caption says of both sizes).
 */
static void
claims_label_sizes(struct claim *c, const char *s, size_t len)
{
	double v;
	size_t l;

	for (size_t i = 0; i + 2 < len; i++) {
		if (s[i] == '-' && s[i + 1] == 'j' && i >= 5 &&
		    !strncmp(s + i - 5, "make ", 5) &&
		    (l = claims_digits(s + i + 2, len - i - 2, &v)) && v >= 1 &&
		    v < 1e5)
			c->cond.threads = (int)v;
		if (s[i] == '(' && (l = claims_digits(s + i + 1, len - i - 1,
		    &v)) && i + 1 + l < len && (s[i + 1 + l] == 'K' ||
		    s[i + 1 + l] == 'k')) {
			if (v == 4)
				c->cond.folio_kb = CLAIM_NONE;
			else if (v >= 8 && v <= 1024 && v == floor(v) &&
			    ((int)v & ((int)v - 1)) == 0)
				c->cond.folio_kb = (int)v;
		}
	}
}

/* "(24410.78)": a spread in parentheses. */
static int
claims_tok_spread(const char *t, size_t l)
{
	double v;
	char u[8];

	return l > 2 && t[0] == '(' && t[l - 1] == ')' &&
	    claims_tok_value(t + 1, l - 2, &v, u);
}

/*
 * table-row: tokens from the right: an optional "(+15%)", then two
 * values; what is left, the label, has a letter.
 */
static int
claims_rule_table_row(struct claims_ctx *x, const char *line, size_t len)
{
	struct claims_toks tk;
	double pct = 0, v[2];
	char unit[2][8];
	int has_pct = 0, k, letter = 0, is_pct, spread = 0;
	struct claim *c;

	claims_tokens(line, len, &tk);
	if (tk.n < 3)
		return 0;
	k = (int)tk.n - 1;
	if (tk.l[k] > 2 && claims_tok_signed(tk.t[k], tk.l[k], &pct, &is_pct) &&
	    is_pct) {
		has_pct = 1;
		k--;
	}
	if (k < 2)
		return 0;
	/* under a "Before (s) (stdev) After (s) (stdev)" header: "424907.60
	   (24410.78) 414745.92 (34554.78)", each value with its spread */
	if (x->table_header && !has_pct && k >= 4 && tk.t[k][0] == '(' &&
	    tk.t[k - 2][0] == '(' && claims_tok_spread(tk.t[k], tk.l[k]) &&
	    claims_tok_spread(tk.t[k - 2], tk.l[k - 2]) &&
	    claims_tok_value(tk.t[k - 3], tk.l[k - 3], &v[0], unit[0]) &&
	    claims_tok_value(tk.t[k - 1], tk.l[k - 1], &v[1], unit[1])) {
		spread = 1;
		k -= 2;		/* the label ends before tk.t[k - 1] */
	}
	for (int j = 0; j < 2 && !spread; j++)
		if (!claims_tok_value(tk.t[k - 1 + j], tk.l[k - 1 + j], &v[j],
		    unit[j]))
			return 0;
	for (int j = 0; j < k - 1; j++)
		for (size_t m = 0; m < tk.l[j]; m++)
			if (isalpha((unsigned char)tk.t[j][m]))
				letter = 1;
	if (!letter || (!has_pct && !x->table_header))
		return 0;
	if (strcmp(unit[0], unit[1]) != 0)
		return 0;
	c = claims_new(x, CLAIM_BEFORE_AFTER, "table-row", line, len);
	if (!c)
		return 1;
	claims_set_pair(c, v[0], v[1], unit[0]);
	if (has_pct) {
		c->change_pct = pct;
		c->has_change = 1;
	}
	/* the label's conditions are its own; the caption fills the rest */
	claims_describe_line(x, c, (struct claims_span){ line,
	    (size_t)(tk.t[k - 1] - line) });
	claims_label_sizes(c, line, (size_t)(tk.t[k - 1] - line));
	return 1;
}

/* "0m20.328s", "20.3s", "10m23.639s" -> seconds; -1 when not a duration */
static double
claims_duration(const char *t, size_t tl)
{
	double v;
	char u[8];

	if (!claims_tok_value(t, tl, &v, u) || strcmp(u, "s"))
		return -1;
	return v;
}

/* A figure of a time-block: its own key, one sum per phase. */
static struct claims_tb_slot *
claims_tb_slot(struct claims_ctx *x, const char *key, enum claim_metric m,
    const char *unit)
{
	size_t i;

	if (!x->tb_nslot) {
		/* time(1)'s three first, in its order */
		static const char *const names[3] = { "real", "user", "sys" };
		static const enum claim_metric metric[3] = { CLAIM_M_TIME_REAL,
		    CLAIM_M_TIME_USER, CLAIM_M_TIME_SYS };

		memset(x->tb, 0, sizeof(x->tb));
		for (i = 0; i < 3; i++) {
			snprintf(x->tb[i].key, sizeof(x->tb[i].key), "%s",
			    names[i]);
			x->tb[i].metric = metric[i];
			strcpy(x->tb[i].unit, "s");
		}
		x->tb_nslot = 3;
	}
	for (i = 0; i < x->tb_nslot; i++)
		if (!strcmp(x->tb[i].key, key))
			return &x->tb[i];
	if (i == CLAIMS_TB_SLOTS)
		return NULL;
	memset(&x->tb[i], 0, sizeof(x->tb[i]));
	snprintf(x->tb[i].key, sizeof(x->tb[i].key), "%s", key);
	x->tb[i].metric = m;
	snprintf(x->tb[i].unit, sizeof(x->tb[i].unit), "%s", unit);
	x->tb_nslot++;
	return &x->tb[i];
}

static void
claims_tb_add(struct claims_ctx *x, const char *key, enum claim_metric m,
    const char *unit, double v)
{
	struct claims_tb_slot *t = claims_tb_slot(x, key, m, unit);

	if (!t || !x->tb_phase)
		return;
	t->sum[x->tb_phase - 1] += v;
	t->n[x->tb_phase - 1]++;
}

static void
claims_time_block_flush(struct claims_ctx *x)
{
	for (size_t k = 0; k < x->tb_nslot; k++) {
		const struct claims_tb_slot *t = &x->tb[k];
		struct claim *c;
		char text[512];
		double b, a;
		int n;

		if (!t->n[0] || !t->n[1])
			continue;
		b = t->sum[0] / t->n[0];
		a = t->sum[1] / t->n[1];
		n = snprintf(text, sizeof(text),
		    "%s%s%s mean of %d runs %.3f%s -> %d runs %.3f%s",
		    x->tb_title ? x->tb_title : "",
		    x->tb_title ? ": " : "", t->key, t->n[0], b, t->unit,
		    t->n[1], a, t->unit);
		c = claims_new(x, CLAIM_BEFORE_AFTER, "time-block", text,
		    n < (int)sizeof(text) ? (size_t)n : sizeof(text) - 1);
		if (!c)
			break;
		c->metric = t->metric;
		claims_set_pair(c, b, a, t->unit);
		if (!c->has_change) {
			c->has_change = 1;
			c->change_pct = 0;
		}
		if (x->tb_title) {
			claims_cond_read(&c->cond, x->tb_title,
			    strlen(x->tb_title));
			/* the block timed "make -j96": 96 jobs */
			if (c->cond.threads == CLAIM_NONE)
				c->cond.threads = claims_make_jobs(
				    x->tb_title, strlen(x->tb_title));
		}
		claims_describe_line(x, c, claims_nospan);
		free(c->words);
		c->words = k < 3 ? xasprintf("%s time", t->key) :
		    xstrdup(t->key);
	}
	x->tb_nslot = 0;
	x->tb_phase = 0;
	x->tb_seen = 0;
}

/*
 * A figure alone at s[0..len) (after "Before:", or a line of its own):
 * "11143285 us", "94055.61 qps", "12.3 s (+4.1%)": a time is the run's
 * real time, a rate word a rate; 1 when added.
 */
static int
claims_tb_bare(struct claims_ctx *x, const char *s, size_t len)
{
	static const char *const rates[] = { "qps", "tps", "ops", "iops",
	    "IOPS", "ops/s", "ops/sec", "MB/s", "MiB/s", "GB/s", "GiB/s", NULL };
	double v;
	char u[8];
	size_t l, i, w;

	while (len && isspace((unsigned char)*s))
		s++, len--;
	if (!len || !isdigit((unsigned char)*s) ||
	    !(l = claims_value(s, len, &v, u)))
		return 0;
	for (i = l; i < len && s[i] == ' '; i++)
		;
	for (w = i; w < len && !isspace((unsigned char)s[w]) && s[w] != '('; w++)
		;
	if (!u[0] && w > i) {
		for (const char *const *r = rates; *r; r++)
			if (strlen(*r) == w - i && !strncmp(s + i, *r, w - i)) {
				snprintf(u, sizeof(u), "%.*s", (int)(w - i),
				    s + i);
				break;
			}
		if (!u[0])
			return 0;
		i = w;
		while (i < len && s[i] == ' ')
			i++;
	} else if (w > i)
		return 0;
	/* nothing after it but a change in parentheses */
	if (i < len && (s[i] != '(' || s[len - 1] != ')'))
		return 0;
	if (!strcmp(u, "%"))
		return 0;
	if (!strcmp(u, "s") || !strcmp(u, "ms") || !strcmp(u, "us") ||
	    !strcmp(u, "ns"))
		claims_tb_add(x, "time", CLAIM_M_TIME_REAL, u, v);
	else
		claims_tb_add(x, u, CLAIM_M_RATE, u, v);
	return 1;
}

/*
 * fio's summary lines in a block: "bw (  MiB/s): min= 1167, ...,
 * avg=1460.82, ..." and "iops : ... avg=373964.41": the average (never
 * per=, a share of the group); 1 when read.
 */
static int
claims_tb_fio(struct claims_ctx *x, const char *s, size_t len)
{
	static const struct {
		const char *key;
		enum claim_metric m;
	} keys[] = { { "bw", CLAIM_M_RATE }, { "iops", CLAIM_M_RATE },
	    { "lat", CLAIM_M_LATENCY }, { "clat", CLAIM_M_LATENCY } };
	size_t i = 0, k, l;
	double v;

	while (i < len && isspace((unsigned char)s[i]))
		i++;
	for (k = 0; k < NELEM(keys); k++) {
		l = strlen(keys[k].key);
		if (len - i > l && !strncmp(s + i, keys[k].key, l) &&
		    (s[i + l] == ' ' || s[i + l] == ':'))
			break;
	}
	if (k == NELEM(keys))
		return 0;
	for (i += l; i + 4 < len; i++)
		if (s[i] == 'a' && !strncmp(s + i, "avg=", 4) &&
		    (l = claims_digits(s + i + 4, len - i - 4, &v))) {
			claims_tb_add(x, keys[k].key, keys[k].m, "", v);
			return 1;
		}
	return 0;
}

/*
 * Christoph's slab benchmark in a block: "Kmalloc N*alloc N*free(32):
 * Average=355/750", cycles per alloc and per free: two latencies keyed
 * by the label; 1 when read.
 */
static int
claims_tb_average(struct claims_ctx *x, const char *s, size_t len)
{
	const char *e = memchr(s, '=', len);
	size_t i, l, lab;
	double v[2];
	char key[40];

	if (!e || e - s < 9 || strncmp(e - 7, "Average", 7))
		return 0;
	for (lab = (size_t)(e - 7 - s); lab && (s[lab - 1] == ' ' ||
	    s[lab - 1] == ':'); lab--)
		;
	i = (size_t)(e - s) + 1;
	if (!(l = claims_digits(s + i, len - i, &v[0])) || i + l >= len ||
	    s[i + l] != '/')
		return 0;
	i += l + 1;
	if (!(l = claims_digits(s + i, len - i, &v[1])) || i + l != len)
		return 0;
	for (int k = 0; k < 2; k++) {
		snprintf(key, sizeof(key), "%.*s %s", (int)(lab < 30 ? lab : 30),
		    s, k ? "free" : "alloc");
		claims_tb_add(x, key, CLAIM_M_LATENCY, "", v[k]);
	}
	return 1;
}

/*
 * time(1)'s default form, "6.07user 250.74system 4:17.26elapsed 99%CPU",
 * token t: 1 when t is one of its figures (99%CPU is never a claim).
 */
static int
claims_tb_gnu_time(struct claims_ctx *x, const char *t, size_t tl)
{
	static const char *const sfx[3] = { "elapsed", "user", "system" };
	static const char *const key[3] = { "real", "user", "sys" };
	double v;
	char u[8];

	for (int k = 0; k < 3; k++) {
		size_t sl = strlen(sfx[k]);

		if (tl <= sl || strncmp(t + tl - sl, sfx[k], sl))
			continue;
		if (claims_value(t, tl - sl, &v, u) != tl - sl ||
		    (u[0] && strcmp(u, "s")))
			return 0;
		claims_tb_add(x, key[k], CLAIM_M_NONE, "s", v);
		return 1;
	}
	return 0;
}

/*
 * A block's marker line of its own: "a) With this patch series applied:"
 * and "b) Without this patch series:" (either first), "* Before" and "*
 * After"; 1 when line is one.
 */
static int
claims_tb_marker(struct claims_ctx *x, const char *line, size_t len)
{
	/* "a) With this patch series applied:", "b) Without this patch
	   series:": either may come first */
	if (len > 16 && line[len - 1] == ':' && (line[0] == ' ' ||
	    isalpha((unsigned char)line[0]))) {
		size_t k = 0;
		int p = 0;

		while (k < len && line[k] == ' ')
			k++;
		if (k + 3 < len && isalpha((unsigned char)line[k]) &&
		    line[k + 1] == ')' && line[k + 2] == ' ')
			k += 3;
		if (len - k < 15)
			return 0;
		if (!strncmp(line + k, "Without this patch", 18) ||
		    !strncmp(line + k, "Without the patch", 17))
			p = 1;
		else if (!strncmp(line + k, "With this patch", 15) ||
		    !strncmp(line + k, "With the patch", 14))
			p = 2;
		if (p) {
			if (x->tb_seen == 3)
				claims_time_block_flush(x);
			x->tb_phase = p;
			x->tb_seen |= p;
			return 1;
		}
	}
	/* "Before this series:", "After this commit:", "After the patch:":
	   a heading of its own, no numbers */
	if (len > 8 && len < 40 && line[len - 1] == ':' &&
	    strcspn(line, "0123456789") >= len) {
		if (!strncmp(line, "Before ", 7)) {
			if (x->tb_phase == 2)
				claims_time_block_flush(x);
			x->tb_phase = 1;
			return 1;
		}
		if (!strncmp(line, "After ", 6) && x->tb_phase == 1) {
			x->tb_phase = 2;
			return 1;
		}
	}
	/* "* Before", "* After": a list's markers */
	if (len > 2 && (line[0] == '*' || line[0] == '-') && line[1] == ' ') {
		if (len == 8 && !strncasecmp(line + 2, "Before", 6)) {
			if (x->tb_phase == 2)
				claims_time_block_flush(x);
			x->tb_phase = 1;
			return 1;
		}
		if (len == 7 && !strncasecmp(line + 2, "After", 5) &&
		    x->tb_phase == 1) {
			x->tb_phase = 2;
			return 1;
		}
	}
	return 0;
}

/*
 * time-block: feeds a line's tokens; returns 1 when the line was part of
 * a block (a marker or a time(1) figure), so it is not prose.
 */
static int
claims_rule_time_block(struct claims_ctx *x, const char *line, size_t len)
{
	size_t i = 0;
	int used = 0, key = -1, near = x->tb_near;
	const char *prev = NULL;
	size_t prevl = 0;

	x->tb_near = 0;
	if (x->tb_phase && near && (claims_tb_fio(x, line, len) ||
	    claims_tb_bare(x, line, len) || claims_tb_average(x, line, len)))
		return x->tb_near = 1;
	if (claims_tb_marker(x, line, len))
		return x->tb_near = 1;
	while (i < len) {
		const char *t;
		size_t tl;

		while (i < len && isspace((unsigned char)line[i]))
			i++;
		t = line + i;
		while (i < len && !isspace((unsigned char)line[i]))
			i++;
		tl = line + i - t;
		if (!tl)
			break;
		/* "Before:", or "Before" alone on its line (not a table's
		   "before after" header) */
		if ((tl == 7 && !strncasecmp(t, "Before:", 7)) ||
		    (tl == 6 && !strncasecmp(t, "Before", 6) && tl == len)) {
			if (x->tb_phase == 2)
				claims_time_block_flush(x);
			x->tb_phase = 1;
			used = 1;
			if (claims_tb_bare(x, line + i, len - i))
				break;
		} else if ((tl == 6 && !strncasecmp(t, "After:", 6)) ||
		    (tl == 5 && !strncasecmp(t, "After", 5) && tl == len)) {
			if (x->tb_phase == 1)
				x->tb_phase = 2;
			used = 1;
			if (x->tb_phase == 2 && (claims_tb_bare(x, line + i,
			    len - i) || (i < len && line[len - 1] == ')')))
				break;	/* "After: (-54.7% sys time)" */
		} else if (x->tb_phase == 1 && !prev && tl == 5 &&
		    !strncasecmp(t, "After", 5) && i + 1 < len &&
		    line[i + 1] == '(' && line[len - 1] == ':') {
			/* "After (1.8% faster):" says what the figures say */
			x->tb_phase = 2;
			used = 1;
			break;
		} else if (x->tb_phase && tl == 4 && !strncmp(t, "real", 4))
			key = 0;
		else if (x->tb_phase && tl == 4 && !strncmp(t, "user", 4))
			key = 1;
		else if (x->tb_phase && tl == 3 && !strncmp(t, "sys", 3))
			key = 2;
		else if (x->tb_phase && tl == 5 && !strncmp(t, "time:", 5) &&
		    prev && (claims_starts_word(prev, prevl, "sys") ||
		    claims_starts_word(prev, prevl, "real") ||
		    claims_starts_word(prev, prevl, "user")) && prevl <= 4)
			/* "Sys time: 73578.30, Real time: 864.05" */
			key = tolower((unsigned char)prev[0]) == 'r' ? 3 :
			    tolower((unsigned char)prev[0]) == 'u' ? 4 : 5;
		else if (key >= 0) {
			double d = claims_duration(t, tl), v;
			char u[8];

			/* "Real time: 864.05,": seconds without a unit */
			if (d < 0 && key >= 3 && claims_tok_value(t, tl -
			    (t[tl - 1] == ','), &v, u) && !u[0])
				d = v;
			if (d >= 0) {
				static const char *const k3[3] = { "real",
				    "user", "sys" };

				claims_tb_add(x, k3[key % 3], CLAIM_M_NONE, "s",
				    d);
				used = 1;
			}
			key = -1;
		} else if (x->tb_phase && isdigit((unsigned char)t[0]) &&
		    claims_tb_gnu_time(x, t, tl))
			used = 1;
		else if (x->tb_phase && used && isdigit((unsigned char)t[0]) &&
		    claims_icontains(t, tl, "inputs+"))
			break;	/* time(1)'s second line */
		prev = t;
		prevl = tl;
	}
	if (!used && x->tb_phase && near && isdigit((unsigned char)line[0]) &&
	    claims_icontains(line, len, "inputs+"))
		used = 1;	/* "0inputs+0outputs (55major+...)pagefaults" */
	x->tb_near = used;
	return used;
}

/* perf report lines: "-   64.31%     0.23%  prog  [kernel.kallsyms]  [k] f" */
static int
claims_is_perf_line(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '-' || line[i] == '+' ||
	    line[i] == '|'))
		i++;
	if (i >= len || !isdigit((unsigned char)line[i]))
		return 0;
	while (i < len && (isdigit((unsigned char)line[i]) || line[i] == '.'))
		i++;
	if (i >= len || line[i] != '%')
		return 0;
	if (claims_icontains(line, len, "[k]") ||
	    claims_icontains(line, len, "kallsyms"))
		return 1;
	/* perf c2c: "43.23%  43.59%  0.00%  0x0  3489  415  symbol" */
	if (claims_icontains(line + i, len - i, " 0x"))
		return 1;
	/* a call-graph line: "- 63.01% free_transhuge_page" */
	i++;
	while (i < len && line[i] == ' ')
		i++;
	if (i >= len)
		return 0;
	while (i < len && claims_is_word_char(line[i]))
		i++;
	while (i < len && line[i] == ' ')
		i++;
	return i == len;
}

/*
 * A kernel test robot table's head: "31b2ff82aefb33ce f77171d241e379ea"
 * (the commits compared) and "---------------- ----------".
 */
static int
claims_is_lkp_head(const char *p, size_t len)
{
	struct claims_toks tk;

	for (size_t k = 0; k < len; k++)
		if (!isxdigit((unsigned char)p[k]) && p[k] != '-' && p[k] != ' ')
			return 0;	/* the common case, without tokens */
	claims_tokens(p, len, &tk);
	if (!tk.n)
		return 0;
	for (size_t t = 0; t < tk.n; t++) {
		size_t hex = 0, dash = 0;

		for (size_t k = 0; k < tk.l[t]; k++) {
			hex += isdigit((unsigned char)tk.t[t][k]) ||
			    (tk.t[t][k] >= 'a' && tk.t[t][k] <= 'f');
			dash += tk.t[t][k] == '-';
		}
		if (!(hex == tk.l[t] && hex >= 10) && dash != tk.l[t])
			return 0;
	}
	return 1;
}

/*
 * Lines that are not the author's measurements: trailers, a kernel test
 * robot's header and parameters, dmesg, the shell commands of a
 * reproducer.
 */
static int
claims_is_skipped_line(const char *p, size_t len)
{
	static const char *const trailers[] = { "Signed-off-by:",
	    "Reported-by:", "Tested-by:", "Reviewed-by:", "Acked-by:", "Cc:",
	    "Link:", "Closes:", "Fixes:", "Suggested-by:", "Co-developed-by:",
	    "| Reported-by:", "| Closes:", "commit:", "testcase:", "config:",
	    "compiler:", "test machine:", "parameters:", "url:", "base:",
	    "patch link:", NULL };
	static const char *const cmds[] = { "$ ", "# ", "echo ", "mkdir ",
	    "cat ", "cd ", "./", "stress-ng ", "taskset ", "numactl ",
	    "sysctl ", NULL };
	size_t i = 0, k;

	for (const char *const *t = trailers; *t; t++)
		if (len && p[0] == (*t)[0] && len >= strlen(*t) &&
		    !strncmp(p, *t, strlen(*t)))
			return 1;
	if (len >= 10 && claims_is_lkp_head(p, len))
		return 1;
	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	/* dmesg: "[    0.412233] smpboot: ..." */
	if (i < len && p[i] == '[') {
		k = i + 1;
		while (k < len && p[k] == ' ')
			k++;
		while (k < len && (isdigit((unsigned char)p[k]) || p[k] == '.'))
			k++;
		if (k < len && p[k] == ']' && k > i + 2)
			return 1;
	}
	if (i == 0 || (p[0] == ' ' && i < 2))
		return 0;
	/* stress-ng --times: "  7.99s user time   (  0.55%)" */
	if (isdigit((unsigned char)p[i])) {
		k = i;
		while (k < len && (isdigit((unsigned char)p[k]) || p[k] == '.'))
			k++;
		if (k + 1 < len && p[k] == 's' && p[k + 1] == ' ' &&
		    len - k < 40 && claims_icontains(p + k, len - k, " time") &&
		    (p[len - 1] == ')' || !strncmp(p + len - 4, "time", 4)))
			return 1;
	}
	/* "\tnr_task: 100%": a parameter */
	k = i;
	while (k < len && (islower((unsigned char)p[k]) || p[k] == '_'))
		k++;
	if (k > i && k + 1 < len && p[k] == ':' && p[k + 1] == ' ' &&
	    !memchr(p + k + 2, ' ', len - k - 2))
		return 1;
	for (const char *const *c = cmds; *c; c++)
		if (p[i] == (*c)[0] && len - i >= strlen(*c) &&
		    !strncmp(p + i, *c, strlen(*c)))
			return 1;
	return claims_icontains(p, len, "/sys/") ||
	    claims_icontains(p, len, " --");
}

/* ---- sentence rules ---------------------------------------------------- */

/* A sentence about other work ("[1]", "commit f26b3fa04611"). */
static int
claims_cites_other_work(const char *s, size_t len)
{
	for (size_t i = 0; i + 2 < len; i++) {
		if (s[i] == '[' && isdigit((unsigned char)s[i + 1])) {
			size_t j = i + 1;

			while (j < len && isdigit((unsigned char)s[j]))
				j++;
			if (j < len && s[j] == ']')
				return 1;
		}
		/* "The robot had reported a -7.2% regression": the
		   problem, not what the patch does */
		if (s[i] == 'h' && i + 12 < len &&
		    !strncmp(s + i, "had reported", 12))
			return 1;
		if ((s[i] == 'c' || s[i] == 'C') && i + 7 < len &&
		    !strncasecmp(s + i, "commit ", 7)) {
			size_t j = i + 7, n = 0;

			while (j < len && isxdigit((unsigned char)s[j]))
				j++, n++;
			if (n >= 7)
				return 1;
		}
	}
	return 0;
}

struct claims_num {
	size_t	 at, end;	/* offsets in the sentence */
	double	 v;
	char	 unit[8];
	int	 sign;		/* +1/-1 written, 0 none */
	int	 used;
};

/* The word at s (letters and '-'), lowercased into w. */
static size_t
claims_word(const char *s, size_t len, char *w, size_t wsz)
{
	size_t n = 0;

	while (n < len && n + 1 < wsz &&
	    (isalpha((unsigned char)s[n]) || s[n] == '-'))
		w[n] = tolower((unsigned char)s[n]), n++;
	w[n] = '\0';
	return n;
}

static enum claim_dir
claims_change_word(const char *w)
{
	for (size_t i = 0; i < NELEM(claim_change_words); i++) {
		size_t n = strlen(claim_change_words[i].word);

		if (!strncmp(w, claim_change_words[i].word, n))
			return claim_change_words[i].dir;
	}
	return CLAIM_DIR_NONE;
}

/* The word ending at s[end) (skipping spaces and '~'), lowercased. */
static void
claims_word_before(const char *s, size_t end, char *w, size_t wsz,
    size_t *start)
{
	size_t j = end;

	while (j > 0 && (s[j - 1] == ' ' || s[j - 1] == '~'))
		j--;
	*start = j;
	while (*start > 0 && isalpha((unsigned char)s[*start - 1]))
		(*start)--;
	claims_word(s + *start, j - *start, w, wsz);
}

/*
 * The change word following "N%" within a few words ("25% improvement",
 * "60% deferred queue lock contention reduction"), "by N%" after one
 * ("reduced by 20%"), or "up"/"down" right before ("up 3.2%").  "dropped
 * to 43%" is a level, not a change.
 */
static enum claim_dir
claims_dir_near(const char *s, size_t len, const struct claims_num *n)
{
	size_t i = n->end, st;
	char w[32];
	int words = 0;

	claims_word_before(s, n->at, w, sizeof(w), &st);
	if (!strcmp(w, "about") || !strcmp(w, "around") ||
	    !strcmp(w, "roughly") || !strcmp(w, "nearly") ||
	    !strcmp(w, "approximately"))
		claims_word_before(s, st, w, sizeof(w), &st);
	if (!strcmp(w, "up"))
		return CLAIM_DIR_UP;
	/* "buys an extra 3.6% of SMP scalability" */
	if (!strcmp(w, "extra")) {
		claims_word_before(s, st, w, sizeof(w), &st);
		if (!strcmp(w, "an"))
			claims_word_before(s, st, w, sizeof(w), &st);
		if (!strcmp(w, "buys") || !strcmp(w, "gives") ||
		    !strcmp(w, "brings") || !strcmp(w, "yields"))
			return CLAIM_DIR_BETTER;
		return CLAIM_DIR_NONE;
	}
	if (strcmp(w, "by") && strcmp(w, "to") && strcmp(w, "than") &&
	    claims_change_word(w) != CLAIM_DIR_NONE && strcmp(w, "less") &&
	    strcmp(w, "more") && strcmp(w, "lower") && strcmp(w, "higher"))
		return claims_change_word(w);
	if (!strcmp(w, "down"))
		return CLAIM_DIR_DOWN;
	/* "... reduced by N%", "drop by N%" */
	if (!strcmp(w, "by")) {
		enum claim_dir d;

		claims_word_before(s, st, w, sizeof(w), &st);
		if ((d = claims_change_word(w)) != CLAIM_DIR_NONE)
			return d;
	}
	while (i < len && words < 6) {
		enum claim_dir d;
		size_t wl;

		while (i < len && !isalpha((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != ',' && s[i] != ';' && s[i] != '(')
			i++;
		wl = claims_word(s + i, len - i, w, sizeof(w));
		if (!wl)
			break;
		/* "10% or more": a hedge, not a direction */
		if (!strcmp(w, "or")) {
			i += wl;
			while (i < len && s[i] == ' ')
				i++;
			i += claims_word(s + i, len - i, w, sizeof(w));
			words += 2;
			continue;
		}
		if ((d = claims_change_word(w)) != CLAIM_DIR_NONE)
			return d;
		if (!strcmp(w, "of") || !strcmp(w, "than") || !strcmp(w, "at") ||
		    !strcmp(w, "with") || !strcmp(w, "and"))
			return CLAIM_DIR_NONE;
		i += wl;
		words++;
	}
	return CLAIM_DIR_NONE;
}

/* The first change word of s[0..len) (a sentence's head). */
static enum claim_dir
claims_dir_in(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char w[32];
		size_t wl;
		enum claim_dir d;

		if (!isalpha((unsigned char)s[i]) || (i > 0 &&
		    isalpha((unsigned char)s[i - 1])))
			continue;
		wl = claims_word(s + i, len - i, w, sizeof(w));
		if ((d = claims_change_word(w)) != CLAIM_DIR_NONE)
			return d;
		i += wl ? wl - 1 : 0;
	}
	return CLAIM_DIR_NONE;
}

/* Is s[i..) a count word ("threads", "CPUs") after ' ' or '-'? */
static int
claims_is_count_word(const char *s, size_t len, size_t i)
{
	if (i < len && (s[i] == ' ' || s[i] == '-'))
		i++;
	if (i >= len || !isalpha((unsigned char)s[i]))
		return 0;
	for (const char *const *w = claims_count_words; *w; w++) {
		size_t wl;

		if (tolower((unsigned char)s[i]) != (*w)[0])
			continue;
		wl = strlen(*w);
		if (i + wl <= len && !strncasecmp(s + i, *w, wl))
			return 1;
	}
	return 0;
}

/*
 * The values of a sentence: numbers with a unit, and bare numbers that
 * are no count ("80 threads"), version ("6.12-rc3", "6.12.0") or line
 * number ("line 812").
 */
static size_t
claims_numbers(const char *s, size_t len, struct claims_num *v, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n < max; i++) {
		struct claims_num *num = &v[n];
		size_t l, e;
		char w[16];
		size_t st;

		if (!isdigit((unsigned char)s[i]) ||
		    (i > 0 && (claims_is_word_char(s[i - 1]) ||
		    s[i - 1] == '.' || s[i - 1] == '/' || s[i - 1] == ':' ||
		    s[i - 1] == '#')))
			continue;
		memset(num, 0, sizeof(*num));
		if (!(l = claims_value(s + i, len - i, &num->v, num->unit)))
			continue;
		e = i + l;
		if (!num->unit[0]) {
			claims_word_before(s, i, w, sizeof(w), &st);
			if (claims_is_count_word(s, len, e) ||
			    (e + 2 < len && s[e] == '-' && s[e + 1] == 'r' &&
			    s[e + 2] == 'c') || (e + 1 < len && s[e] == '.' &&
			    isdigit((unsigned char)s[e + 1])) ||
			    (e < len && (claims_is_word_char(s[e]) ||
			    s[e] == '/' || s[e] == ':')) ||
			    /* "16-pair", "2-socket": a compound, no value */
			    (e + 1 < len && s[e] == '-' &&
			    isalpha((unsigned char)s[e + 1])) ||
			    !strcmp(w, "line") || !strcmp(w, "lines") ||
			    !strcmp(w, "patch") || !strcmp(w, "order")) {
				i = e - 1;
				continue;
			}
		}
		/* "10%-18%", "3-8%": the range's end, not a new value; the
		   range is read by its first value */
		if (n > 0 && i > 0 && s[i - 1] == '-' && v[n - 1].end == i - 1) {
			if (!v[n - 1].unit[0])
				memcpy(v[n - 1].unit, num->unit, 8);
			v[n - 1].end = e;	/* "10%-18% faster": the word */
			i = e - 1;
			continue;
		}
		num->at = i;
		num->end = e;
		if (i > 0 && s[i - 1] == '+')
			num->sign = 1;
		else if (i > 0 && (s[i - 1] == '-' || (i >= 3 &&
		    !strncmp(s + i - 3, "\xe2\x88\x92", 3))) &&
		    (i < 2 || !claims_is_word_char(s[i - 2])))
			num->sign = -1;
		n++;
		i = e - 1;
	}
	return n;
}

/* Clause boundaries within a sentence. */
static const char *const claims_clause_cuts[] = { ", ", "; ", ": ",
	" and ", " but ", " while ", " whereas ", NULL };

/* The clause around [at, end) within [lo, hi) of s. */
static void
claims_clause(const char *s, size_t lo, size_t hi, size_t at, size_t end,
    size_t *cs, size_t *ce)
{
	*cs = lo;
	*ce = hi;
	for (size_t j = at; j > lo; j--) {
		const char *const *c;

		if (s[j - 1] != ' ')
			continue;	/* every cut ends with a space */
		for (c = claims_clause_cuts; *c; c++) {
			size_t cl = strlen(*c);

			if (j >= lo + cl && !strncmp(s + j - cl, *c, cl))
				break;
		}
		if (*c) {
			*cs = j;
			break;
		}
	}
	for (size_t j = end; j < hi; j++) {
		const char *const *c;

		if (!strchr(",;: ", s[j]) || !s[j])
			continue;
		for (c = claims_clause_cuts; *c; c++)
			if (j + strlen(*c) <= hi && !strncmp(s + j, *c,
			    strlen(*c)))
				break;
		if (*c) {
			*ce = j;
			break;
		}
	}
}

/* Where a sentence claim's words are: its numbers, its neighbours'. */
struct claims_at {
	const char	*s;
	size_t		 len;
	size_t		 lo, hi;	/* previous claim's end, next's start */
	size_t		 at, end;	/* the claim's own numbers */
	size_t		 cs, ce;	/* its clause */
};

static void
claims_at_init(struct claims_at *a, const char *s, size_t len,
    const struct claims_num *num, size_t n, size_t i, size_t j)
{
	a->s = s;
	a->len = len;
	a->lo = i ? num[i - 1].end : 0;
	a->hi = j + 1 < n ? num[j + 1].at : len;
	a->at = num[i].at;
	a->end = num[j].end;
	claims_clause(s, a->lo, a->hi, a->at, a->end, &a->cs, &a->ce);
}

/* The metric class of a sentence claim's words: clause, back, head. */
static enum claim_metric
claims_at_class(struct claims_ctx *x, const struct claims_at *a)
{
	enum claim_metric m = claims_class(a->s + a->cs, a->ce - a->cs);

	if (m == CLAIM_M_NONE && a->at > a->lo)
		m = claims_class(a->s + a->lo, a->at - a->lo);
	if (m == CLAIM_M_NONE && x->prefix.s)
		m = claims_class(x->prefix.s, x->prefix.len);
	return m;
}

/*
 * A sentence claim's conditions and metric words, nearest text first
 * (see the top of this file).
 */
static void
claims_describe_prose(struct claims_ctx *x, struct claim *c,
    const struct claims_at *a)
{
	const struct claims_span word[] = {
		{ a->s + a->cs, a->ce - a->cs },
		{ a->s + a->lo, a->at - a->lo },
		x->prefix,
	};
	struct buf words = BUF_INIT(512);
	enum claim_metric m = CLAIM_M_NONE;

	claims_cond_near(&c->cond, a->s + a->cs, a->ce - a->cs, a->at - a->cs,
	    a->end - a->cs);
	claims_cond_near(&c->cond, a->s + a->lo, a->hi - a->lo, a->at - a->lo,
	    a->end - a->lo);
	if (x->prefix.s)
		claims_cond_read(&c->cond, x->prefix.s, x->prefix.len);
	claims_cond_merge(&c->cond, &x->carry);
	/* the topic (mode, workload, lock) of the text above, not its
	   counts: those belong to its own claims */
	if (x->caption) {
		struct claim_cond cap = *claims_caption(x);

		cap.threads = cap.processes = cap.cpus = cap.memcgs =
		    cap.folio_kb = CLAIM_NONE;
		claims_cond_merge(&c->cond, &cap);
	}
	for (size_t i = 0; i < NELEM(word) && (!words.len ||
	    m == CLAIM_M_NONE); i++) {
		enum claim_metric mi;

		if (!word[i].s || !word[i].len)
			continue;
		mi = claims_words_read(&words, word[i].s, word[i].len);
		if (m == CLAIM_M_NONE)
			m = mi;
	}
	/* a sentence naming no metric speaks of the table above it */
	if (!words.len && x->caption && !x->sent_words)
		m = claims_caption_words(x, &words);
	claims_set_words(c, &words, m);
}

/* Two values with an arrow or "from ... to" between them. */
static const char *const claims_hedges[] = { "about", "around", "roughly",
	"nearly", "approximately" };

static int
claims_is_pair(const char *s, const struct claims_num *a,
    const struct claims_num *b)
{
	size_t g0 = a->end, g1 = b->at;

	if (strcmp(a->unit, b->unit) || g1 - g0 > 10)
		return 0;
	while (g0 < g1 && s[g0] == ' ')
		g0++;
	while (g1 > g0 && (s[g1 - 1] == ' ' || s[g1 - 1] == '~'))
		g1--;
	if (g1 - g0 >= 2 && claims_arrow_at(s + g0, g1 - g0) == g1 - g0)
		return 1;
	/* "to about 2500/s": a hedge before the after value */
	for (size_t h = 0; h < NELEM(claims_hedges); h++) {
		size_t hl = strlen(claims_hedges[h]);

		if (g1 - g0 > hl + 1 && !strncmp(s + g1 - hl, claims_hedges[h],
		    hl) && s[g1 - hl - 1] == ' ') {
			g1 -= hl + 1;
			break;
		}
	}
	/* "from 46.1% down to 21.3%" */
	if ((g1 - g0 == 7 && !strncmp(s + g0, "down to", 7)) ||
	    (g1 - g0 == 5 && !strncmp(s + g0, "up to", 5))) {
		size_t st;
		char w[16];

		claims_word_before(s, a->at, w, sizeof(w), &st);
		return !strcmp(w, "from");
	}
	if (g1 - g0 == 2 && !strncmp(s + g0, "to", 2)) {
		size_t st;
		char w[16];

		if (a->unit[0])
			return 1;
		claims_word_before(s, a->at, w, sizeof(w), &st);
		return !strcmp(w, "from");
	}
	return 0;
}

/* from-to: one before/after claim; 0, 1 when it makes none, -1 full. */
static int
claims_from_to(struct claims_ctx *x, const char *s, size_t len,
    struct claims_num *num, size_t n, size_t i)
{
	struct claims_at a;
	struct claim *c;
	enum claim_metric m;

	claims_at_init(&a, s, len, num, n, i, i + 1);
	m = claims_at_class(x, &a);
	/* counts need a metric word of their own */
	if (!num[i].unit[0] && m == CLAIM_M_NONE)
		return 1;
	c = claims_new(x, CLAIM_BEFORE_AFTER, "from-to", s, len);
	if (!c)
		return -1;
	claims_set_pair(c, num[i].v, num[i + 1].v, num[i].unit);
	if (!c->has_change) {
		c->has_change = 1;
		c->change_pct = 0;
	}
	claims_describe_prose(x, c, &a);
	if (c->metric == CLAIM_M_NONE && !strcmp(c->unit, "s"))
		c->metric = CLAIM_M_TIME_REAL;
	return 0;
}

static int
claims_clause_has(const char *s, size_t len, const char *const *words)
{
	for (const char *const *w = words; *w; w++)
		if (claims_icontains(s, len, *w))
			return 1;
	return 0;
}

/*
 * The claim number i makes on its own: a percentage change when it has a
 * sign or a direction word, a level of the metric its words name, an
 * unknown for a bare "3%" -- or none for a setting, a share of something
 * no metric names, or a second level of the sentence.  0, 1 when it makes
 * none, -1 when no claim could be added.
 */
static int
claims_single(struct claims_ctx *x, const char *s, size_t len,
    const struct claims_num *num, size_t n, size_t i, int *levels)
{
	static const char *const verbs[] = { "took", "takes", "take ",
	    "spent", "spends", "costs", "average", NULL };
	struct claims_at a;
	enum claim_dir d = CLAIM_DIR_NONE;
	enum claim_metric m;
	struct claim *c;
	int pct = !strcmp(num[i].unit, "%");
	size_t k;

	if (!num[i].unit[0])
		return 1;
	claims_at_init(&a, s, len, num, n, i, i);
	m = claims_at_class(x, &a);
	if (pct) {
		d = claims_dir_near(s, len, &num[i]);
		/* "The gain grows ...: 3% at 4 threads, 8% at 8 threads" */
		if (d == CLAIM_DIR_NONE && !num[i].sign && x->prefix.s) {
			char w[16];
			size_t st;

			claims_word_before(s, num[i].at, w, sizeof(w), &st);
			k = num[i].end;
			while (k < len && s[k] == ' ')
				k++;
			if (strcmp(w, "to") && strcmp(w, "at") &&
			    (claims_starts_word(s + k, len - k, "at") ||
			    claims_starts_word(s + k, len - k, "with")))
				d = claims_dir_in(x->prefix.s, x->prefix.len);
		}
	}
	if (pct && (num[i].sign || d != CLAIM_DIR_NONE)) {
		c = claims_new(x, CLAIM_CHANGE, "pct-change", s, len);
		if (!c)
			return -1;
		c->has_change = 1;
		c->dir = num[i].sign ? CLAIM_DIR_NONE : d;
		c->change_pct = num[i].sign ? num[i].sign * num[i].v :
		    d == CLAIM_DIR_DOWN || d == CLAIM_DIR_WORSE ? -num[i].v :
		    num[i].v;
		strcpy(c->unit, "%");
		claims_describe_prose(x, c, &a);
		return 0;
	}
	if (pct) {
		char w[16];
		size_t st;

		k = num[i].end;
		while (k < len && s[k] == ' ')
			k++;
		/* a tolerance: "unchanged (within 0.5%)" */
		claims_word_before(s, num[i].at, w, sizeof(w), &st);
		/* a bound: "stay near 100% even under pressure" */
		if (!strcmp(w, "within") || !strcmp(w, "near"))
			return 1;
		/* a setting: "memory.high at 80% of memory.max", fio's
		   "-rwmixwrite=[10,30,50]" ("for rw 10%") */
		if (claims_clause_has(s + a.cs, a.ce - a.cs,
		    claims_config_words) || claims_is_fio_mix(x, num[i].v))
			return 1;
		/* a share of what no metric names: "25% of the time ...
		   goes to", "100% of callers" */
		if (m == CLAIM_M_NONE && claims_starts_word(s + k, len - k, "of"))
			return 1;
	} else if (m == CLAIM_M_NONE && !((!strcmp(num[i].unit, "s") ||
	    !strcmp(num[i].unit, "ms") || !strcmp(num[i].unit, "us") ||
	    !strcmp(num[i].unit, "ns")) &&
	    claims_clause_has(s + a.cs, a.ce - a.cs, verbs)))
		return 1;	/* "sleeps in 20 ms steps": nothing measured */
	if (pct && m == CLAIM_M_NONE)
		c = claims_new(x, CLAIM_UNKNOWN, "none", s, len);
	else if ((*levels)++)
		return 1;	/* a context sentence is listed once */
	else
		c = claims_new(x, CLAIM_LEVEL, "level", s, len);
	if (!c)
		return -1;
	c->has_before = 1;
	c->before = num[i].v;
	snprintf(c->unit, sizeof(c->unit), "%s", num[i].unit);
	claims_describe_prose(x, c, &a);
	return 0;
}

/*
 * level-pair: "With this patch, ... N%" after a level of the same
 * metric in this message: one claim, before and after.  first: the
 * sentence's first claim, its only one.
 */
static void
claims_level_pair(struct claims_ctx *x, size_t first)
{
	struct claim *after = &x->out->v[first];

	for (size_t j = first; j-- > x->first;) {
		struct claim *b = &x->out->v[j];
		char *t;

		if (b->kind != CLAIM_LEVEL || b->metric != after->metric ||
		    strcmp(b->unit, after->unit) ||
		    strcmp(b->cond.lock, after->cond.lock))
			continue;
		b->kind = CLAIM_BEFORE_AFTER;
		b->rule = "level-pair";
		b->has_after = b->has_change = 1;
		b->after = after->before;
		b->change_pct = b->before ? (b->after - b->before) /
		    b->before * 100.0 : 0;
		t = xasprintf("%s ... %s", b->text, after->text);
		free(b->text);
		b->text = t;
		claims_drop_last(x);
		break;
	}
}

static void
claims_sentence_claims(struct claims_ctx *x, const char *s, size_t len,
    struct claims_num *num, size_t n)
{
	size_t i, first = x->out->n, head = len > 24 ? 24 : len;
	int pair_start, levels = 0, r;

	pair_start = claims_icontains(s, head, "with this patch") ||
	    claims_icontains(s, head, "with the patch") ||
	    claims_icontains(s, head, "with the change") ||
	    claims_icontains(s, head, "after this patch") ||
	    claims_icontains(s, head, "with the series");
	for (i = 0; i < n; i++) {
		if (i + 1 < n && claims_is_pair(s, &num[i], &num[i + 1])) {
			size_t before = x->out->n;

			if (claims_from_to(x, s, len, num, n, i) < 0)
				return;
			i++;
			/* "from 2200/s to 2500/s, roughly a 14% improvement":
			   the author's own change of the pair */
			if (x->out->n == before + 1 && i + 1 < n &&
			    !strcmp(num[i + 1].unit, "%") && !num[i + 1].sign &&
			    num[i + 1].at - num[i].end < 24 &&
			    !memchr(s + num[i].end, '.', num[i + 1].at -
			    num[i].end)) {
				struct claim *c = &x->out->v[before];

				if (c->has_change && fabs(fabs(c->change_pct) -
				    num[i + 1].v) < 2 && c->change_pct != 0) {
					c->change_pct = c->change_pct < 0 ?
					    -num[i + 1].v : num[i + 1].v;
					i++;
				}
			}
			continue;
		}
		r = claims_single(x, s, len, num, n, i, &levels);
		if (r < 0)
			return;
	}
	if (pair_start && x->out->n == first + 1 &&
	    x->out->v[first].kind == CLAIM_LEVEL)
		claims_level_pair(x, first);
}

/*
 * After a sentence: a sentence that claimed nothing and names counts is
 * the set-up of what follows, and fills in the claims of the sentence
 * before it that speak of its workload.
 */
static void
claims_sentence_after(struct claims_ctx *x, const char *s, size_t len,
    size_t first, size_t nnum)
{
	struct claim_cond sc;

	claims_cond_init(&sc);
	/* counts need digits; a sentence without numbers has none, and
	   the hints are read only for a sentence that names counts */
	if (x->out->n == first && nnum) {
		claims_counts_near(&sc, s, len, 0, 0);
		if (claims_cond_has_counts(&sc))
			claims_cond_read(&sc, s, len);
	}
	if (x->out->n == first && claims_cond_has_counts(&sc)) {
		struct claim_cond counts = sc;

		x->setup = sc;
		memset(counts.mode, 0, sizeof(counts.mode));
		memset(counts.workload, 0, sizeof(counts.workload));
		memset(counts.lock, 0, sizeof(counts.lock));
		for (size_t j = x->prev_first; j < x->prev_end &&
		    j < x->out->n; j++)
			if (sc.workload[0] && !strcmp(x->out->v[j].cond.workload,
			    sc.workload))
				claims_cond_merge(&x->out->v[j].cond, &counts);
	}
	if (x->out->n > first) {
		x->prev_first = first;
		x->prev_end = x->out->n;
	}
	claims_cond_init(&x->carry);
	if (x->prefix.s)
		claims_cond_read(&x->carry, x->prefix.s, x->prefix.len);
}

static void
claims_sentence(struct claims_ctx *x, const char *s, size_t len)
{
	struct claims_num num[24];
	size_t n, d, first = x->out->n;

	if (len == 0 || claims_cites_other_work(s, len))
		return;
	n = claims_numbers(s, len, num, NELEM(num));
	x->prefix.s = s;
	x->prefix.len = n ? num[0].at : len;
	x->sent_words = claims_has_words(s, len);
	if (n)
		claims_sentence_claims(x, s, len, num, n);
	for (d = 0; d < len && !isdigit((unsigned char)s[d]); d++)
		;
	claims_sentence_after(x, s, len, first, d < len);
	/* a sentence ending in ':' or naming a metric captions the table
	   that follows */
	if (s[len - 1] == ':' || x->sent_words) {
		free(x->caption);
		x->caption = xstrndup(s, len);
		x->cap_read = 0;
	}
	/* the prefix points into the paragraph's buffer, which the next
	   line may move: it speaks for this sentence's claims only */
	x->prefix.s = NULL;
	x->prefix.len = 0;
}

/* Cuts a paragraph into sentences: ". " / ": " before a capital, or "!". */
static void
claims_paragraph(struct claims_ctx *x, struct buf *para)
{
	const char *s = para->data;
	size_t len = para->len, start = 0;

	if (!s)
		return;
	for (size_t i = 0; i < len; i++) {
		int end = 0;

		if ((s[i] == '.' || s[i] == '!' || s[i] == '?') &&
		    (i + 1 == len || s[i + 1] == ' ') &&
		    !(i > 0 && isdigit((unsigned char)s[i - 1]) && i + 1 < len &&
		    isdigit((unsigned char)s[i + 1])))
			end = 1;
		if (s[i] == ':' && (i + 1 == len))
			end = 1;
		if (end || i + 1 == len) {
			size_t e = i + 1;

			while (start < e && s[start] == ' ')
				start++;
			if (e - start > 0 && e - start < CLAIMS_SENTENCE_MAX)
				claims_sentence(x, s + start, e - start);
			start = e;
		}
	}
	buf_reset(para);
	x->table_header = 0;
	claims_cond_init(&x->carry);
	x->prev_first = x->prev_end = 0;
}

/* ---- the body ---------------------------------------------------------- */

/* "- FPS improves by ~3.8%", "* ...", "2. ...": a list item. */
static int
claims_is_list_item(const char *p, size_t len)
{
	size_t i = 0;

	while (i < len && i < 4 && p[i] == ' ')
		i++;
	if (i + 1 < len && (p[i] == '-' || p[i] == '*') && p[i + 1] == ' ')
		return 1;
	if (i + 3 <= len && !strncmp(p + i, "\xe2\x80\xa2", 3))
		return 1;
	while (i < len && isdigit((unsigned char)p[i]))
		i++;
	return i > 0 && i + 1 < len && isdigit((unsigned char)p[i - 1]) &&
	    (p[i] == '.' || p[i] == ')') && p[i + 1] == ' ';
}

/*
 * A kernel test robot's "\tnr_threads: 1t": the run's thread count, a
 * condition of every row below it ("nr_threads: 100%" is a share of the
 * machine, no count).
 */
static void
claims_lkp_param(struct claims_ctx *x, const char *p, size_t len)
{
	size_t i = 0, l;
	double v;

	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (!i || len - i < 14 || strncmp(p + i, "nr_threads: ", 12))
		return;
	i += 12;
	if ((l = claims_digits(p + i, len - i, &v)) && i + l + 1 == len &&
	    p[i + l] == 't' && v >= 1 && v < 1e6)
		x->setup.threads = (int)v;
}

/*
 * An mmtests table's name line, right above its header:
 * "hackbench-process-pipes", "tbench4", "multi subtest netperf-tcp-rr".
 */
static void
claims_mmtests_name(struct claims_ctx *x, const char *p, size_t len)
{
	size_t i = 0, letters = 0;

	if (len > 14 && !strncmp(p, "multi subtest ", 14))
		i = 14;
	if (len - i > 40 || len - i < 4)
		return;
	for (size_t k = i; k < len; k++) {
		if (!islower((unsigned char)p[k]) && !isdigit((unsigned char)p[k])
		    && p[k] != '-')
			return;
		letters += islower((unsigned char)p[k]) != 0;
	}
	if (letters < 3)
		return;
	free(x->mm_test);
	x->mm_test = xstrndup(p + i, len - i);
}

/* ---- group tables: "| 5258 / 5235 / -0.3% |" --------------------------- */

/* Splits s at sep into pieces trimmed of blanks (and, with parens, of
   '(' and ')' at their ends), at most max into out; the number of pieces,
   max + 1 when there are more. */
static size_t
claims_split_at(const char *s, size_t len, int sep, int parens,
    struct claims_span *out, size_t max)
{
	size_t n = 0;
	const char *p = s, *e = s + len;

	while (p <= e) {
		const char *at = memchr(p, sep, (size_t)(e - p));
		const char *pe = at ? at : e, *ps = p;

		while (ps < pe && (isspace((unsigned char)*ps) ||
		    (parens && *ps == '(')))
			ps++;
		while (pe > ps && (isspace((unsigned char)pe[-1]) ||
		    (parens && pe[-1] == ')')))
			pe--;
		if (n == max)
			return max + 1;
		out[n].s = ps;
		out[n].len = (size_t)(pe - ps);
		n++;
		if (!at)
			break;
		p = at + 1;
	}
	return n;
}

/* A row's '|' cells; a cell's '/' parts ("(Before / After / Delta)"). */
#define claims_cells(line, len, cell, max) \
	claims_split_at(line, len, '|', 0, cell, max)
#define claims_parts(c, part) claims_split_at((c).s, (c).len, '/', 1, part, 3)

/* A header cell's metric: "System Time (seconds)", "Total Time". */
static enum claim_metric
claims_group_metric(struct claims_span c)
{
	if (claims_starts_word(c.s, c.len, "total") &&
	    claims_icontains(c.s, c.len, "time"))
		return CLAIM_M_TIME_REAL;
	return claims_split_metric(c.s, c.len);
}

/*
 * group-row: a table whose columns are groups of three,
 *
 *      make -j<NR>     |   System Time (seconds)  |   Total Time (seconds)
 *    (NR / Mem / ZRAM) | (Before / After / Delta) | (Before / After / Delta)
 *     With 4k pages only:
 *     6 / 192M / 3G    |    5258 /  5235 / -0.3%  |    1420 /  1414 / -0.3%
 *
 * one claim per metric column of a row: before and after, the change the
 * row gives when it agrees with them (within a point), else theirs; the
 * count from the label's first part when the header names it ("NR" of
 * "make -j<NR>" is a job count: threads); a caption among the rows
 * ("With 64k mTHP:") sets the folio size of the rows below it.  A blank
 * line ends the table.  1 when the line was one of the table's.
 */
static int
claims_rule_group(struct claims_ctx *x, const char *line, size_t len)
{
	struct claims_group *g = &x->group;
	struct claims_span cell[CLAIMS_GROUP_COLS + 1], part[3];
	size_t n = claims_cells(line, len, cell, CLAIMS_GROUP_COLS + 1), i;
	int digits = 0;

	for (i = 0; i < len && !digits; i++)
		digits = isdigit((unsigned char)line[i]) != 0;
	if (!g->on) {
		size_t metrics = 0;

		if (digits || n < 2 || n > CLAIMS_GROUP_COLS)
			return 0;
		for (i = 1; i < n; i++)
			metrics += claims_group_metric(cell[i]) != CLAIM_M_NONE;
		if (metrics != n - 1)
			return 0;
		memset(g, 0, sizeof(*g));
		g->on = 1;
		g->ncol = (int)n;
		for (i = 1; i < n; i++)
			g->m[i] = claims_group_metric(cell[i]);
		g->at[0] = 0, g->at[1] = 1, g->at[2] = 2;
		g->what = -1;
		g->jobs = claims_icontains(cell[0].s, cell[0].len, "-j");
		return 1;
	}
	if (g->on == 1 && !digits && (int)n == g->ncol) {
		/* "(NR / Mem / ZRAM) | (Before / After / Delta) | ..." */
		size_t np = claims_parts(cell[1], part);

		if (np < 2 || np > 3)
			goto not_row;
		g->at[2] = -1;
		for (i = 0; i < np; i++) {
			if (claims_starts_word(part[i].s, part[i].len, "before"))
				g->at[0] = (int)i;
			else if (claims_starts_word(part[i].s, part[i].len,
			    "after"))
				g->at[1] = (int)i;
			else
				g->at[2] = (int)i;
		}
		if (claims_parts(cell[0], part) >= 1 && part[0].len) {
			g->what = claims_sweep_what(part[0].s, part[0].len);
			if (g->what < 0 && g->jobs && part[0].len <= 4)
				g->what = 0;	/* -j<NR>: jobs, threads */
		}
		g->on = 2;
		return 1;
	}
	if (n == 1 && len && line[len - 1] == ':') {
		/* "With 64k mTHP:" */
		int kb = claims_folio_kb(line, len);

		g->folio_kb = kb > 4 ? kb : 0;
		return 1;
	}
	if ((int)n != g->ncol)
		goto not_row;
	{
		double lv = 0;
		char lu[8];
		int count = -1;

		if (claims_parts(cell[0], part) >= 1 &&
		    claims_tok_value(part[0].s, part[0].len, &lv, lu) &&
		    !lu[0] && lv == floor(lv) && lv > 0 && lv <= 1e6)
			count = (int)lv;
		for (i = 1; i < n; i++) {
			double b, a, ch = 0;
			char ub[8], ua[8];
			int pct = 0;
			size_t np = claims_parts(cell[i], part);
			struct claim *c;
			struct buf words = BUF_INIT(64);

			if (np < 2 || np > 3 || g->at[0] >= (int)np ||
			    g->at[1] >= (int)np ||
			    !claims_tok_value(part[g->at[0]].s,
			    part[g->at[0]].len, &b, ub) ||
			    !claims_tok_value(part[g->at[1]].s,
			    part[g->at[1]].len, &a, ua) || strcmp(ub, ua))
				continue;
			c = claims_new(x, CLAIM_BEFORE_AFTER, "group-row", line,
			    len);
			if (!c)
				return 1;
			claims_set_pair(c, b, a, ub);
			if (g->at[2] >= 0 && g->at[2] < (int)np &&
			    claims_tok_signed(part[g->at[2]].s,
			    part[g->at[2]].len, &ch, &pct) && pct &&
			    c->has_change && fabs(ch - c->change_pct) <= 1.0)
				c->change_pct = ch;
			if (count > 0 && g->what >= 0)
				claims_sweep_cond(c, g->what, count);
			if (g->folio_kb)
				c->cond.folio_kb = g->folio_kb;
			c->metric = g->m[i];
			claims_set_words(c, &words, g->m[i]);
		}
		return 1;
	}
not_row:
	g->on = 0;
	return 0;
}

/* A data line: 1 when a line rule read it. */
static int
claims_line_rules(struct claims_ctx *x, const char *p, size_t len)
{
	size_t i = 0, j;

	/* a table of "before / after / delta" groups, its header first */
	if ((x->group.on || memchr(p, '|', len)) && claims_rule_group(x, p, len))
		return 1;
	/* a normalised table's lines, "Test : tbench" first */
	if (x->nm_on || (len > 4 && memchr(p, 'T', len < 8 ? len : 8))) {
		if (claims_rule_sweep_norm(x, p, len))
			return 1;
	}
	/* the rules read numbers; a line without one can only be a sweep's
	   header ("threads base patched") or end a sweep */
	while (i < len && !isdigit((unsigned char)p[i]))
		i++;
	if (i == len && (claims_split_header(x, p, len) ||
	    claims_perf_lock_header(x, p, len)))
		return 1;
	if (i == len && !x->sweep.mode) {
		for (i = 0; i < len && isspace((unsigned char)p[i]); i++)
			;
		for (j = i; j < len && !isspace((unsigned char)p[j]); j++)
			;
		if (claims_sweep_what(p + i, j - i) < 0)
			return 0;
	}
	if (memchr(p, '=', len) && claims_rule_fio(x, p, len))
		return 1;
	if ((x->pl_phase == 1 || x->pl_phase == 3) &&
	    claims_rule_perf_lock(x, p, len))
		return 1;
	return claims_rule_sweep_split(x, p, len) ||
	    claims_rule_sweep(x, p, len) ||
	    claims_rule_lkp_row(x, p, len) ||
	    claims_rule_mmtests(x, p, len) ||
	    claims_rule_arrow_line(x, p, len);
}

/* "Signed-off-by: A <a@b>", "Link: https://...", "Fixes: 123abc (...)". */
static int
claims_is_trailer_line(const char *p, size_t n)
{
	static const char *const keys[] = { "Link", "Fixes", "Cc", "Closes",
	    "Change-Id", NULL };
	size_t k = 0;
	int dash = 0;

	while (k < n && (isalnum((unsigned char)p[k]) || p[k] == '-')) {
		dash |= p[k] == '-';
		k++;
	}
	if (k == 0 || k + 1 >= n || p[k] != ':' || p[k + 1] != ' ')
		return 0;
	if (dash)
		return 1;
	for (size_t i = 0; keys[i]; i++)
		if (strlen(keys[i]) == k && strncasecmp(p, keys[i], k) == 0)
			return 1;
	return 0;
}

/*
 * A "---" line: git's cut line, below which come the changelog, the
 * diffstat and the diff -- or a heading's underline, as letters write
 * "Tests\n---" or "Kernel build on tmpfs:\n---" and go on with their
 * results.  It is an underline when the line above is a heading (not
 * blank, not a trailer: git's cut comes after the Signed-off-by; not a
 * sentence ending in '.') and the line below is neither the diffstat,
 * the diff nor a changelog's ("v2: ...", "Changes in v3:").
 */
static int
claims_is_cut(const char *prev, size_t prev_len, const char *next)
{
	size_t n;

	if (prev_len && prev[prev_len - 1] == '\r')
		prev_len--;
	if (!prev || prev_len == 0 || claims_is_trailer_line(prev, prev_len) ||
	    prev[prev_len - 1] == '.')
		return 1;
	if (!next || !*next)
		return 1;
	n = strcspn(next, "\n");
	if (n && next[n - 1] == '\r')
		n--;
	if (series_is_diffstat_line(next, n) ||
	    (n >= 11 && strncmp(next, "diff --git ", 11) == 0) ||
	    (n >= 2 && (next[0] == 'v' || next[0] == 'V') &&
	    isdigit((unsigned char)next[1])) ||
	    claims_starts_word(next, n, "changes") ||
	    claims_starts_word(next, n, "changelog") ||
	    claims_starts_word(next, n, "change"))
		return 1;
	return 0;
}

void
claims_extract(struct claims *out, const char *body, const char *where)
{
	struct claims_ctx x = { 0 };
	struct buf para = BUF_INIT(1 << 16);
	const char *p = body, *nl, *prev = NULL;
	size_t prev_len = 0;

	if (!body)
		return;
	x.out = out;
	x.where = where ? where : "";
	x.first = out->n;
	claims_cond_init(&x.setup);
	claims_cond_init(&x.carry);
	for (; *p; p = nl ? nl + 1 : p + strlen(p)) {
		size_t len;

		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (len && p[len - 1] == '\r')
			len--;
		if ((len == 3 && !strncmp(p, "---", 3) &&
		    claims_is_cut(prev, prev_len, nl ? nl + 1 : NULL)) ||
		    (len == 3 && !strncmp(p, "-- ", 3)) ||
		    !strncmp(p, "diff --git ", 11))
			break;
		prev = p;
		prev_len = len;
		if (len == 3 && !strncmp(p, "---", 3)) {
			/* a heading's underline: a new section, whose
			   tables the sections above do not caption */
			claims_paragraph(&x, &para);
			if (x.tb_phase)
				claims_time_block_flush(&x);
			free(x.caption);
			x.caption = NULL;
			x.cap_read = 0;
			free(x.tb_title);
			x.tb_title = NULL;
			claims_cond_init(&x.setup);
			continue;
		}
		if (len && p[0] == '>')
			continue;
		claims_lkp_param(&x, p, len);
		claims_fio_jobs(&x, p, len);
		if (claims_rule_lkp_box(&x, p, len)) {
			claims_paragraph(&x, &para);
			continue;
		}
		x.lkp_box = 0;
		if (len == 0) {
			free(x.mm_test);
			x.mm_test = NULL;
			x.group.on = 0;
			/* a blank under the header, or between a %diff
			   table's rows: the table goes on */
			if (x.nm_rows && !x.nm_diff)
				x.nm_on = 0;
		} else
			claims_mmtests_name(&x, p, len);
		if (len == 0 || claims_is_perf_line(p, len) ||
		    claims_is_skipped_line(p, len)) {
			claims_paragraph(&x, &para);
			if (x.sweep.mode)
				claims_sweep_flush(&x);
			if (!nl)
				break;
			continue;
		}
		if (claims_rule_time_block(&x, p, len))
			continue;
		/* a block's title: "memhog SWAP test (shadow nodes):" */
		if (p[len - 1] == ':' && len < 120 && !x.tb_phase) {
			free(x.tb_title);
			x.tb_title = xstrndup(p, len - 1);
		} else if (x.tb_phase == 2 && x.tb_seen != 2 &&
		    p[len - 1] == ':') {
			claims_time_block_flush(&x);
			free(x.tb_title);
			x.tb_title = xstrndup(p, len - 1);
		}
		/* a caption right above its table is read first */
		if (para.len && para.data[para.len - 1] == ':')
			claims_paragraph(&x, &para);
		if (claims_line_rules(&x, p, len)) {
			claims_paragraph(&x, &para);
			continue;
		}
		if (claims_icontains(p, len, "before") &&
		    claims_icontains(p, len, "after") && len < 80) {
			claims_paragraph(&x, &para);
			x.table_header = 1;
			continue;
		}
		{
			int hdr = x.table_header;

			if (claims_rule_table_row(&x, p, len)) {
				if (para.len) {
					claims_paragraph(&x, &para);
					x.table_header = hdr;
				}
				continue;
			}
		}
		/* a list item is a sentence of its own */
		if (claims_is_list_item(p, len))
			claims_paragraph(&x, &para);
		if (para.len)
			buf_addch(&para, ' ');
		buf_add(&para, p, len);
		if (!nl)
			break;
	}
	claims_paragraph(&x, &para);
	if (x.tb_phase == 2 || x.tb_seen == 3)
		claims_time_block_flush(&x);
	claims_sweep_flush(&x);
	claims_dedup(&x);
	buf_release(&para);
	free(x.caption);
	free(x.cap_words);
	free(x.tb_title);
	free(x.mm_test);
}

void
claims_extract_series(struct claims *out, const struct series *s)
{
	if (s->cover_body)
		claims_extract(out, s->cover_body, "cover letter");
	for (size_t i = 0; i < s->npatches; i++) {
		const struct patch *p = &s->patches[i];
		char *where = xasprintf("patch %d/%d", p->counter, p->total);

		claims_extract(out, p->message, where);
		if (p->notes)
			claims_extract(out, p->notes, where);
		free(where);
	}
}

void
claims_release(struct claims *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		claims_free_one(&cs->v[i]);
	free(cs->v);
	cs->v = NULL;
	cs->n = cs->cap = 0;
}

/* ---- names and JSON ---------------------------------------------------- */

const char *
claim_kind_name(enum claim_kind k)
{
	static const char *const n[] = { "change", "before-after", "level",
	    "not understood" };

	return (unsigned)k < NELEM(n) ? n[k] : "?";
}

const char *
claim_metric_name(enum claim_metric m)
{
	static const char *const n[] = { "", "rate", "real time", "sys time",
	    "user time", "latency", "lock contention", "profile share",
	    "other" };

	return (unsigned)m < NELEM(n) ? n[m] : "?";
}

const char *
claim_dir_name(enum claim_dir d)
{
	static const char *const n[] = { "", "up", "down", "better", "worse" };

	return (unsigned)d < NELEM(n) ? n[d] : "?";
}

const char *
claim_verdict_name(enum claim_verdict v)
{
	static const char *const n[] = { "consistent", "smaller than claimed",
	    "not reproduced", "opposite", "undecided", "not measured here",
	    "not understood", "context" };

	return (unsigned)v < NELEM(n) ? n[v] : "?";
}

static json_t *
claims_num_json(int has, double v)
{
	return has && isfinite(v) ? json_real(v) : json_null();
}

static json_t *
claims_count_json(int v)
{
	return v == CLAIM_NONE ? json_null() : json_integer(v);
}

json_t *
claims_to_json(const struct claims *cs)
{
	json_t *a = json_array();

	for (size_t i = 0; i < cs->n; i++)
		json_array_append_new(a, claim_to_json(&cs->v[i]));
	return a;
}

json_t *
claim_to_json(const struct claim *c)
{
	json_t *cond = json_pack("{s:o,s:o,s:o,s:o,s:o,s:s?,s:s?,s:s?}",
	    "threads", claims_count_json(c->cond.threads),
	    "processes", claims_count_json(c->cond.processes),
	    "cpus", claims_count_json(c->cond.cpus),
	    "memcgs", claims_count_json(c->cond.memcgs),
	    "folio_kb", claims_count_json(c->cond.folio_kb),
	    "mode", c->cond.mode[0] ? c->cond.mode : NULL,
	    "workload", c->cond.workload[0] ? c->cond.workload : NULL,
	    "lock", c->cond.lock[0] ? c->cond.lock : NULL);
	return json_pack(
	    "{s:s,s:s,s:s,s:s,s:s,s:s?,s:o,s:o,s:o,s:o,s:s?,s:s,s:o}",
	    "text", c->text, "where", c->where, "rule", c->rule,
	    "kind", claim_kind_name(c->kind),
	    "metric_words", c->words,
	    "metric", c->metric ? claim_metric_name(c->metric) : NULL,
	    "before", claims_num_json(c->has_before, c->before),
	    "after", claims_num_json(c->has_after, c->after),
	    "change_pct", claims_num_json(c->has_change, c->change_pct),
	    "change_points", claims_num_json(c->has_points, c->change_pts),
	    "direction", c->dir ? claim_dir_name(c->dir) : NULL,
	    "unit", c->unit, "conditions", cond);
}

/* ---- checking a claim against the rows ------------------------------- */

/* The lock row metric a lock claim's words speak of ("contended" is the
   count, "total wait" the time), NULL: the share. */
static const char *
claims_lock_metric(const struct claim *c)
{
	if (strstr(c->words, "contended"))
		return "wait_count";
	if (strstr(c->words, "total wait"))
		return "wait_total";
	if (strstr(c->words, "max wait"))
		return "wait_max";
	if (strstr(c->words, "avg wait"))
		return "wait_avg";
	return NULL;
}

/* The row metric a claim's metric class speaks about. */
static int
claims_row_metric_fits(const struct claim *c, const struct claim_row *r)
{
	const char *m = r->metric;

	switch (c->metric) {
	case CLAIM_M_RATE:
		return strstr(m, "per_sec") || strstr(m, "ops") ||
		    strstr(m, "pages");
	case CLAIM_M_TIME_REAL:
		return strstr(m, "wall") || strstr(m, "real");
	case CLAIM_M_TIME_SYS:
		return strstr(m, "sys") != NULL;
	case CLAIM_M_TIME_USER:
		return strstr(m, "user") != NULL;
	case CLAIM_M_LATENCY:
		return strstr(m, "lat") || strstr(m, "_us") || strstr(m, "p50")
		    || strstr(m, "p99");
	case CLAIM_M_LOCK: {
		const char *want = claims_lock_metric(c);

		if (!strstr(r->workload, "lock"))
			return 0;
		if (want)
			return !strcmp(m, want);
		return strstr(m, "share") || strstr(m, "wait");
	}
	case CLAIM_M_PROFILE:
	case CLAIM_M_OTHER:
		return 0;
	default:
		/* "25% improvement for SWAP": the workload's main metric */
		return strstr(m, "wall") || strstr(m, "per_sec") ||
		    strstr(m, "ops");
	}
}

/* ntasks=K from a row's params; -1 when absent. */
static int
claims_row_tasks(const char *params)
{
	const char *p = params ? strstr(params, "ntasks=") : NULL;

	return p ? atoi(p + 7) : -1;
}

static int
claims_row_matches(const struct claim *c, const struct claim_row *r)
{
	if (!claims_row_metric_fits(c, r))
		return 0;
	if (c->metric == CLAIM_M_LOCK) {
		/* the lock table's rows name the lock in their params */
		if (c->cond.lock[0] && r->params &&
		    !strstr(r->params, c->cond.lock) &&
		    !strstr(r->metric, c->cond.lock))
			return 0;
		return 1;
	}
	if (c->cond.workload[0] && strcmp(r->workload, c->cond.workload))
		return 0;
	if (c->cond.mode[0] && r->params && strstr(r->params, "mode=") &&
	    !strstr(r->params, c->cond.mode))
		return 0;
	if (c->cond.folio_kb != CLAIM_NONE && r->params &&
	    strstr(r->params, "thp=")) {
		char want[32];

		snprintf(want, sizeof(want), "thp=%d", c->cond.folio_kb);
		if (!strstr(r->params, want))
			return 0;
	}
	return 1;
}

/*
 * Picks among matching rows the one whose task count is nearest the
 * claim's: as a share of the machine when the letter names its CPUs (the
 * claim's threads or processes over them, against the row's ntasks over
 * the largest ntasks among the candidates), else as a count (nearest on
 * a log scale).  A claim that names no count speaks of the whole machine
 * (the largest row).  why says which was chosen and why.
 */
static int
claims_pick_row(const struct claim *c, const struct claim_row *rows,
    size_t n, char *why, size_t whysz)
{
	int best = -1, maxt = 0, bt = -1;
	int want = c->cond.threads != CLAIM_NONE ? c->cond.threads :
	    c->cond.processes;
	const char *what = c->cond.threads != CLAIM_NONE ? "threads" :
	    "processes";
	double want_frac = -1, bestd = 1e9;
	int ncand = 0;

	for (size_t i = 0; i < n; i++)
		if (claims_row_matches(c, &rows[i])) {
			ncand++;
			if (claims_row_tasks(rows[i].params) > maxt)
				maxt = claims_row_tasks(rows[i].params);
		}
	if (want != CLAIM_NONE && c->cond.cpus != CLAIM_NONE &&
	    c->cond.cpus > 0)
		want_frac = (double)want / c->cond.cpus;
	for (size_t i = 0; i < n; i++) {
		int t;
		double d;

		if (!claims_row_matches(c, &rows[i]))
			continue;
		t = claims_row_tasks(rows[i].params);
		if (best < 0)
			best = (int)i, bt = t;
		if (t <= 0 || maxt <= 0)
			continue;
		if (want_frac >= 0)
			d = fabs((double)t / maxt - want_frac);
		else if (want != CLAIM_NONE && want > 0)
			d = fabs(log((double)t / want));
		else
			d = fabs((double)t / maxt - 1.0);
		if (d < bestd - 1e-12) {
			bestd = d;
			best = (int)i;
			bt = t;
		}
	}
	if (best < 0 || ncand < 2 || bt <= 0)
		return best;
	if (want_frac >= 0)
		snprintf(why, whysz, "%d %s of the author's %d CPUs: the row "
		    "with the nearest share of this machine, ntasks=%d of %d",
		    want, what, c->cond.cpus, bt, maxt);
	else if (want != CLAIM_NONE)
		snprintf(why, whysz, "%d %s, on a machine the letter does not "
		    "size: the row with the nearest task count, ntasks=%d",
		    want, what, bt);
	else
		snprintf(why, whysz, "no task count in the claim: the row with "
		    "the whole machine, ntasks=%d", bt);
	return best;
}

void
claims_check(const struct claim *c, const struct claim_row *rows, size_t n,
    struct claim_check *out)
{
	const struct claim_row *r;
	double e, lo, hi;

	memset(out, 0, sizeof(*out));
	out->row = -1;
	if (c->kind == CLAIM_UNKNOWN) {
		out->verdict = CLAIM_NOT_UNDERSTOOD;
		return;
	}
	if (c->kind == CLAIM_LEVEL) {
		out->verdict = CLAIM_CONTEXT;
		snprintf(out->why, sizeof(out->why),
		    "a level on the author's machine, not a change");
		return;
	}
	if (c->metric == CLAIM_M_PROFILE || c->metric == CLAIM_M_OTHER) {
		out->verdict = CLAIM_NOT_MEASURED;
		snprintf(out->why, sizeof(out->why), "no suite here measures "
		    "%s%.*s", c->metric == CLAIM_M_PROFILE ?
		    "a perf profile's share of " : "", 100, c->words[0] ?
		    c->words : "this metric");
		return;
	}
	if (!c->has_change) {
		out->verdict = CLAIM_NOT_MEASURED;
		snprintf(out->why, sizeof(out->why), "the claim gives no "
		    "change to check (its before value is 0)");
		return;
	}
	out->row = claims_pick_row(c, rows, n, out->why, sizeof(out->why));
	if (out->row < 0) {
		out->verdict = CLAIM_NOT_MEASURED;
		snprintf(out->why, sizeof(out->why),
		    "no row measures %s%s%s", c->metric ?
		    claim_metric_name(c->metric) : "this",
		    c->cond.workload[0] ? " of " : "", c->cond.workload);
		return;
	}
	r = &rows[out->row];
	/* the claim in the row's terms: a signed %change of its metric */
	e = c->change_pct;
	if (c->dir == CLAIM_DIR_BETTER)
		e = r->better > 0 ? fabs(e) : -fabs(e);
	else if (c->dir == CLAIM_DIR_WORSE)
		e = r->better > 0 ? -fabs(e) : fabs(e);
	out->expected_pct = e;
	out->has_expected = 1;
	if (!r->exercised) {
		out->verdict = CLAIM_NOT_MEASURED;
		snprintf(out->why, sizeof(out->why),
		    "the changed code did not run in %s", r->workload);
		return;
	}
	lo = r->ci_lo;
	hi = r->ci_hi;
	if ((lo <= e && e <= hi) || (e > 0 && lo > e) || (e < 0 && hi < e))
		out->verdict = CLAIM_CONSISTENT;
	else if (lo <= 0 && 0 <= hi)
		out->verdict = (e > 0 ? hi >= e : lo <= e) ? CLAIM_UNDECIDED :
		    CLAIM_NOT_REPRODUCED;
	else if ((e > 0 && lo > 0) || (e < 0 && hi < 0))
		out->verdict = CLAIM_SMALLER;
	else
		out->verdict = CLAIM_OPPOSITE;
}

/* 2 (t_{1-a/2,df} + t_{power,df})^2 / d^2 at n boots per side, df 2n-2 */
static double
claims_boots_at(int n, double d, double alpha, double power)
{
	double df = 2.0 * n - 2;
	double t = gsl_cdf_tdist_Pinv(1 - alpha / 2, df) +
	    gsl_cdf_tdist_Pinv(power, df);

	return 2 * t * t / (d * d);
}

int
claims_boots_needed(double cv_pct, double effect_pct, double alpha,
    double power)
{
	double d;
	int lo = 2, hi = 10000;

	if (!(cv_pct > 0) || !(effect_pct != 0) || !(alpha > 0 && alpha < 1) ||
	    !(power > 0 && power < 1))
		return -1;
	d = fabs(effect_pct) / cv_pct;	/* effect in boot-noise units */
	/*
	 * The smallest n with n >= the boots the t approximation asks for
	 * at n's own degrees of freedom.  The asked-for boots fall as n
	 * grows (the t quantiles shrink), so the test is monotone in n and a
	 * bisection finds it.  (Iterating n = f(n) instead oscillates for
	 * large effects: at df 2 the t quantiles are huge, at df 6 small.)
	 */
	if (claims_boots_at(hi, d, alpha, power) > hi)
		return hi;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (claims_boots_at(mid, d, alpha, power) <= mid)
			hi = mid;
		else
			lo = mid + 1;
	}
	/*
	 * One boot more: the central-t approximation is optimistic at small
	 * df, and the daemon's rule gives up some power to its guards (a
	 * Grubbs outlier sends a row to the permutation test).  make
	 * bench-stats checks the result against the rule itself.
	 */
	return lo + 1 > 10000 ? 10000 : lo + 1;
}
