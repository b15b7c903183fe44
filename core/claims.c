/*
 * claims: quantitative claims read from a series' own text, and checked
 * (see claims.h).
 *
 * How a body is read.  Quoted lines ('>'), the diff, the "---" changelog
 * and the signature are skipped.  A line that is data (a table row, a
 * time(1) line, a perf-report line) is handled as a line; the other lines
 * form paragraphs that are cut into sentences.  Each rule of claim_rules[]
 * looks at one of the two.  Conditions (thread, process, memcg and CPU
 * counts, folio size, mode) and metric words come from the claim's own
 * words first, then from its sentence, then from the last sentence of the
 * message that had metric words (a table inherits its caption).  A
 * sentence citing other work ("as seen in [1]", "commit f26b3fa04611")
 * speaks about that work and yields nothing.  A number with '%' in a
 * sentence no rule understood is kept, as text, with kind CLAIM_UNKNOWN.
 *
 * The rules (keep this table and claim_rules[] in step):
 *   table-row     "shmem, 80 threads  7.94M  10.33M  (+30%)": a label, a
 *                 before and an after value, an optional change; without
 *                 the change only under a "before after" header
 *   time-block    "Before:" / "After:" followed by time(1) lines (real,
 *                 user, sys): the mean of each before vs after
 *   share-arrow   "64% -> 20%", "from 64% to 20%"
 *   pct-change    "~25% improvement", "60% ... contention reduction",
 *                 "+15%", "reduced by 20%"
 *   level         "52.8% of all cycles spent spinning on lru_lock",
 *                 "took 69us", "dropped to 43%": one value
 *   level-pair    a level, then a sentence "With this patch ..." giving a
 *                 level of the same metric: before and after
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <jansson.h>

#include "core/claims.h"
#include "core/series.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

#define CLAIMS_MAX		256	/* per series: a sane bound */
#define CLAIMS_SENTENCE_MAX	2048

/* ---- words ---------------------------------------------------------- */

/*
 * Metric words: what a claim measures, which workload and lock it names.
 * Matched case-insensitively as substrings of the claim's words.
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
	{ "ops/s", "ops/s", CLAIM_M_RATE, NULL, NULL },
	{ "operations per second", "ops/s", CLAIM_M_RATE, NULL, NULL },
	{ "page fault1", "page_fault1", CLAIM_M_NONE, "page-fault", NULL },
	{ "page_fault1", "page_fault1", CLAIM_M_NONE, "page-fault", NULL },
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
	{ "sys time", "sys time", CLAIM_M_TIME_SYS, NULL, NULL },
	{ "system time", "sys time", CLAIM_M_TIME_SYS, NULL, NULL },
	{ "wall time", "wall time", CLAIM_M_TIME_REAL, NULL, NULL },
	{ "elapsed", "wall time", CLAIM_M_TIME_REAL, NULL, NULL },
	{ "contention", "lock contention", CLAIM_M_LOCK, NULL, NULL },
	{ "spinning", "lock contention", CLAIM_M_LOCK, NULL, NULL },
	{ "cycles", "cycles", CLAIM_M_NONE, NULL, NULL },
	{ "lru lock", "lru_lock", CLAIM_M_NONE, NULL, "lru_lock" },
	{ "lru_lock", "lru_lock", CLAIM_M_NONE, NULL, "lru_lock" },
	{ "lruvec_lock", "lru_lock", CLAIM_M_NONE, NULL, "lru_lock" },
	{ "deferred queue lock", "split_queue_lock", CLAIM_M_NONE, NULL,
	    "split_queue_lock" },
	{ "split_queue_lock", "split_queue_lock", CLAIM_M_NONE, NULL,
	    "split_queue_lock" },
	{ "split queue lock", "split_queue_lock", CLAIM_M_NONE, NULL,
	    "split_queue_lock" },
	{ "zone lock", "zone lock", CLAIM_M_NONE, NULL, "zone_lock" },
	{ "list_lru", "list_lru", CLAIM_M_NONE, NULL, "list_lru" },
	{ "rstat", "rstat", CLAIM_M_NONE, NULL, "rstat" },
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
	{ "increase", CLAIM_DIR_UP }, { "higher", CLAIM_DIR_UP },
	{ "more", CLAIM_DIR_UP }, { "growth", CLAIM_DIR_UP },
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

/*
 * Parses a number at s: "7.94", "10.33M", "~0.9", "4.74M"; the multiplier
 * suffix K/M/G is applied and a unit (us, ms, ns, s, %) reported.  Returns
 * the length consumed, 0 when s holds no number.
 */
static size_t
claims_number(const char *s, double *v, char unit[8])
{
	const char *p = s;
	char *end;
	double d;

	if (!isdigit((unsigned char)*p))
		return 0;
	d = strtod(p, &end);
	if (end == p)
		return 0;
	p = end;
	unit[0] = '\0';
	if (*p == 'K' || *p == 'M' || *p == 'G') {
		if (!claims_is_word_char(p[1]) || strncmp(p + 1, "B", 1) == 0) {
			if (p[1] != 'B')
				d *= *p == 'K' ? 1e3 : *p == 'M' ? 1e6 : 1e9;
			p++;
		}
	} else if (*p == '%') {
		strcpy(unit, "%");
		p++;
	} else if ((p[0] == 'u' || p[0] == 'm' || p[0] == 'n') && p[1] == 's' &&
	    !claims_is_word_char(p[2])) {
		unit[0] = p[0];
		unit[1] = 's';
		unit[2] = '\0';
		p += 2;
	} else if (strncmp(p, "\xc2\xb5s", 3) == 0) {	/* µs */
		strcpy(unit, "us");
		p += 3;
	}
	*v = d;
	return p - s;
}

/* A count right before a word: "80 threads", "128 memcgs", "80-CPU". */
static int
claims_count_before(const char *s, size_t len, const char *const *words)
{
	for (size_t i = 0; i < len; i++) {
		const char *p;
		char *end;
		long n;

		if (!isdigit((unsigned char)s[i]) ||
		    (i > 0 && (claims_is_word_char(s[i - 1]) || s[i - 1] == '.')))
			continue;
		n = strtol(s + i, &end, 10);
		p = end;
		if (*p == '.' && isdigit((unsigned char)p[1]))
			continue;
		if (*p == ' ' || *p == '-')
			p++;
		for (const char *const *w = words; *w; w++)
			if (strncasecmp(p, *w, strlen(*w)) == 0 &&
			    p + strlen(*w) <= s + len && n > 0 && n < 1000000)
				return (int)n;
	}
	return CLAIM_NONE;
}

/* "order 2" -> 16 (kB), "16K folio" / "64kB" -> 16 / 64, "PMD" -> 2048. */
static int
claims_folio_kb(const char *s, size_t len)
{
	for (size_t i = 0; i + 6 < len; i++) {
		if (strncasecmp(s + i, "order ", 6) == 0 &&
		    isdigit((unsigned char)s[i + 6])) {
			int o = atoi(s + i + 6);

			if (o >= 0 && o <= 10)
				return 4 << o;
		}
	}
	for (size_t i = 0; i < len; i++) {
		char *end;
		long n;

		if (!isdigit((unsigned char)s[i]) ||
		    (i > 0 && claims_is_word_char(s[i - 1])))
			continue;
		n = strtol(s + i, &end, 10);
		if ((*end == 'K' || *end == 'k') &&
		    (end[1] == ' ' || end[1] == 'B' || end[1] == ')' ||
		    end[1] == ',') && (n == 8 || n == 16 || n == 32 ||
		    n == 64 || n == 128 || n == 256 || n == 512 || n == 1024) &&
		    (claims_icontains(s, len, "folio") ||
		    claims_icontains(s, len, "thp")))
			return (int)n;
	}
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

/* Fills what s says of the conditions into c, where c does not know. */
static void
claims_cond_read(struct claim_cond *c, const char *s, size_t len)
{
	static const char *const threads[] = { "threads", "thread", NULL };
	static const char *const procs[] = { "processes", "procs", NULL };
	static const char *const cpus[] = { "CPUs", "CPU", "cpus", NULL };
	static const char *const memcgs[] = { "memcgs", "cgroups", "memcg",
	    "freshly created memcgs", NULL };

	if (c->threads == CLAIM_NONE)
		c->threads = claims_count_before(s, len, threads);
	if (c->processes == CLAIM_NONE)
		c->processes = claims_count_before(s, len, procs);
	if (c->cpus == CLAIM_NONE)
		c->cpus = claims_count_before(s, len, cpus);
	if (c->memcgs == CLAIM_NONE)
		c->memcgs = claims_count_before(s, len, memcgs);
	if (c->folio_kb == CLAIM_NONE)
		c->folio_kb = claims_folio_kb(s, len);
	if (!c->mode[0]) {
		if (claims_icontains(s, len, "shmem"))
			strcpy(c->mode, "shmem");
		else if (claims_icontains(s, len, "anon"))
			strcpy(c->mode, "anon");
	}
	for (size_t i = 0; i < sizeof(claim_words) / sizeof(claim_words[0]);
	    i++) {
		const struct claim_word *w = &claim_words[i];

		if (!claims_icontains(s, len, w->pat))
			continue;
		if (w->workload && !c->workload[0])
			snprintf(c->workload, sizeof(c->workload), "%s",
			    w->workload);
		if (w->lock && !c->lock[0])
			snprintf(c->lock, sizeof(c->lock), "%s", w->lock);
	}
}

/* Metric words of s into words (deduplicated) and the metric class. */
static enum claim_metric
claims_words_read(struct buf *words, const char *s, size_t len)
{
	enum claim_metric m = CLAIM_M_NONE;

	for (size_t i = 0; i < sizeof(claim_words) / sizeof(claim_words[0]);
	    i++) {
		const struct claim_word *w = &claim_words[i];

		if (!claims_icontains(s, len, w->pat))
			continue;
		if (!words->data || !strstr(words->data, w->word))
			buf_addf(words, "%s%s", words->len ? ", " : "",
			    w->word);
		if (w->metric != CLAIM_M_NONE && m == CLAIM_M_NONE)
			m = w->metric;
	}
	return m;
}

/* ---- the extraction state -------------------------------------------- */

struct claims_span {
	const char	*s;
	size_t		 len;
};


struct claims_ctx {
	struct claims	*out;
	const char	*where;
	/* the last sentence with metric words: a table's caption */
	char		*caption;
	/* time-block: sums of real/user/sys per phase */
	char		*tb_title;
	int		 tb_phase;	/* 0 none, 1 before, 2 after */
	double		 tb_sum[2][3];
	int		 tb_n[2][3];
	int		 table_header;	/* "before after" seen in paragraph */
	size_t		 first;		/* first claim of this message */
	/* the current sentence up to its first number: shared conditions */
	struct claims_span prefix;
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

/*
 * Conditions and metric words for a claim, nearest text first: the words
 * after its number up to the next claim's (fwd), those before it back to
 * the previous claim's (back), then the sentence (words only: its counts
 * may belong to another claim of the sentence), then the caption.
 */

static void
claims_describe(struct claims_ctx *x, struct claim *c, struct claims_span fwd,
    struct claims_span back, struct claims_span sent)
{
	struct claims_span cap = { x->caption, x->caption ?
	    strlen(x->caption) : 0 };
	const struct claims_span *cond[] = { &fwd, &back, &x->prefix, &cap };
	const struct claims_span *word[] = { &fwd, &back, &sent, &cap };
	struct buf words = BUF_INIT(512);
	enum claim_metric m = CLAIM_M_NONE;

	for (size_t i = 0; i < 4; i++)
		if (cond[i]->s)
			claims_cond_read(&c->cond, cond[i]->s, cond[i]->len);
	for (size_t i = 0; i < 4 && (!words.len || m == CLAIM_M_NONE); i++) {
		enum claim_metric mi;

		/* the caption only speaks for a claim without words */
		if (!word[i]->s || (word[i] == &cap && words.len))
			continue;
		mi = claims_words_read(&words, word[i]->s, word[i]->len);
		if (m == CLAIM_M_NONE)
			m = mi;
	}
	if (!strcmp(c->unit, "us") || !strcmp(c->unit, "ms") ||
	    !strcmp(c->unit, "ns"))
		m = CLAIM_M_LATENCY;
	if (c->metric == CLAIM_M_NONE)
		c->metric = m;
	c->words = buf_detach(&words, NULL);
	if (!c->words)
		c->words = xstrdup("");
}

static const struct claims_span claims_nospan = { NULL, 0 };

/* ---- line rules: table-row, time-block ------------------------------ */

/*
 * table-row: tokens from the right: an optional "(+15%)", then two
 * values; what is left, the label, has a letter.
 */
static int
claims_rule_table_row(struct claims_ctx *x, const char *line, size_t len)
{
	const char *tok[64];
	size_t toklen[64], ntok = 0, i = 0;
	double pct = 0, v[2];
	char unit[2][8], u[8];
	int has_pct = 0, k, letter = 0;
	struct claim *c;

	while (i < len && ntok < 64) {
		while (i < len && isspace((unsigned char)line[i]))
			i++;
		if (i >= len)
			break;
		tok[ntok] = line + i;
		while (i < len && !isspace((unsigned char)line[i]))
			i++;
		toklen[ntok] = line + i - tok[ntok];
		ntok++;
	}
	if (ntok < 3)
		return 0;
	k = (int)ntok - 1;
	{
		const char *t = tok[k];
		size_t tl = toklen[k];
		double d;

		if (t[0] == '(' && tl > 3 && t[tl - 1] == ')') {
			t++;
			tl -= 2;
		}
		if ((t[0] == '+' || t[0] == '-' ||
		    !strncmp(t, "\xe2\x88\x92", 3)) && tl > 2) {
			int neg = t[0] != '+';
			size_t skip = t[0] == '+' || t[0] == '-' ? 1 : 3;

			if (claims_number(t + skip, &d, u) == tl - skip &&
			    !strcmp(u, "%")) {
				pct = neg ? -d : d;
				has_pct = 1;
				k--;
			}
		}
	}
	if (k < 2)
		return 0;
	for (int j = 0; j < 2; j++) {
		const char *t = tok[k - 1 + j];
		size_t tl = toklen[k - 1 + j];

		if (t[0] == '~')
			t++, tl--;
		if (claims_number(t, &v[j], unit[j]) != tl || tl == 0)
			return 0;
	}
	for (int j = 0; j < k - 1; j++)
		for (size_t m = 0; m < toklen[j]; m++)
			if (isalpha((unsigned char)tok[j][m]))
				letter = 1;
	if (!letter || (!has_pct && !x->table_header))
		return 0;
	if (strcmp(unit[0], unit[1]) != 0)
		return 0;
	c = claims_new(x, CLAIM_BEFORE_AFTER, "table-row", line, len);
	if (!c)
		return 1;
	c->has_before = c->has_after = 1;
	c->before = v[0];
	c->after = v[1];
	snprintf(c->unit, sizeof(c->unit), "%s", unit[0]);
	if (has_pct) {
		c->change_pct = pct;
		c->has_change = 1;
	} else if (v[0] != 0) {
		c->change_pct = (v[1] - v[0]) / fabs(v[0]) * 100.0;
		c->has_change = 1;
	}
	/* the label's conditions are its own; the caption fills the rest */
	claims_describe(x, c, (struct claims_span){ line,
	    (size_t)(tok[k - 1] - line) }, claims_nospan, claims_nospan);
	return 1;
}

/* "0m20.328s", "20.3s", "10m23.639s" -> seconds; -1 when not a duration */
static double
claims_duration(const char *t, size_t tl)
{
	char *end;
	double m = 0, s;

	if (!tl || !isdigit((unsigned char)t[0]))
		return -1;
	s = strtod(t, &end);
	if (*end == 'm') {
		m = s;
		if (!isdigit((unsigned char)end[1]))
			return -1;
		s = strtod(end + 1, &end);
	}
	if (*end != 's' || (size_t)(end + 1 - t) != tl)
		return -1;
	return m * 60 + s;
}

static void
claims_time_block_flush(struct claims_ctx *x)
{
	static const char *const names[3] = { "real", "user", "sys" };
	static const enum claim_metric metric[3] = { CLAIM_M_TIME_REAL,
	    CLAIM_M_TIME_USER, CLAIM_M_TIME_SYS };

	for (int k = 0; k < 3; k++) {
		struct claim *c;
		char text[512];
		double b, a;
		int n;

		if (!x->tb_n[0][k] || !x->tb_n[1][k])
			continue;
		b = x->tb_sum[0][k] / x->tb_n[0][k];
		a = x->tb_sum[1][k] / x->tb_n[1][k];
		n = snprintf(text, sizeof(text),
		    "%s%s%s mean of %d runs %.3fs -> %d runs %.3fs",
		    x->tb_title ? x->tb_title : "",
		    x->tb_title ? ": " : "", names[k], x->tb_n[0][k], b,
		    x->tb_n[1][k], a);
		c = claims_new(x, CLAIM_BEFORE_AFTER, "time-block", text,
		    n < (int)sizeof(text) ? (size_t)n : sizeof(text) - 1);
		if (!c)
			break;
		c->metric = metric[k];
		c->has_before = c->has_after = c->has_change = 1;
		c->before = b;
		c->after = a;
		c->change_pct = b > 0 ? (a - b) / b * 100.0 : 0;
		strcpy(c->unit, "s");
		claims_describe(x, c, (struct claims_span){ x->tb_title,
		    x->tb_title ? strlen(x->tb_title) : 0 }, claims_nospan,
		    claims_nospan);
		free(c->words);
		c->words = xasprintf("%s time", names[k]);
	}
	memset(x->tb_sum, 0, sizeof(x->tb_sum));
	memset(x->tb_n, 0, sizeof(x->tb_n));
	x->tb_phase = 0;
}

/*
 * time-block: feeds a line's tokens; returns 1 when the line was part of
 * a block (a marker or a time(1) figure), so it is not prose.
 */
static int
claims_rule_time_block(struct claims_ctx *x, const char *line, size_t len)
{
	size_t i = 0;
	int used = 0, key = -1;

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
		} else if ((tl == 6 && !strncasecmp(t, "After:", 6)) ||
		    (tl == 5 && !strncasecmp(t, "After", 5) && tl == len)) {
			if (x->tb_phase == 1)
				x->tb_phase = 2;
			used = 1;
		} else if (x->tb_phase && tl == 4 && !strncmp(t, "real", 4))
			key = 0;
		else if (x->tb_phase && tl == 4 && !strncmp(t, "user", 4))
			key = 1;
		else if (x->tb_phase && tl == 3 && !strncmp(t, "sys", 3))
			key = 2;
		else if (key >= 0) {
			double d = claims_duration(t, tl);

			if (d >= 0) {
				x->tb_sum[x->tb_phase - 1][key] += d;
				x->tb_n[x->tb_phase - 1][key]++;
				used = 1;
			}
			key = -1;
		}
	}
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

/* ---- sentence rules: share-arrow, pct-change, level, unknown --------- */

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
		if (i + 7 < len && !strncasecmp(s + i, "commit ", 7)) {
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
	for (size_t i = 0; i < sizeof(claim_change_words) /
	    sizeof(claim_change_words[0]); i++) {
		size_t n = strlen(claim_change_words[i].word);

		if (!strncmp(w, claim_change_words[i].word, n))
			return claim_change_words[i].dir;
	}
	return CLAIM_DIR_NONE;
}

/*
 * The change word following "N%" within a few words ("25% improvement",
 * "60% deferred queue lock contention reduction"), or "by N%" after one
 * ("reduced by 20%").  "dropped to 43%" is a level, not a change.
 */
static enum claim_dir
claims_dir_near(const char *s, size_t len, const struct claims_num *n)
{
	size_t i = n->end;
	char w[32];
	int words = 0;

	/* "... reduced by N%", "drop by N%" */
	if (n->at >= 3 && !strncasecmp(s + n->at - 3, "by ", 3)) {
		size_t j = n->at - 3;
		enum claim_dir d;

		while (j > 0 && s[j - 1] == ' ')
			j--;
		while (j > 0 && isalpha((unsigned char)s[j - 1]))
			j--;
		claims_word(s + j, len - j, w, sizeof(w));
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
		if (!strcmp(w, "of") || !strcmp(w, "than"))
			return CLAIM_DIR_NONE;
		i += wl;
		words++;
	}
	return CLAIM_DIR_NONE;
}

/* Numbers with a unit (%, us, ms, ns) in the sentence. */
static size_t
claims_numbers(const char *s, size_t len, struct claims_num *v, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n < max; i++) {
		struct claims_num *num = &v[n];
		size_t l;

		if (!isdigit((unsigned char)s[i]) ||
		    (i > 0 && (claims_is_word_char(s[i - 1]) ||
		    s[i - 1] == '.' || s[i - 1] == '/')))
			continue;
		memset(num, 0, sizeof(*num));
		l = claims_number(s + i, &num->v, num->unit);
		if (!l) {
			continue;
		}
		if (num->unit[0]) {
			num->at = i;
			num->end = i + l;
			if (i > 0 && s[i - 1] == '+')
				num->sign = 1;
			else if (i > 0 && s[i - 1] == '-' &&
			    (i < 2 || !claims_is_word_char(s[i - 2])))
				num->sign = -1;
			n++;
		}
		i += l - 1;
	}
	return n;
}

static void claims_sentence_claims(struct claims_ctx *, const char *, size_t,
    struct claims_num *, size_t);

static void
claims_sentence(struct claims_ctx *x, const char *s, size_t len)
{
	struct claims_num num[16];
	struct buf words = BUF_INIT(512);
	size_t n;

	if (len == 0 || claims_cites_other_work(s, len))
		return;
	n = claims_numbers(s, len, num, 16);
	x->prefix.s = s;
	x->prefix.len = n ? num[0].at : len;
	if (n)
		claims_sentence_claims(x, s, len, num, n);
	/* a sentence with metric words captions the table that follows */
	if (claims_words_read(&words, s, len) != CLAIM_M_NONE || words.len) {
		free(x->caption);
		x->caption = xstrndup(s, len);
	}
	/* the prefix points into the paragraph's buffer, which the next
	   line may move: it speaks for this sentence's claims only */
	x->prefix.s = NULL;
	x->prefix.len = 0;
	buf_release(&words);
}

/* share-arrow: "64% -> 20%", "from 64% to 20%", "64% to 20%": one
   before/after claim per pair of numbers of one unit with an arrow
   between them (both marked used).  -1 when no claim could be added. */
static int
claims_share_arrows(struct claims_ctx *x, const char *s, size_t len,
    struct claims_num *num, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		const char *gap = s + num[i].end;
		size_t gl = num[i + 1].at - num[i].end;
		struct claim *c;

		if (strcmp(num[i].unit, num[i + 1].unit) || gl > 8)
			continue;
		if (!(claims_icontains(gap, gl, "->") ||
		    claims_icontains(gap, gl, "\xe2\x86\x92") ||
		    claims_icontains(gap, gl, " to ")))
			continue;
		c = claims_new(x, CLAIM_BEFORE_AFTER, "share-arrow", s, len);
		if (!c)
			return -1;
		c->has_before = c->has_after = c->has_change = 1;
		c->before = num[i].v;
		c->after = num[i + 1].v;
		c->change_pct = c->before ? (c->after - c->before) /
		    c->before * 100.0 : 0;
		snprintf(c->unit, sizeof(c->unit), "%s", num[i].unit);
		claims_describe(x, c, (struct claims_span){ s + num[i].at,
		    (i + 2 < n ? num[i + 2].at : len) - num[i].at },
		    (struct claims_span){ s + (i ? num[i - 1].end : 0),
		    num[i].at - (i ? num[i - 1].end : 0) },
		    (struct claims_span){ s, len });
		num[i].used = num[i + 1].used = 1;
	}
	return 0;
}

/* The claim number i unused by a pair makes on its own: a percentage
   change when it has a sign or a direction word, else a level of the
   metric its words name (or an unknown for a bare "3%").  0, 1 when it
   makes none, -1 when no claim could be added. */
static int
claims_single(struct claims_ctx *x, const char *s, size_t len,
    const struct claims_num *num, size_t n, size_t i)
{
	size_t own_at = i ? num[i - 1].end : 0;
	size_t own_end = i + 1 < n ? num[i + 1].at : len;
	enum claim_dir d;
	struct claim *c;
	int pct = !strcmp(num[i].unit, "%");

	d = pct ? claims_dir_near(s, len, &num[i]) : CLAIM_DIR_NONE;
	if (pct && (num[i].sign || d != CLAIM_DIR_NONE)) {
		c = claims_new(x, CLAIM_CHANGE, "pct-change", s, len);
		if (!c)
			return -1;
		c->has_change = 1;
		c->dir = num[i].sign ? CLAIM_DIR_NONE : d;
		c->change_pct = num[i].sign ? num[i].sign * num[i].v :
		    d == CLAIM_DIR_DOWN ? -num[i].v : num[i].v;
		strcpy(c->unit, "%");
	} else {
		struct buf w = BUF_INIT(512);
		enum claim_metric m;

		m = claims_words_read(&w, s + own_at, own_end - own_at);
		if (m == CLAIM_M_NONE)
			m = claims_words_read(&w, s, len);
		buf_release(&w);
		/* a level needs a metric: a bare "3%" is not one */
		if (m == CLAIM_M_NONE && pct && !claims_icontains(s,
		    len, "cycles") && !claims_icontains(s, len, "time"))
			c = claims_new(x, CLAIM_UNKNOWN, "none", s, len);
		else if (!pct && m == CLAIM_M_NONE &&
		    strcmp(num[i].unit, "us") &&
		    strcmp(num[i].unit, "ms") &&
		    strcmp(num[i].unit, "ns"))
			return 1;
		else
			c = claims_new(x, CLAIM_LEVEL, "level", s, len);
		if (!c)
			return -1;
		c->has_before = 1;
		c->before = num[i].v;
		snprintf(c->unit, sizeof(c->unit), "%s", num[i].unit);
	}
	claims_describe(x, c, (struct claims_span){ s + num[i].at,
	    own_end - num[i].at }, (struct claims_span){ s + own_at,
	    num[i].at - own_at }, (struct claims_span){ s, len });
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
		free(after->text);
		free(after->where);
		free(after->words);
		x->out->n--;
		break;
	}
}

static void
claims_sentence_claims(struct claims_ctx *x, const char *s, size_t len,
    struct claims_num *num, size_t n)
{
	size_t i, first = x->out->n, head = len > 24 ? 24 : len;
	int pair_start;

	pair_start = claims_icontains(s, head, "with this patch") ||
	    claims_icontains(s, head, "with the patch") ||
	    claims_icontains(s, head, "with the change") ||
	    claims_icontains(s, head, "after this patch") ||
	    claims_icontains(s, head, "with the series");
	if (claims_share_arrows(x, s, len, num, n) != 0)
		return;
	for (i = 0; i < n; i++)
		if (!num[i].used && claims_single(x, s, len, num, n, i) < 0)
			return;
	if (pair_start && x->out->n == first + 1 &&
	    x->out->v[first].kind == CLAIM_LEVEL)
		claims_level_pair(x, first);
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
}

/* ---- the body ---------------------------------------------------------- */

void
claims_extract(struct claims *out, const char *body, const char *where)
{
	struct claims_ctx x = { 0 };
	struct buf para = BUF_INIT(1 << 16);
	const char *p = body, *nl;

	if (!body)
		return;
	x.out = out;
	x.where = where ? where : "";
	x.first = out->n;
	for (; *p; p = nl ? nl + 1 : p + strlen(p)) {
		size_t len;

		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (len && p[len - 1] == '\r')
			len--;
		if ((len == 3 && !strncmp(p, "---", 3)) ||
		    (len == 3 && !strncmp(p, "-- ", 3)) ||
		    !strncmp(p, "diff --git ", 11))
			break;
		if (len && p[0] == '>')
			continue;
		if (len == 0 || claims_is_perf_line(p, len)) {
			claims_paragraph(&x, &para);
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
		} else if (x.tb_phase == 2 && p[len - 1] == ':') {
			claims_time_block_flush(&x);
			free(x.tb_title);
			x.tb_title = xstrndup(p, len - 1);
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
		if (para.len)
			buf_addch(&para, ' ');
		buf_add(&para, p, len);
		if (!nl)
			break;
	}
	claims_paragraph(&x, &para);
	if (x.tb_phase == 2)
		claims_time_block_flush(&x);
	buf_release(&para);
	free(x.caption);
	free(x.tb_title);
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
		free(where);
	}
}

void
claims_release(struct claims *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		free(cs->v[i].text);
		free(cs->v[i].where);
		free(cs->v[i].words);
	}
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

	return (unsigned)k < 4 ? n[k] : "?";
}

const char *
claim_metric_name(enum claim_metric m)
{
	static const char *const n[] = { "", "rate", "real time", "sys time",
	    "user time", "latency", "lock contention" };

	return (unsigned)m < 7 ? n[m] : "?";
}

const char *
claim_dir_name(enum claim_dir d)
{
	static const char *const n[] = { "", "up", "down", "better", "worse" };

	return (unsigned)d < 5 ? n[d] : "?";
}

const char *
claim_verdict_name(enum claim_verdict v)
{
	static const char *const n[] = { "consistent", "smaller than claimed",
	    "not reproduced", "opposite", "undecided", "not measured here",
	    "not understood", "context" };

	return (unsigned)v < 8 ? n[v] : "?";
}

static json_t *
claims_num_json(int has, double v)
{
	return has ? json_real(v) : json_null();
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
	    "{s:s,s:s,s:s,s:s,s:s,s:s?,s:o,s:o,s:o,s:s?,s:s,s:o}",
	    "text", c->text, "where", c->where, "rule", c->rule,
	    "kind", claim_kind_name(c->kind),
	    "metric_words", c->words,
	    "metric", c->metric ? claim_metric_name(c->metric) : NULL,
	    "before", claims_num_json(c->has_before, c->before),
	    "after", claims_num_json(c->has_after, c->after),
	    "change_pct", claims_num_json(c->has_change, c->change_pct),
	    "direction", c->dir ? claim_dir_name(c->dir) : NULL,
	    "unit", c->unit, "conditions", cond);
}

/* ---- checking a claim against the rows ------------------------------- */

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
	case CLAIM_M_LOCK:
		return strstr(r->workload, "lock") && (strstr(m, "share") ||
		    strstr(m, "wait"));
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
 * Picks among matching rows the one with the nearest share of the machine
 * (the claim's threads or processes over its CPUs, or over the largest
 * count the claim's machine had, against the row's ntasks over the
 * largest ntasks among the candidates).
 */
static int
claims_pick_row(const struct claim *c, const struct claim_row *rows,
    size_t n)
{
	int best = -1, maxt = 0;
	int want = c->cond.threads != CLAIM_NONE ? c->cond.threads :
	    c->cond.processes;
	double want_frac = -1, bestd = 1e9;

	for (size_t i = 0; i < n; i++)
		if (claims_row_matches(c, &rows[i]) &&
		    claims_row_tasks(rows[i].params) > maxt)
			maxt = claims_row_tasks(rows[i].params);
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
			best = (int)i;
		if (t <= 0 || maxt <= 0)
			continue;
		/* no machine size given: the claim's count is "all" */
		d = fabs((double)t / maxt - (want_frac >= 0 ? want_frac : 1.0));
		if (d < bestd) {
			bestd = d;
			best = (int)i;
		}
	}
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
	out->row = claims_pick_row(c, rows, n);
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
