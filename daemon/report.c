/*
 * report: the comparison model and its three renderings (see report.h).
 * report_load, at the end of this file, is the only part that reads the
 * store; everything above it is pure.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/db.h"
#include "daemon/db_agent.h"
#include "daemon/db_build.h"
#include "daemon/db_exercise.h"
#include "daemon/db_report.h"
#include "daemon/html.h"
#include "daemon/pipeline.h"
#include "daemon/report.h"
#include "daemon/sched.h"
#include "core/svg.h"
#include "lib/log.h"
#include "lib/xalloc.h"

/* Lock-profile diff: at most this many locks, and callers per lock. */
#define REPORT_TOP_LOCKS	8
#define REPORT_TOP_CALLERS	4
/* The largest per-side sample text report_compute accepts. */
#define REPORT_MAX_JSONL	STATS_MAX_FILE

const char *
report_side_name(int side)
{
	return side == REPORT_PATCHED ? "patched" : "base";
}

void
report_init(struct report *r)
{
	memset(r, 0, sizeof(*r));
	r->kernel[0].build_progress = r->kernel[1].build_progress = -1;
}

static void
report_profiles_free(struct report_profile *p, size_t n)
{
	size_t i, k, c;

	for (i = 0; i < n; i++) {
		for (k = 0; k < p[i].nlocks; k++) {
			for (c = 0; c < p[i].locks[k].ncallers; c++)
				free(p[i].locks[k].callers[c].symbol);
			free(p[i].locks[k].callers);
			free(p[i].locks[k].caller_ix);
			free(p[i].locks[k].lock);
			free(p[i].locks[k].symbol);
		}
		free(p[i].locks);
		free(p[i].lock_ix);
		free(p[i].params);
	}
	free(p);
}

static void
report_contention_free(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nlocks; i++) {
		free(r->locks[i].run);
		free(r->locks[i].lock);
	}
	free(r->locks);
	r->locks = NULL;
	r->nlocks = 0;
	stats_result_release(&r->contention);
}

void
report_release(struct report *r)
{
	size_t i;
	int s;

	report_claims_free(r);
	free(r->series_state);
	free(r->series_rest);
	free(r->series_error);
	free(r->subject);
	free(r->author);
	free(r->source);
	free(r->tree);
	free(r->base_commit);
	free(r->base_kind);
	free(r->base_reason);
	for (s = 0; s < 2; s++) {
		free(r->kernel[s].commit);
		free(r->kernel[s].build_state);
		free(r->kernel[s].build_error);
	}
	free(r->state);
	free(r->error);
	free(r->hw_class);
	free(r->topology);
	free(r->agent);
	free(r->matrix);
	for (i = 0; i < r->njobs; i++) {
		free(r->jobs[i].state);
		free(r->jobs[i].reason);
		free(r->jobs[i].agent);
		free(r->jobs[i].console);
		free(r->jobs[i].progress);
	}
	free(r->jobs);
	if (r->have_result)
		stats_result_release(&r->result);
	report_contention_free(r);
	report_profiles_free(r->profiles, r->nprofiles);
	report_exercise_release(&r->ex);
	report_init(r);
}

/* ---- computing the rows and the lock-profile diff ----------------------- */

static struct report_profile *
report_profile_get(struct report *r, const char *params)
{
	size_t i;

	for (i = 0; i < r->nprofiles; i++)
		if (!strcmp(r->profiles[i].params, params))
			return &r->profiles[i];
	r->profiles = xrealloc(r->profiles, (r->nprofiles + 1) *
	    sizeof(*r->profiles));
	memset(&r->profiles[r->nprofiles], 0, sizeof(*r->profiles));
	r->profiles[r->nprofiles].params = xstrdup(params);
	return &r->profiles[r->nprofiles++];
}

static void
report_share_init(double share[2])
{
	share[0] = share[1] = 0;
}

/*
 * Locks and callers are found by name through an open-addressed hash of
 * their array indices (slot: index + 1, 0 empty), kept at most half full:
 * summing an upload is linear in its names, however many distinct names
 * a hostile profile carries (a linear search made 15k names a minute of
 * one thread).  The index lives while the sums are built and is dropped
 * when report_profiles_finish sorts the arrays.
 */
static uint64_t
report_hash(const char *a, const char *b)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (; b && *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ULL;
	return h;
}

/* The slot of ix (cap a power of two) for hash h: the first that is
   empty or whose entry same() accepts. */
static size_t *
report_ix_probe(size_t *ix, size_t cap, uint64_t h,
    int (*same)(const void *, size_t, const char *, const char *),
    const void *arr, const char *a, const char *b)
{
	size_t i = (size_t)h & (cap - 1);

	while (ix[i] && !same(arr, ix[i] - 1, a, b))
		i = (i + 1) & (cap - 1);
	return &ix[i];
}

static int
report_lock_same(const void *arr, size_t i, const char *lock,
    const char *sym)
{
	const struct report_lock *l = (const struct report_lock *)arr + i;

	return !strcmp(l->lock, lock) && !strcmp(l->symbol, sym);
}

static int
report_caller_same(const void *arr, size_t i, const char *sym,
    const char *unused)
{
	return !strcmp(((const struct report_caller *)arr)[i].symbol, sym);
}

static int
report_never_same(const void *arr, size_t i, const char *a, const char *b)
{
	return 0;
}

/* Grows *ix to hold n + 1 entries at most half full, rehashing the n
   entries whose names names(i) gives. */
static void
report_ix_grow(size_t **ix, size_t *cap, size_t n, const void *arr,
    void (*names)(const void *, size_t, const char **, const char **))
{
	const char *a, *b;
	size_t i, ncap;

	if (*ix && 2 * (n + 1) <= *cap)
		return;
	ncap = *cap ? *cap : 16;
	while (2 * (n + 1) > ncap)
		ncap *= 2;
	free(*ix);
	*ix = xcalloc(ncap, sizeof(**ix));
	*cap = ncap;
	for (i = 0; i < n; i++) {
		names(arr, i, &a, &b);
		*report_ix_probe(*ix, ncap, report_hash(a, b),
		    report_never_same, arr, a, b) = i + 1;
	}
}

static void
report_lock_names(const void *arr, size_t i, const char **a, const char **b)
{
	*a = ((const struct report_lock *)arr)[i].lock;
	*b = ((const struct report_lock *)arr)[i].symbol;
}

static void
report_caller_names(const void *arr, size_t i, const char **a,
    const char **b)
{
	*a = ((const struct report_caller *)arr)[i].symbol;
	*b = NULL;
}

static struct report_lock *
report_lock_get(struct report_profile *p, const char *lock, const char *sym)
{
	struct report_lock *l;
	size_t *slot;

	report_ix_grow(&p->lock_ix, &p->lock_ixcap, p->nlocks, p->locks,
	    report_lock_names);
	slot = report_ix_probe(p->lock_ix, p->lock_ixcap,
	    report_hash(lock, sym), report_lock_same, p->locks, lock, sym);
	if (*slot)
		return &p->locks[*slot - 1];
	if ((p->nlocks & (p->nlocks - 1)) == 0)		/* 0, 1, 2, 4, ... */
		p->locks = xrealloc(p->locks, (p->nlocks ? 2 * p->nlocks : 1) *
		    sizeof(*p->locks));
	l = &p->locks[p->nlocks];
	memset(l, 0, sizeof(*l));
	l->lock = xstrdup(lock);
	l->symbol = xstrdup(sym);
	report_share_init(l->share);
	*slot = ++p->nlocks;
	return l;
}

static struct report_caller *
report_caller_get(struct report_lock *l, const char *sym)
{
	struct report_caller *c;
	size_t *slot;

	report_ix_grow(&l->caller_ix, &l->caller_ixcap, l->ncallers,
	    l->callers, report_caller_names);
	slot = report_ix_probe(l->caller_ix, l->caller_ixcap,
	    report_hash(sym, NULL), report_caller_same, l->callers, sym, NULL);
	if (*slot)
		return &l->callers[*slot - 1];
	if ((l->ncallers & (l->ncallers - 1)) == 0)
		l->callers = xrealloc(l->callers, (l->ncallers ?
		    2 * l->ncallers : 1) * sizeof(*l->callers));
	c = &l->callers[l->ncallers];
	c->symbol = xstrdup(sym);
	report_share_init(c->share);
	*slot = ++l->ncallers;
	return c;
}

static const char *
report_jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A stored number; null (not finite when stored) is NAN. */
static double
report_jdouble(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A share as uploaded: a number in [0, 1], else -1 (ignored). */
static double
report_jshare(json_t *o)
{
	json_t *v = json_object_get(o, "share");
	double d;

	if (!json_is_number(v))
		return -1;
	d = json_number_value(v);
	return isfinite(d) && d >= 0 && d <= 1 ? d : -1;
}

/* Adds one "type":"lock-profile" line of side to r's profile sums. */
static void
report_profile_add(struct report *r, int side, json_t *o)
{
	json_t *locks = json_object_get(o, "locks"), *l, *callers, *c;
	const char *params = report_jstr(o, "params"), *name, *sym;
	struct report_profile *p;
	struct report_lock *rl;
	size_t i, k;
	double sh;

	if (!json_is_array(locks))
		return;
	p = report_profile_get(r, params ? params : "");
	p->nprofiles[side]++;
	json_array_foreach(locks, i, l) {
		name = report_jstr(l, "lock");
		sym = report_jstr(l, "symbol");
		if (!name || !sym || (sh = report_jshare(l)) < 0 ||
		    strlen(name) > 256 || strlen(sym) > 256)
			continue;
		rl = report_lock_get(p, name, sym);
		rl->share[side] += sh;
		callers = json_object_get(l, "callers");
		json_array_foreach(callers, k, c) {
			sym = report_jstr(c, "symbol");
			if (!sym || strlen(sym) > 256 ||
			    (sh = report_jshare(c)) < 0)
				continue;
			report_caller_get(rl, sym)->share[side] += sh;
		}
	}
}

static double
report_lock_max(const double s[2])
{
	double a = isfinite(s[0]) ? s[0] : 0, b = isfinite(s[1]) ? s[1] : 0;

	return a > b ? a : b;
}

static int
report_cmp_lock(const void *a, const void *b)
{
	double x = report_lock_max(((const struct report_lock *)a)->share);
	double y = report_lock_max(((const struct report_lock *)b)->share);

	return (x < y) - (x > y);
}

static int
report_cmp_caller(const void *a, const void *b)
{
	double x = report_lock_max(((const struct report_caller *)a)->share);
	double y = report_lock_max(((const struct report_caller *)b)->share);

	return (x < y) - (x > y);
}

/* Sums to means over each side's profiles; NAN where a side has none. */
static void
report_profiles_finish(struct report *r)
{
	size_t i, k, c;
	int s;

	for (i = 0; i < r->nprofiles; i++) {
		struct report_profile *p = &r->profiles[i];

		for (k = 0; k < p->nlocks; k++) {
			struct report_lock *l = &p->locks[k];

			for (s = 0; s < 2; s++) {
				l->share[s] = p->nprofiles[s] ? l->share[s] /
				    p->nprofiles[s] : NAN;
				for (c = 0; c < l->ncallers; c++)
					l->callers[c].share[s] =
					    p->nprofiles[s] ?
					    l->callers[c].share[s] /
					    p->nprofiles[s] : NAN;
			}
			if (l->ncallers)
				qsort(l->callers, l->ncallers,
				    sizeof(*l->callers), report_cmp_caller);
			free(l->caller_ix);
			l->caller_ix = NULL;
			l->caller_ixcap = 0;
		}
		if (p->nlocks)
			qsort(p->locks, p->nlocks, sizeof(*p->locks),
			    report_cmp_lock);
		free(p->lock_ix);
		p->lock_ix = NULL;
		p->lock_ixcap = 0;
	}
}

int
report_set_profiles(struct report *r, const json_t *base,
    const json_t *patched)
{
	const json_t *sides[2] = { base, patched };
	json_t *o;
	size_t i;
	int s;

	report_profiles_free(r->profiles, r->nprofiles);
	r->profiles = NULL;
	r->nprofiles = 0;
	for (s = 0; s < 2; s++)
		json_array_foreach(sides[s], i, o)
			if (json_is_object(o))
				report_profile_add(r, s, o);
	report_profiles_finish(r);
	return 0;
}

/* ---- lock contention: its rows out of the main table, per lock -------- */

static const char *const report_wait_metrics[REPORT_WAIT_METRICS] = {
	"wait_share", "wait_total", "wait_count", "wait_max",
};

/* Where "lock=" starts in params (first pair or after a comma), or NULL. */
static const char *
report_lock_param(const char *params)
{
	const char *p = params;

	while (p && *p) {
		if (!strncmp(p, "lock=", 5))
			return p;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return NULL;
}

int
report_row_is_contention(const struct stats_row *row)
{
	return row->workload && !strcmp(row->workload, "lock-profile") &&
	    row->params && report_lock_param(row->params) != NULL;
}

/* The larger of a row's two means, for ordering (0 when absent). */
static double
report_row_size(const struct stats_row *row)
{
	double a = row && row->base.present && isfinite(row->base.mean) ?
	    row->base.mean : 0;
	double b = row && row->test.present && isfinite(row->test.mean) ?
	    row->test.mean : 0;

	return a > b ? a : b;
}

static int
report_cmp_lockrow(const void *a, const void *b)
{
	const struct report_lockrow *x = a, *y = b;
	double sx, sy;
	int c;

	if ((c = strcmp(x->run, y->run)))
		return c;
	if ((c = !strcmp(y->lock, "(all)") - !strcmp(x->lock, "(all)")))
		return c;
	sx = report_row_size(x->m[REPORT_WAIT_SHARE]);
	sy = report_row_size(y->m[REPORT_WAIT_SHARE]);
	if (sx != sy)
		return sx < sy ? 1 : -1;
	return strcmp(x->lock, y->lock);
}

/* Groups r->contention's rows by (run, lock). */
static void
report_group_locks(struct report *r)
{
	size_t i, k;
	int m;

	for (i = 0; i < r->contention.n; i++) {
		const struct stats_row *row = &r->contention.rows[i];
		const char *lp = report_lock_param(row->params);
		size_t vlen = strcspn(lp + 5, ",");
		char *lock = xstrndup(lp + 5, vlen);
		struct buf run = BUF_INIT(0);

		/* the params without lock=VALUE */
		buf_add(&run, row->params, lp - row->params);
		if (lp[5 + vlen] == ',')
			buf_addstr(&run, lp + 5 + vlen + 1);
		else if (run.len && run.data[run.len - 1] == ',')
			run.data[--run.len] = '\0';
		if (!run.data)
			buf_addstr(&run, "");
		for (k = 0; k < r->nlocks; k++)
			if (!strcmp(r->locks[k].run, run.data) &&
			    !strcmp(r->locks[k].lock, lock))
				break;
		if (k == r->nlocks) {
			r->locks = xrealloc(r->locks, (r->nlocks + 1) *
			    sizeof(*r->locks));
			memset(&r->locks[k], 0, sizeof(*r->locks));
			r->locks[k].run = buf_detach(&run, NULL);
			r->locks[k].lock = lock;
			r->nlocks++;
		} else {
			free(lock);
		}
		buf_release(&run);
		for (m = 0; m < REPORT_WAIT_METRICS; m++)
			if (!strcmp(row->metric, report_wait_metrics[m]))
				r->locks[k].m[m] = row;
	}
	if (r->nlocks > 1)
		qsort(r->locks, r->nlocks, sizeof(*r->locks),
		    report_cmp_lockrow);
}

/* Moves the contention rows of r->result into r->contention. */
static void
report_split_contention(struct report *r)
{
	struct stats_result *res = &r->result, *c = &r->contention;
	size_t i, n = 0;

	memset(c, 0, sizeof(*c));
	c->opts = res->opts;
	for (i = 0; i < res->n; i++)
		c->n += report_row_is_contention(&res->rows[i]);
	if (c->n == 0)
		return;
	c->rows = xcalloc(c->n, sizeof(*c->rows));
	c->n = 0;
	memset(res->count, 0, sizeof(res->count));
	memset(res->primary, 0, sizeof(res->primary));
	for (i = 0; i < res->n; i++) {
		struct stats_row *row = &res->rows[i];

		if (report_row_is_contention(row)) {
			c->rows[c->n++] = *row;
			c->count[row->verdict]++;
			c->primary[row->verdict] += row->primary;
		} else {
			res->rows[n++] = *row;
			res->count[row->verdict]++;
			res->primary[row->verdict] += row->primary;
		}
	}
	res->n = n;
	report_group_locks(r);
}

/* r->result and r->contention as one result (rows shallow-copied: free
   only all->rows). */
static void
report_merge_contention(const struct report *r, struct stats_result *all)
{
	size_t i;
	int v;

	*all = r->result;
	all->rows = xcalloc(r->result.n + r->contention.n + 1,
	    sizeof(*all->rows));
	for (i = 0; i < r->result.n; i++)
		all->rows[i] = r->result.rows[i];
	for (i = 0; i < r->contention.n; i++)
		all->rows[r->result.n + i] = r->contention.rows[i];
	all->n = r->result.n + r->contention.n;
	for (v = 0; v <= STATS_INVALID; v++) {
		all->count[v] += r->contention.count[v];
		all->primary[v] += r->contention.primary[v];
	}
}

int
report_compute(struct report *r, const char *bdata, size_t blen,
    const char *tdata, size_t tlen, const struct stats_opts *opts,
    struct buf *err)
{
	struct stats_set base, test;
	char e[512];
	int rc = -1;

	stats_set_init(&base);
	stats_set_init(&test);
	if (r->have_result) {
		stats_result_release(&r->result);
		r->have_result = 0;
	}
	report_contention_free(r);
	if (blen > REPORT_MAX_JSONL || tlen > REPORT_MAX_JSONL) {
		buf_addstr(err, "samples of one side exceed 64 MiB");
		goto out;
	}
	if (blen && stats_load_jsonl(&base, bdata, blen, e, sizeof(e)) < 0) {
		buf_addf(err, "base samples: %s", e);
		goto out;
	}
	if (tlen && stats_load_jsonl(&test, tdata, tlen, e, sizeof(e)) < 0) {
		buf_addf(err, "patched samples: %s", e);
		goto out;
	}
	stats_compare(&base, &test, opts, &r->result);
	r->have_result = 1;
	report_split_contention(r);
	rc = 0;
out:
	stats_set_release(&base);
	stats_set_release(&test);
	return rc;
}

/* ---- verdicts ----------------------------------------------------------- */

/* How a side's boots failed, in two words, when every boot failed. */
static const char *
report_side_all_failed(const struct report *r, int side)
{
	size_t i, n = 0, panic = 0, hang = 0;

	if (r->side[side].failed == 0 || r->side[side].done > 0 ||
	    r->side[side].failed < r->side[side].planned)
		return NULL;
	for (i = 0; i < r->njobs; i++) {
		const struct report_job *j = &r->jobs[i];

		if (j->side != side)
			continue;
		n++;
		if (j->reason && strcasestr(j->reason, "panic"))
			panic++;
		else if (j->reason && (strcasestr(j->reason, "hang") ||
		    strcasestr(j->reason, "timed out") ||
		    strcasestr(j->reason, "timeout")))
			hang++;
	}
	if (n && panic == n)
		return "panicked";
	if (n && hang == n)
		return "hung";
	return "failed";
}

/* 1 while the comparison can still change. */
int
report_is_live(const struct report *r)
{
	if (r->series_state && r->series_final)
		return 0;
	if (r->state && (!strcmp(r->state, "done") ||
	    !strncmp(r->state, "failed", 6)))
		return 0;
	return 1;
}

const char *
report_verdict(const struct report *r, char *buf, size_t sz)
{
	const char *how;
	int s;

	/* cancelled (api_manage.c): nothing more will run, say by whom */
	if (r->series_state && !strcmp(r->series_state, "cancelled")) {
		snprintf(buf, sz, "%s", r->series_error ? r->series_error :
		    "cancelled");
		return buf;
	}
	for (s = REPORT_PATCHED; s >= REPORT_BASE; s--)
		if ((how = report_side_all_failed(r, s)))
			return stats_failed_verdict(buf, sz,
			    report_side_name(s), how);
	if (r->error && r->state && !strncmp(r->state, "failed", 6)) {
		snprintf(buf, sz, "failed: %s", r->error);
		return buf;
	}
	if (r->series_error && !r->have_result) {
		snprintf(buf, sz, "failed: %s", r->series_error);
		return buf;
	}
	if (r->series_rest) {
		snprintf(buf, sz, "waiting: %s", r->series_rest);
		return buf;
	}
	/* interim rows are shown, but a verdict waits for the last look */
	if (report_is_live(r)) {
		snprintf(buf, sz, "running");
		return buf;
	}
	if (r->computing && !r->have_result) {
		snprintf(buf, sz, "computing (another request asked first; "
		    "reload in a moment)");
		return buf;
	}
	if (!r->have_result || r->result.n == 0) {
		if (r->series_error) {
			snprintf(buf, sz, "failed: %s", r->series_error);
			return buf;
		}
		snprintf(buf, sz, "%s", report_is_live(r) ? "running" :
		    "no results");
		return buf;
	}
	/* nothing the series changed ran: no row may say "no change" (nor
	   call a difference the series' doing; report_exercise.c) */
	if (r->ex.state == REPORT_EX_NOT_EXERCISED) {
		snprintf(buf, sz, "not exercised");
		return buf;
	}
	/* a claim about the whole comparison: the primary rows, held
	   together by Holm (core/stats.c, DESIGN) */
	return stats_headline(&r->result, buf, sz);
}

/* The class name of a verdict word, for CSS ("regression", "failed"). */
static const char *
report_verdict_class(const char *v)
{
	static const char *const k[] = { "regression", "improvement",
	    "no change", "inconclusive", "failed", "mixed", "running",
	    "waiting", "not exercised" };
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (!strncmp(v, k[i], strlen(k[i])))
			return i == 2 ? "nochange" : i == 8 ? "notexercised" :
			    k[i];
	return "other";
}

/* ---- number formatting shared by the renderers -------------------------- */

static void
report_fmt_side(char *out, size_t sz, const struct stats_side *d)
{
	if (!d->present || !isfinite(d->mean))
		snprintf(out, sz, "-");
	else if (d->nboots > 1 && isfinite(d->pct_stddev))
		snprintf(out, sz, "%.6g ±%.0f%%", d->mean, d->pct_stddev);
	else
		snprintf(out, sz, "%.6g", d->mean);
}

static void
report_fmt_change(char *out, size_t sz, const struct stats_row *row)
{
	if (!isfinite(row->pct_change))
		snprintf(out, sz, "-");
	else if (!isfinite(row->ci_lo) || !isfinite(row->ci_hi))
		snprintf(out, sz, "%+.1f%%", row->pct_change);
	else
		snprintf(out, sz, "%+.1f%% [%+.1f%%, %+.1f%%]",
		    row->pct_change, row->ci_lo, row->ci_hi);
}

/* Why a row has no numbers: which side lacks the metric. */
static const char *
report_row_missing(const struct stats_row *row)
{
	if (!row->base.present && !row->test.present)
		return "missing on both sides";
	if (!row->base.present)
		return "missing on the base side";
	if (!row->test.present)
		return "missing on the patched side";
	return NULL;
}

/* "fault-free.pages_per_sec" plus " (mode=shmem,tasks=2)". */
static void
report_row_name(struct buf *b, const struct stats_row *row)
{
	buf_addf(b, "%s.%s", row->workload, row->metric);
	if (row->params && *row->params)
		buf_addf(b, " (%s)", row->params);
}

static void report_fmt_share(char *, size_t, double);

/* ---- text --------------------------------------------------------------- */

/*
 * Appends s with control bytes replaced by '?': the report is shown in
 * terminals (`kperfci submit --wait`), where an escape sequence from a
 * subject or a name could rewrite the screen.  Newlines stay (a name with
 * one only breaks a line).
 */
static void
report_clean(struct buf *b, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = *s;

		buf_addch(b, (c < 0x20 && c != '\t' && c != '\n') ||
		    c == 0x7f ? '?' : c);
	}
}

static void PRINTF(2, 3)
report_cleanf(struct buf *b, const char *fmt, ...)
{
	struct buf t = BUF_INIT(0);
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&t, fmt, ap);
	va_end(ap);
	report_clean(b, t.data);
	buf_release(&t);
}

/* Pads to width display columns ("±" is two bytes, one column). */
static void
report_pad(struct buf *b, const char *s, int width, int right)
{
	int cols = 0, i;
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if ((*p & 0xc0) != 0x80)
			cols++;
	if (right)
		for (i = cols; i < width; i++)
			buf_addch(b, ' ');
	report_clean(b, s);
	if (!right)
		for (i = cols; i < width; i++)
			buf_addch(b, ' ');
}

const char *
report_row_verdict(const struct report *r, const struct stats_row *row)
{
	if (r && r->ex.state == REPORT_EX_NOT_EXERCISED &&
	    !report_row_missing(row) && row->verdict != STATS_INVALID)
		return "not exercised";
	return stats_verdict_name(row->verdict);
}

/*
 * What an inconclusive primary row would take (stats_result_boots_needed):
 * "needs ~N boots a side (per-boot spread X %, the class's)"; NULL for
 * every other row.
 */
static const char *
report_boots_needed(const struct stats_row *row, char *buf, size_t sz)
{
	if (row->verdict != STATS_INCONCLUSIVE || row->boots_needed <= 0)
		return NULL;
	if (isfinite(row->boots_needed_cv))
		snprintf(buf, sz, "needs ~%d boots a side (per-boot spread "
		    "%.1f %%, %s)", row->boots_needed, row->boots_needed_cv,
		    row->boots_needed_class ? "the class's" :
		    "this comparison's");
	else
		snprintf(buf, sz, "needs ~%d boots a side", row->boots_needed);
	return buf;
}

void
report_table_text(const struct stats_result *res, struct buf *b)
{
	report_table_text_ex(res, NULL, b);
}

void
report_table_text_ex(const struct stats_result *res, const struct report *r,
    struct buf *b)
{
	const char *wl = NULL;
	char s1[64], s2[64], chg[96], note[512], need[128];
	size_t i;

	buf_addstr(b, "              base                                 "
	    "              patched\n");
	buf_addstr(b, "  ----------------  -----------------------------  "
	    "----------------\n");
	buf_addstr(b, "    mean ±%stddev     %change [95% CI]               "
	    "mean ±%stddev  metric\n");
	for (i = 0; i < res->n; i++) {
		const struct stats_row *row = &res->rows[i];
		const char *miss = report_row_missing(row);

		if (!wl || strcmp(wl, row->workload)) {
			buf_addch(b, '\n');
			report_cleanf(b, "%s:\n", row->workload);
			wl = row->workload;
		}
		report_fmt_side(s1, sizeof(s1), &row->base);
		report_fmt_side(s2, sizeof(s2), &row->test);
		report_fmt_change(chg, sizeof(chg), row);
		report_pad(b, s1, 18, 1);
		buf_addstr(b, "  ");
		report_pad(b, chg, 29, 0);
		buf_addstr(b, row->significant ? "*" : " ");
		report_pad(b, s2, 16, 1);
		buf_addstr(b, "  ");
		report_clean(b, row->metric);
		if (row->params && *row->params) {
			buf_addch(b, ' ');
			report_clean(b, row->params);
		}
		if (row->unit && *row->unit)
			report_cleanf(b, " (%s)", row->unit);
		if (!row->primary)
			buf_addstr(b, " [secondary]");
		if (miss)
			report_cleanf(b, "  %s", miss);
		else if (r && r->ex.state == REPORT_EX_NOT_EXERCISED)
			report_cleanf(b, "  not exercised%s",
			    row->significant ? " (suspicious: significant "
			    "although nothing changed ran)" : "");
		else if (row->verdict == STATS_NO_CHANGE)
			buf_addstr(b, "  no change");
		else
			report_cleanf(b, "  %s: %s",
			    stats_verdict_name(row->verdict), row->reason);
		if (!miss && report_boots_needed(row, need, sizeof(need)))
			report_cleanf(b, "; %s", need);
		buf_addstr(b, r && r->ex.emulated ? "  [emulated]\n" : "\n");
	}
	if (res->n == 0)
		buf_addstr(b, "\n(no metrics)\n");
	buf_addf(b, "\n* %s\n", stats_rule_text(res, note, sizeof(note)));
}

/* A lock absent on one side was not contended there (the pass emits
   only locks with waits). */
static const char *
report_lock_missing(const struct stats_row *row)
{
	if (!row->base.present && row->test.present)
		return "no waits on the base side";
	if (row->base.present && !row->test.present)
		return "no waits on the patched side";
	return report_row_missing(row);
}

static const char *const report_wait_labels[REPORT_WAIT_METRICS] = {
	"wait share", "wait total", "waits", "wait max",
};

const char *
report_lock_blind(const struct report *r)
{
	if (r->cpus > 0 && r->cpus <= 2)
		return "No lock can show in this table: the machine has at "
		    "most 2 CPUs, so a lock has at most 2 contenders, and "
		    "lock:contention_begin fires only from a lock's third "
		    "(qspinlock's first waiter spins on the pending bit, "
		    "untraced). A lock missing here was not measured; it is "
		    "not evidence that nothing waited.";
	if (r->cpus_per_node > 0 && r->cpus_per_node <= 2)
		return "A per-node lock cannot show in this table: the machine "
		    "has at most 2 CPUs per NUMA node, so a per-node lock (the "
		    "lruvec's lru_lock, a list_lru node's lock) has at most 2 "
		    "contenders, and lock:contention_begin fires only from a "
		    "lock's third (qspinlock's first waiter spins on the "
		    "pending bit, untraced). Such a lock missing here was not "
		    "measured; it is not evidence that nothing waited: use a "
		    "machine with 3 or more CPUs per node (a qemu agent's "
		    "[qemu] cores-per-socket).";
	return NULL;
}

/* Did the matrix ask for a contention pass (a lock-profile run)? */
static int
report_has_lock_pass(const struct report *r)
{
	return r->nlocks || (r->matrix && strstr(r->matrix, "lock-profile"));
}

/* A significant change of a lock's wait share (not "(all)"). */
static const struct stats_row *
report_lock_changed(const struct report_lockrow *l)
{
	const struct stats_row *row = l->m[REPORT_WAIT_SHARE];

	if (!row || !row->significant || !strcmp(l->lock, "(all)") ||
	    (row->verdict != STATS_REGRESSION &&
	    row->verdict != STATS_IMPROVEMENT))
		return NULL;
	return row;
}

/* A lock that waited in every patched boot of its run (as many as the
   run's "(all)" row has, two at least) and in no base boot: there is no
   %change to give.  Its wait share row, or NULL. */
static const struct stats_row *
report_lock_new(const struct report *r, const struct report_lockrow *l)
{
	const struct stats_row *row = l->m[REPORT_WAIT_SHARE], *all = NULL;
	size_t i;

	if (!row || strcmp(l->lock, "(all)") == 0 || row->base.present ||
	    !row->test.present || row->test.nboots < 2)
		return NULL;
	for (i = 0; i < r->nlocks && !all; i++)
		if (!strcmp(r->locks[i].run, l->run) &&
		    !strcmp(r->locks[i].lock, "(all)"))
			all = r->locks[i].m[REPORT_WAIT_SHARE];
	if (all && row->test.nboots < all->test.nboots)
		return NULL;
	return row;
}

/* "+1234.5% regression of lru_lock's wait share (RUN)", or for a lock
   new on the patched side "split_queue_lock waits on the patched side
   only: 8.41% wait share in 3 boots, no waits in any base boot (RUN)" */
static void
report_lock_change_line(struct buf *b, const struct report_lockrow *l,
    const struct stats_row *row)
{
	if (!row->base.present) {
		report_cleanf(b, "%s waits on the patched side only: %.3g%% "
		    "wait share in each of %zu boots, no waits in any base "
		    "boot (%s)", l->lock, row->test.mean, row->test.nboots,
		    l->run);
		return;
	}
	report_cleanf(b, "%+.1f%% %s of %s's wait share, significant (%s)",
	    isfinite(row->pct_change) ? row->pct_change : 0,
	    stats_verdict_name(row->verdict), l->lock, l->run);
}

/* The words above the lock tables: what cannot show, what is emulated,
   and the significant contended-lock changes. */
static void
report_contention_head_text(const struct report *r, struct buf *b)
{
	const char *blind = report_lock_blind(r);
	size_t i, n = 0;

	if (!report_has_lock_pass(r))
		return;
	buf_addstr(b, "\nLock contention\n");
	if (blind)
		report_cleanf(b, "  %s\n", blind);
	if (r->ex.emulated)
		buf_addstr(b, "  Emulated: under TCG a waiter spins only while "
		    "the holder's vCPU is not running; these waits say where "
		    "contention is, not how long it lasts on hardware.\n");
	for (i = 0; i < r->nlocks; i++) {
		const struct stats_row *row = report_lock_changed(&r->locks[i]);

		if (!row && !(row = report_lock_new(r, &r->locks[i])))
			continue;
		if (!n++)
			buf_addstr(b, "  Contended-lock changes:\n");
		buf_addstr(b, "    ");
		report_lock_change_line(b, &r->locks[i], row);
		buf_addch(b, '\n');
	}
	if (!r->nlocks)
		buf_addstr(b, report_is_live(r) ? "  No lock waits reported "
		    "yet.\n" : "  No lock waited on either side.\n");
	else if (!n && !report_is_live(r))
		buf_addstr(b, "  No significant change in any lock's wait "
		    "share, and no lock new on the patched side.\n");
}

/*
 * The lock-contention table as text: per run, per lock, its four rows in
 * the columns of the results table.
 */
static void
report_contention_text(const struct report *r, struct buf *b)
{
	const char *run = NULL;
	char s1[64], s2[64], chg[96];
	size_t i;
	int m;

	report_contention_head_text(r, b);
	for (i = 0; i < r->nlocks; i++) {
		const struct report_lockrow *l = &r->locks[i];

		if (!run || strcmp(run, l->run)) {
			report_cleanf(b, "\nLock contention (%s)\n", l->run);
			buf_addstr(b, "  lock:contention_begin/end; wait share = "
			    "wait total / (tasks x wall)\n");
			buf_addstr(b, "    base mean ±%stddev  %change [95% CI]"
			    "              patched mean ±%stddev\n");
			run = l->run;
		}
		buf_addstr(b, "  ");
		report_clean(b, l->lock);
		buf_addch(b, '\n');
		for (m = 0; m < REPORT_WAIT_METRICS; m++) {
			const struct stats_row *row = l->m[m];
			const char *miss;

			if (!row)
				continue;
			miss = report_lock_missing(row);
			report_fmt_side(s1, sizeof(s1), &row->base);
			report_fmt_side(s2, sizeof(s2), &row->test);
			report_fmt_change(chg, sizeof(chg), row);
			report_pad(b, s1, 20, 1);
			buf_addstr(b, "  ");
			report_pad(b, chg, 29, 0);
			buf_addstr(b, row->significant ? "*" : " ");
			report_pad(b, s2, 18, 1);
			report_cleanf(b, "  %s (%s)  %s\n", report_wait_labels[m],
			    row->unit ? row->unit : "", miss ? miss :
			    stats_verdict_name(row->verdict));
		}
	}
}

/*
 * s as one shell word: in single quotes, each ' written '\'' — nothing
 * inside ($(...), `, ;, spaces) is run or split by the shell.
 */
static void
report_shell_quote(struct buf *b, const char *s)
{
	buf_addch(b, '\'');
	for (; *s; s++)
		if (*s == '\'')
			buf_addstr(b, "'\\''");
		else
			buf_addch(b, *s);
	buf_addch(b, '\'');
}

/* "kperfci [-s 'SERVER'] submit " */
static void
report_repro_kperfci(struct buf *t, const char *server)
{
	buf_addstr(t, "kperfci ");
	if (server) {
		buf_addstr(t, "-s ");
		report_shell_quote(t, server);
		buf_addch(t, ' ');
	}
	buf_addstr(t, "submit ");
}

/* The commands that reproduce the result; every submitted string is
   quoted for the shell (a URL may hold $(...) or ';'). */
static void
report_repro_lines(const struct report *r, const char *server,
    struct buf *b, int html)
{
	struct buf t = BUF_INIT(0), u = BUF_INIT(0);

	report_repro_kperfci(&t, server);
	if (r->source)
		report_shell_quote(&t, r->source);
	else
		buf_addstr(&t, "--mbox SERIES.mbox");
	buf_addstr(&t, " --wait\n");
	if (!r->matrix)
		;	/* no job definition yet: nothing to run by hand */
	else if (server) {
		buf_addf(&u, "%s/api/v1/series/%lld/comparison", server,
		    r->series_id);
		buf_addstr(&t, "# one boot's workloads by hand, in a guest "
		    "booted with either kernel:\ncurl -s ");
		report_shell_quote(&t, u.data);
		buf_addstr(&t, " | jq -r .matrix > matrix.conf\n");
	} else
		buf_addstr(&t, "# one boot's workloads by hand: save the job "
		    "definition as matrix.conf, then in a guest booted with "
		    "either kernel\n");
	if (r->matrix)
		buf_addstr(&t, "kperfci-load --matrix matrix.conf\n");
	if (html)
		html_txt(b, t.data);
	else
		report_clean(b, t.data);
	buf_release(&t);
	buf_release(&u);
}

static void
report_progress_text(const struct report *r, struct buf *b)
{
	int s;

	for (s = 0; s < 2; s++) {
		const struct report_side *d = &r->side[s];

		buf_addf(b, "  %-8s %d/%d boots done", report_side_name(s),
		    d->done, d->planned);
		if (d->failed)
			buf_addf(b, ", %d failed", d->failed);
		if (d->running)
			buf_addf(b, ", %d running", d->running);
		buf_addch(b, '\n');
	}
}

/* The significant rows (suspicious ones when nothing changed ran), or
   the line saying there are none. */
static void
report_text_significant(const struct report *r, struct buf *b)
{
	size_t nsig = 0;

	for (size_t i = 0; r->have_result && i < r->result.n; i++) {
		const struct stats_row *row = &r->result.rows[i];
		struct buf name = BUF_INIT(0);

		if (row->verdict != STATS_REGRESSION &&
		    row->verdict != STATS_IMPROVEMENT)
			continue;
		if (!nsig++)
			buf_addstr(b, r->ex.state == REPORT_EX_NOT_EXERCISED ?
			    "Suspicious (significant, but none of the changed "
			    "functions ran):\n" : "Significant changes:\n");
		report_row_name(&name, row);
		report_cleanf(b, "  %+.1f%% %s of %s%s\n",
		    isfinite(row->pct_change) ? row->pct_change : 0,
		    r->ex.state == REPORT_EX_NOT_EXERCISED ? "difference" :
		    stats_verdict_name(row->verdict), name.data,
		    r->ex.emulated ? " [emulated]" : "");
		buf_release(&name);
	}
	if (nsig)
		buf_addch(b, '\n');
	else if (r->have_result && r->result.n && !report_is_live(r) &&
	    r->ex.state == REPORT_EX_NOT_EXERCISED)
		buf_addstr(b, "Not exercised: none of the changed functions "
		    "ran, so the absence of a difference says nothing about "
		    "the series.\n\n");
	else if (r->have_result && r->result.n && !report_is_live(r))
		buf_addstr(b, "No significant change in any metric.\n\n");
}

/* What was tested: the series, its author, link, base and kernels. */
static void
report_text_tested(const struct report *r, struct buf *b)
{
	buf_addstr(b, "What was tested\n");
	report_cleanf(b, "  series:   %s%s", r->subject ? r->subject :
	    "(no subject)", "");
	if (r->version > 1)
		buf_addf(b, " (v%d)", r->version);
	buf_addch(b, '\n');
	if (r->author)
		report_cleanf(b, "  author:   %s\n", r->author);
	if (r->source)
		report_cleanf(b, "  link:     %s\n", r->source);
	if (r->base_commit) {
		report_cleanf(b, "  base:     %s", r->base_commit);
		if (r->tree)
			report_cleanf(b, " (tree %s)", r->tree);
		buf_addch(b, '\n');
		if (r->base_kind || r->base_reason)
			report_cleanf(b, "            chosen by %s%s%s\n",
			    r->base_kind ? r->base_kind : "",
			    r->base_kind && r->base_reason ? ": " : "",
			    r->base_reason ? r->base_reason : "");
	}
	for (int s = 0; s < 2; s++) {
		const struct report_kernel *kk = &r->kernel[s];

		if (!kk->commit && !kk->build_id)
			continue;
		report_cleanf(b, "  %-8s  %s", report_side_name(s),
		    kk->commit ? kk->commit : "(no commit yet)");
		if (kk->build_id)
			report_cleanf(b, ", build %lld (%s)", kk->build_id,
			    kk->build_state ? kk->build_state : "?");
		buf_addch(b, '\n');
	}
}

/* On what machine, the boots, and the console logs of a side whose
   every boot failed. */
static void
report_text_machine(const struct report *r, const char *server,
    struct buf *b)
{
	buf_addstr(b, "\nOn what machine\n");
	report_cleanf(b, "  class:    %s\n", r->hw_class ? r->hw_class :
	    "(not assigned yet)");
	if (r->topology)
		report_cleanf(b, "  topology: %s\n", r->topology);
	if (r->agent)
		report_cleanf(b, "  agent:    %s\n", r->agent);
	if (r->comparison_id) {
		buf_addstr(b, "\nBoots (base and patched interleaved)\n");
		report_progress_text(r, b);
	}
	for (int s = 0; s < 2; s++) {
		const char *how = report_side_all_failed(r, s);

		if (!how)
			continue;
		report_cleanf(b, "  every %s boot %s; console logs:\n",
		    report_side_name(s), how);
		for (size_t k = 0; k < r->njobs; k++)
			if (r->jobs[k].side == s && r->jobs[k].console)
				report_cleanf(b, "    %s%s\n", server ? server :
				    "", r->jobs[k].console);
	}
}

/* The lock profiles: each side's share of kernel samples per lock. */
static void
report_text_profiles(const struct report *r, struct buf *b)
{
	for (size_t i = 0; i < r->nprofiles; i++) {
		const struct report_profile *p = &r->profiles[i];

		report_cleanf(b, "\nLock profile (%s), share of kernel samples:"
		    "\n    base  patched  lock (where it spins)\n", p->params);
		for (size_t k = 0; k < p->nlocks && k < REPORT_TOP_LOCKS; k++) {
			const struct report_lock *l = &p->locks[k];
			char a[16], c[16];

			report_fmt_share(a, sizeof(a), l->share[0]);
			report_fmt_share(c, sizeof(c), l->share[1]);
			report_cleanf(b, "  %6s   %6s  %s (%s)\n", a, c,
			    l->lock, l->symbol);
		}
	}
}

/* The job definition, the commands to reproduce, and the link. */
static void
report_text_repro(const struct report *r, const char *server, struct buf *b)
{
	struct buf t = BUF_INIT(0);
	const char *q, *e;

	if (r->matrix) {
		buf_addstr(b, "\nJob definition (each boot runs this matrix)\n");
		for (const char *p = r->matrix; *p;) {
			size_t n = strcspn(p, "\n");
			char *line = xstrndup(p, n);

			report_cleanf(b, "  %s\n", line);
			free(line);
			p += n;
			if (*p)
				p++;
		}
	}
	buf_addstr(b, "\nTo reproduce\n");
	report_repro_lines(r, server, &t, 0);
	for (q = t.data; q && *q; q = *e ? e + 1 : e) {
		e = q + strcspn(q, "\n");
		buf_addstr(b, "  ");
		buf_add(b, q, e - q);
		buf_addch(b, '\n');
	}
	buf_release(&t);
	if (server)
		report_cleanf(b, "\nFull result: %s/series/%lld\n", server,
		    r->series_id);
}

void
report_text(const struct report *r, const char *server, struct buf *b)
{
	char v[256];

	report_verdict(r, v, sizeof(v));
	report_cleanf(b, "kperfci result for series %lld: %s\n\n",
	    r->series_id, v);
	report_claims_text(r, b);
	report_text_significant(r, b);
	report_text_tested(r, b);
	report_text_machine(r, server, b);
	if (r->comparison_id)
		report_exercise_text(r, b);
	if (r->have_result) {
		buf_addstr(b, "\nResults\n\n");
		report_table_text_ex(&r->result, r, b);
	}
	report_contention_text(r, b);
	report_text_profiles(r, b);
	report_text_repro(r, server, b);
}

/* ---- JSON --------------------------------------------------------------- */

static json_t *
report_jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
report_jstring(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* Scaling curves: rows of one workload and metric whose params differ only
   by their task count.  The count is ntasks= (what kperfci-load resolved
   tasks=node / all / 0.5 to on the agent) or else a numeric tasks=; the
   key is the params without either. */
static int
report_tasks_of(const char *params, char *rest, size_t sz, double *tasks)
{
	const char *p = params, *e;
	struct buf o = BUF_INIT(0);
	int found = 0, have_n = 0;
	double v;
	char *end;

	while (p && *p) {
		e = p + strcspn(p, ",");
		if (!strncmp(p, "ntasks=", 7) || !strncmp(p, "tasks=", 6)) {
			int is_n = p[0] == 'n';
			const char *num = p + (is_n ? 7 : 6);

			v = strtod(num, &end);
			if (end != num && end == e && isfinite(v) &&
			    (is_n || !have_n)) {
				*tasks = v;
				found = 1;
				have_n |= is_n;
			}
		} else {
			if (o.len)
				buf_addch(&o, ',');
			buf_add(&o, p, e - p);
		}
		p = *e ? e + 1 : e;
	}
	snprintf(rest, sz, "%s", o.data ? o.data : "");
	buf_release(&o);
	return found;
}

struct report_curve {
	const char *workload, *metric, *unit;
	char	 rest[256];
	double	*x, *y[2];
	size_t	 n;
};

/* Groups r's rows into scaling curves with at least two task counts. */
static size_t
report_curves(const struct report *r, struct report_curve **out)
{
	struct report_curve *c = NULL;
	size_t nc = 0, i, k;
	char rest[256];
	double tasks;

	for (i = 0; r->have_result && i < r->result.n; i++) {
		const struct stats_row *row = &r->result.rows[i];

		if (!report_tasks_of(row->params, rest, sizeof(rest), &tasks))
			continue;
		for (k = 0; k < nc; k++)
			if (!strcmp(c[k].workload, row->workload) &&
			    !strcmp(c[k].metric, row->metric) &&
			    !strcmp(c[k].rest, rest))
				break;
		if (k == nc) {
			c = xrealloc(c, (nc + 1) * sizeof(*c));
			memset(&c[nc], 0, sizeof(*c));
			c[nc].workload = row->workload;
			c[nc].metric = row->metric;
			c[nc].unit = row->unit;
			snprintf(c[nc].rest, sizeof(c[nc].rest), "%s", rest);
			nc++;
		}
		c[k].x = xrealloc(c[k].x, (c[k].n + 1) * sizeof(double));
		c[k].y[0] = xrealloc(c[k].y[0], (c[k].n + 1) * sizeof(double));
		c[k].y[1] = xrealloc(c[k].y[1], (c[k].n + 1) * sizeof(double));
		c[k].x[c[k].n] = tasks;
		c[k].y[0][c[k].n] = row->base.present ? row->base.mean : NAN;
		c[k].y[1][c[k].n] = row->test.present ? row->test.mean : NAN;
		c[k].n++;
	}
	/* a curve needs two points */
	for (i = k = 0; i < nc; i++) {
		if (c[i].n >= 2) {
			c[k++] = c[i];
		} else {
			free(c[i].x);
			free(c[i].y[0]);
			free(c[i].y[1]);
		}
	}
	*out = c;
	return k;
}

static void
report_curves_free(struct report_curve *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(c[i].x);
		free(c[i].y[0]);
		free(c[i].y[1]);
	}
	free(c);
}

static json_t *
report_side_boots(const struct stats_side *d)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; d->present && i < d->nboots; i++)
		json_array_append_new(a, json_pack("{s:I,s:o}", "boot",
		    (json_int_t)d->boot_ids[i], "mean",
		    report_jnum(d->boot_means[i])));
	return a;
}

static json_t *
report_json_charts(const struct report *r)
{
	json_t *charts = json_array(), *pts, *o;
	struct report_curve *c;
	size_t i, k, nc;

	for (i = 0; r->have_result && i < r->result.n; i++) {
		const struct stats_row *row = &r->result.rows[i];

		json_array_append_new(charts, json_pack("{s:s,s:s,s:s,s:s,s:s,"
		    "s:o,s:o,s:o,s:o}", "kind", "boots",
		    "workload", row->workload, "params", row->params,
		    "metric", row->metric, "unit", row->unit,
		    "base", report_side_boots(&row->base),
		    "patched", report_side_boots(&row->test),
		    "base_mean", report_jnum(row->base.present ?
		    row->base.mean : NAN),
		    "patched_mean", report_jnum(row->test.present ?
		    row->test.mean : NAN)));
	}
	nc = report_curves(r, &c);
	for (i = 0; i < nc; i++) {
		pts = json_array();
		for (k = 0; k < c[i].n; k++)
			json_array_append_new(pts, json_pack("{s:o,s:o,s:o}",
			    "tasks", report_jnum(c[i].x[k]),
			    "base", report_jnum(c[i].y[0][k]),
			    "patched", report_jnum(c[i].y[1][k])));
		o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "kind", "scaling",
		    "workload", c[i].workload, "params", c[i].rest,
		    "metric", c[i].metric, "unit", c[i].unit, "points", pts);
		json_array_append_new(charts, o);
	}
	report_curves_free(c, nc);
	return charts;
}

/* The lock-profile diff, at most top locks of top callers each. */
static json_t *
report_profiles_json(const struct report *r, size_t top, size_t topc)
{
	json_t *a = json_array(), *locks, *callers;
	size_t i, k, c;

	for (i = 0; i < r->nprofiles; i++) {
		const struct report_profile *p = &r->profiles[i];

		locks = json_array();
		for (k = 0; k < p->nlocks && k < top; k++) {
			const struct report_lock *l = &p->locks[k];

			callers = json_array();
			for (c = 0; c < l->ncallers && c < topc; c++)
				json_array_append_new(callers, json_pack(
				    "{s:s,s:o,s:o}", "symbol",
				    l->callers[c].symbol, "base",
				    report_jnum(l->callers[c].share[0]),
				    "patched",
				    report_jnum(l->callers[c].share[1])));
			json_array_append_new(locks, json_pack("{s:s,s:s,s:o,"
			    "s:o,s:o}", "lock", l->lock, "symbol", l->symbol,
			    "base", report_jnum(l->share[0]),
			    "patched", report_jnum(l->share[1]),
			    "callers", callers));
		}
		json_array_append_new(a, json_pack("{s:s,s:i,s:i,s:o}",
		    "params", p->params, "base_profiles", p->nprofiles[0],
		    "patched_profiles", p->nprofiles[1], "locks", locks));
	}
	return a;
}

static json_t *
report_json_profiles(const struct report *r)
{
	return report_profiles_json(r, REPORT_TOP_LOCKS, REPORT_TOP_CALLERS);
}

/* One row of the lock table: the figures of stats_result_to_json's rows. */
static json_t *
report_json_wait_row(const struct stats_row *row)
{
	json_t *side[2];
	int s;

	if (!row)
		return json_null();
	for (s = 0; s < 2; s++) {
		const struct stats_side *d = s ? &row->test : &row->base;

		side[s] = d->present ? json_pack("{s:I,s:o,s:o}", "boots",
		    (json_int_t)d->nboots, "mean", report_jnum(d->mean),
		    "pct_stddev", report_jnum(d->pct_stddev)) : json_null();
	}
	return json_pack("{s:s,s:s,s:o,s:[o,o],s:o,s:b,s:s,s:o,s:o}",
	    "unit", row->unit ? row->unit : "", "verdict",
	    stats_verdict_name(row->verdict), "pct_change",
	    report_jnum(row->pct_change), "ci95", report_jnum(row->ci_lo),
	    report_jnum(row->ci_hi), "p_value", report_jnum(row->p_value),
	    "significant", row->significant, "reason", row->reason,
	    "base", side[0], "patched", side[1]);
}

static json_t *
report_json_contention(const struct report *r)
{
	json_t *a = json_array(), *o;
	size_t i;
	int m;

	for (i = 0; i < r->nlocks; i++) {
		o = json_pack("{s:s,s:s}", "run", r->locks[i].run, "lock",
		    r->locks[i].lock);
		for (m = 0; m < REPORT_WAIT_METRICS; m++)
			json_object_set_new(o, report_wait_metrics[m],
			    report_json_wait_row(r->locks[i].m[m]));
		json_array_append_new(a, o);
	}
	return a;
}

/* Rows as the page shows them: "not exercised" instead of the
   statistics' verdict (kept as stats_verdict), and the emulated mark. */
static void
report_json_rows_exercise(const struct report *r, json_t *rows)
{
	size_t i;

	for (i = 0; i < json_array_size(rows) && i < r->result.n; i++) {
		json_t *o = json_array_get(rows, i);
		const char *v = report_row_verdict(r, &r->result.rows[i]);

		json_object_set_new(o, "stats_verdict", json_string(
		    stats_verdict_name(r->result.rows[i].verdict)));
		if (!strcmp(v, "not exercised"))
			json_object_set_new(o, "verdict", json_string(v));
		json_object_set_new(o, "emulated", json_boolean(
		    r->ex.emulated));
	}
}

json_t *
report_json(const struct report *r)
{
	json_t *o = json_object(), *prog = json_object(), *jobs = json_array();
	json_t *failed = json_array(), *kernels = json_object(), *res;
	char v[256];
	size_t i;
	int s;

	report_verdict(r, v, sizeof(v));
	json_object_set_new(o, "series", json_integer(r->series_id));
	json_object_set_new(o, "comparison", r->comparison_id ?
	    json_integer(r->comparison_id) : json_null());
	json_object_set_new(o, "state", report_jstring(r->state ? r->state :
	    r->series_state));
	json_object_set_new(o, "series_state", report_jstring(
	    r->series_state));
	json_object_set_new(o, "live", json_boolean(report_is_live(r)));
	json_object_set_new(o, "rest", report_jstring(r->series_rest));
	json_object_set_new(o, "verdict", json_string(v));
	json_object_set_new(o, "error", report_jstring(r->error ? r->error :
	    r->series_error));
	json_object_set_new(o, "subject", report_jstring(r->subject));
	json_object_set_new(o, "version", r->version ?
	    json_integer(r->version) : json_null());
	json_object_set_new(o, "author", report_jstring(r->author));
	json_object_set_new(o, "source", report_jstring(r->source));
	json_object_set_new(o, "claims", report_claims_json(r));
	json_object_set_new(o, "base", json_pack("{s:o,s:o,s:o,s:o}",
	    "tree", report_jstring(r->tree),
	    "commit", report_jstring(r->base_commit),
	    "kind", report_jstring(r->base_kind),
	    "reason", report_jstring(r->base_reason)));
	for (s = 0; s < 2; s++) {
		const struct report_kernel *k = &r->kernel[s];

		json_object_set_new(kernels, report_side_name(s), json_pack(
		    "{s:o,s:o,s:o,s:o,s:o}", "commit",
		    report_jstring(k->commit), "build", k->build_id ?
		    json_integer(k->build_id) : json_null(), "build_state",
		    report_jstring(k->build_state), "build_progress",
		    k->build_progress >= 0 ? json_integer(k->build_progress) :
		    json_null(), "build_error", report_jstring(k->build_error)));
		json_object_set_new(prog, report_side_name(s), json_pack(
		    "{s:i,s:i,s:i,s:i}", "planned", r->side[s].planned,
		    "done", r->side[s].done, "failed", r->side[s].failed,
		    "running", r->side[s].running));
	}
	json_object_set_new(prog, "agent", report_jstring(r->agent));
	json_object_set_new(prog, "looks", json_integer(r->looks));
	json_object_set_new(o, "kernels", kernels);
	json_object_set_new(o, "progress", prog);
	json_object_set_new(o, "machine", json_pack("{s:o,s:o}", "class",
	    report_jstring(r->hw_class), "topology",
	    report_jstring(r->topology)));
	json_object_set_new(o, "matrix", report_jstring(r->matrix));
	for (i = 0; i < r->njobs; i++) {
		const struct report_job *j = &r->jobs[i];
		json_t *jo = json_pack("{s:I,s:s,s:i,s:o,s:o,s:o,s:o}",
		    "id", (json_int_t)j->id, "side", report_side_name(j->side),
		    "boot", j->boot, "state", report_jstring(j->state),
		    "reason", report_jstring(j->reason),
		    "agent", report_jstring(j->agent),
		    "console", report_jstring(j->console));

		if (j->state && (!strcmp(j->state, "boot-failed") ||
		    !strcmp(j->state, "failed")))
			json_array_append_new(failed, json_incref(jo));
		json_array_append_new(jobs, jo);
	}
	json_object_set_new(o, "jobs", jobs);
	json_object_set_new(o, "failed_boots", failed);
	if (r->computing)
		json_object_set_new(o, "computing", json_true());
	if (r->stale)
		json_object_set_new(o, "stale", json_true());
	if (r->have_result) {
		res = stats_result_to_json(&r->result);
		json_object_set_new(o, "options", json_incref(
		    json_object_get(res, "options")));
		json_object_set_new(o, "counts", json_incref(
		    json_object_get(res, "counts")));
		json_object_set_new(o, "rows", json_incref(
		    json_object_get(res, "rows")));
		report_json_rows_exercise(r, json_object_get(o, "rows"));
		json_decref(res);
	} else {
		json_object_set_new(o, "rows", json_array());
	}
	report_exercise_json(r, o);
	json_object_set_new(o, "charts", report_json_charts(r));
	json_object_set_new(o, "lock_contention", report_json_contention(r));
	json_object_set_new(o, "lock_visibility", json_pack("{s:i,s:i,s:b,"
	    "s:o}", "cpus", r->cpus, "cpus_per_node", r->cpus_per_node,
	    "locks_can_show", report_lock_blind(r) == NULL, "note",
	    report_jstring(report_lock_blind(r))));
	json_object_set_new(o, "lock_profiles", report_json_profiles(r));
	return o;
}

/* ---- HTML --------------------------------------------------------------- */

static void
report_html_progress(const struct report *r, struct buf *b)
{
	int s, pct;

	buf_addstr(b, "<div class=\"progress\">\n");
	for (s = 0; s < 2; s++) {
		const struct report_kernel *k = &r->kernel[s];
		const struct report_side *d = &r->side[s];

		buf_addf(b, "<div class=\"side side-%s\"><span class=\"label\">"
		    "%s</span> ", report_side_name(s), report_side_name(s));
		if (k->build_id && k->build_state && strcmp(k->build_state,
		    "done")) {
			buf_addf(b, "<a href=\"/builds/%lld\">build</a> ",
			    k->build_id);
			html_txt(b, k->build_state);
			if (k->build_progress >= 0)
				buf_addf(b, " %d%%", k->build_progress);
			buf_addstr(b, "; ");
		}
		pct = d->planned > 0 ? 100 * (d->done + d->failed) /
		    d->planned : 0;
		buf_addf(b, "<progress max=\"100\" value=\"%d\"></progress> "
		    "%d/%d boots done", pct > 100 ? 100 : pct, d->done,
		    d->planned);
		if (d->failed)
			buf_addf(b, ", <span class=\"bad\">%d failed</span>",
			    d->failed);
		if (d->running)
			buf_addf(b, ", %d running", d->running);
		buf_addstr(b, "</div>\n");
	}
	if (r->agent) {
		buf_addstr(b, "<div>current agent: ");
		html_txt(b, r->agent);
		buf_addstr(b, "</div>\n");
	}
	buf_addstr(b, "</div>\n");
}

static void
report_html_header(const struct report *r, struct buf *b)
{
	int s;

	buf_addstr(b, "<dl class=\"meta\">\n<dt>series</dt><dd>");
	html_txt(b, r->subject ? r->subject : "(no subject)");
	if (r->version)
		buf_addf(b, " <span class=\"ver\">v%d</span>", r->version);
	if (r->author) {
		buf_addstr(b, " by ");
		html_txt(b, r->author);
	}
	buf_addstr(b, "</dd>\n");
	if (r->base_commit) {
		buf_addstr(b, "<dt>base</dt><dd><code>");
		html_txt(b, r->base_commit);
		buf_addstr(b, "</code>");
		if (r->tree) {
			buf_addstr(b, " in ");
			html_txt(b, r->tree);
		}
		if (r->base_kind || r->base_reason) {
			buf_addstr(b, " <span class=\"note\">(");
			html_txt(b, r->base_kind ? r->base_kind : "");
			if (r->base_kind && r->base_reason)
				buf_addstr(b, ": ");
			html_txt(b, r->base_reason ? r->base_reason : "");
			buf_addstr(b, ")</span>");
		}
		buf_addstr(b, "</dd>\n");
	}
	buf_addstr(b, "<dt>kernels</dt><dd>");
	for (s = 0; s < 2; s++) {
		const struct report_kernel *k = &r->kernel[s];

		buf_addf(b, "%s%s: ", s ? "<br>" : "", report_side_name(s));
		if (k->commit) {
			buf_addstr(b, "<code>");
			html_txt(b, k->commit);
			buf_addstr(b, "</code> ");
		}
		if (k->build_id) {
			buf_addf(b, "<a href=\"/builds/%lld\">build %lld</a> ",
			    k->build_id, k->build_id);
			html_txt(b, k->build_state ? k->build_state : "");
		} else {
			buf_addstr(b, "<span class=\"note\">not built yet"
			    "</span>");
		}
		if (k->build_error) {
			buf_addstr(b, " <span class=\"bad\">");
			html_txt(b, k->build_error);
			buf_addstr(b, "</span>");
		}
	}
	buf_addstr(b, "</dd>\n<dt>machine</dt><dd>");
	if (r->hw_class) {
		buf_addstr(b, "<code>");
		html_txt(b, r->hw_class);
		buf_addstr(b, "</code>");
	} else {
		buf_addstr(b, "<span class=\"note\">not assigned yet</span>");
	}
	if (r->topology) {
		buf_addstr(b, " &middot; ");
		html_txt(b, r->topology);
	}
	buf_addstr(b, "</dd>\n</dl>\n");
}

static void
report_html_row(const struct report *r, const struct stats_row *row,
    struct buf *b)
{
	const char *miss = report_row_missing(row);
	char s1[64], s2[64], chg[96], need[128];

	report_fmt_side(s1, sizeof(s1), &row->base);
	report_fmt_side(s2, sizeof(s2), &row->test);
	report_fmt_change(chg, sizeof(chg), row);
	buf_addf(b, "<tr class=\"v-%s%s\"><td class=\"num\">",
	    report_verdict_class(report_row_verdict(r, row)),
	    row->significant ? " sig" : "");
	html_txt(b, s1);
	buf_addstr(b, "</td><td class=\"num chg\">");
	html_txt(b, chg);
	if (row->significant)
		buf_addstr(b, " <span class=\"mark\" title=\"significant\">*"
		    "</span>");
	buf_addstr(b, "</td><td class=\"num\">");
	html_txt(b, s2);
	buf_addstr(b, "</td><td class=\"metric\">");
	html_txt(b, row->metric);
	if (row->params && *row->params) {
		buf_addstr(b, " <span class=\"params\">");
		html_txt(b, row->params);
		buf_addstr(b, "</span>");
	}
	if (row->unit && *row->unit) {
		buf_addstr(b, " <span class=\"unit\">(");
		html_txt(b, row->unit);
		buf_addstr(b, ")</span>");
	}
	if (!row->primary)
		buf_addstr(b, " <span class=\"secondary\" title=\"not a "
		    "metric this workload is judged by: shown, never in the "
		    "headline\">secondary</span>");
	buf_addstr(b, "</td><td class=\"row-verdict\" title=\"");
	html_attr(b, row->reason);
	buf_addstr(b, "\">");
	html_txt(b, miss ? miss : report_row_verdict(r, row));
	if (!miss && report_boots_needed(row, need, sizeof(need))) {
		buf_addstr(b, " <span class=\"boots-needed\">");
		html_txt(b, need);
		buf_addstr(b, "</span>");
	}
	if (!miss && row->significant &&
	    r->ex.state == REPORT_EX_NOT_EXERCISED)
		buf_addstr(b, " <span class=\"suspicious\" title=\"significant "
		    "although none of the changed functions ran\">(suspicious)"
		    "</span>");
	if (r->ex.emulated)
		buf_addstr(b, " <span class=\"emulated\" title=\"TCG with "
		    "icount: contention is emulated\">emulated</span>");
	buf_addstr(b, "</td></tr>\n");
}

/* Per-boot means of both sides of one row, as a chart. */
static void
report_html_boots_chart(const struct stats_row *row, struct buf *b)
{
	struct svg_series sr[2];
	struct svg_chart c;
	struct buf title = BUF_INIT(0);
	double *x[2];
	size_t i;
	int s;

	for (s = 0; s < 2; s++) {
		const struct stats_side *d = s ? &row->test : &row->base;

		x[s] = xcalloc(d->nboots ? d->nboots : 1, sizeof(double));
		/* x is the boot number: a failed boot leaves a gap */
		for (i = 0; d->present && i < d->nboots; i++)
			x[s][i] = (double)d->boot_ids[i];
		memset(&sr[s], 0, sizeof(sr[s]));
		sr[s].label = report_side_name(s);
		sr[s].side = s;
		sr[s].x = x[s];
		sr[s].y = d->boot_means;
		sr[s].n = d->present ? d->nboots : 0;
		sr[s].dots = 1;
		sr[s].mean = d->present ? d->mean : NAN;
	}
	buf_addf(&title, "%s", row->metric);
	memset(&c, 0, sizeof(c));
	c.title = title.data;
	c.subtitle = row->params && *row->params ? row->params : NULL;
	c.xlabel = "boot";
	c.ylabel = row->unit;
	c.x_integer = 1;
	c.series = sr;
	c.nseries = 2;
	svg_chart(b, &c);
	buf_release(&title);
	free(x[0]);
	free(x[1]);
}

static void
report_html_curve(const struct report_curve *cv, struct buf *b)
{
	struct svg_series sr[2];
	struct svg_chart c;
	struct buf title = BUF_INIT(0);
	int s;

	for (s = 0; s < 2; s++) {
		memset(&sr[s], 0, sizeof(sr[s]));
		sr[s].label = report_side_name(s);
		sr[s].side = s;
		sr[s].x = cv->x;
		sr[s].y = cv->y[s];
		sr[s].n = cv->n;
		sr[s].dots = sr[s].line = 1;
		sr[s].mean = NAN;
	}
	buf_addf(&title, "scaling: %s", cv->metric);
	memset(&c, 0, sizeof(c));
	c.title = title.data;
	c.subtitle = *cv->rest ? cv->rest : NULL;
	c.xlabel = "tasks";
	c.ylabel = cv->unit;
	c.x_integer = 1;
	c.y_zero = 1;
	c.series = sr;
	c.nseries = 2;
	svg_chart(b, &c);
	buf_release(&title);
}

static void
report_html_results(const struct report *r, struct buf *b)
{
	const struct stats_result *res = &r->result;
	struct report_curve *cv;
	size_t i, k, nc, start;
	const char *wl;
	char note[512];

	nc = report_curves(r, &cv);
	buf_addstr(b, "<table class=\"result\">\n<thead><tr>"
	    "<th>base<br>mean ±%stddev</th><th>%change [95% CI]</th>"
	    "<th>patched<br>mean ±%stddev</th><th>metric</th><th>verdict</th>"
	    "</tr></thead>\n");
	for (i = 0; i < res->n; i = k) {
		wl = res->rows[i].workload;
		for (k = i; k < res->n && !strcmp(res->rows[k].workload, wl);
		    k++)
			;
		buf_addstr(b, "<tbody><tr class=\"workload\"><th colspan=\"5\">");
		html_txt(b, wl);
		buf_addstr(b, "</th></tr>\n");
		for (start = i; start < k; start++)
			report_html_row(r, &res->rows[start], b);
		buf_addstr(b, "</tbody>\n");
	}
	buf_addstr(b, "</table>\n<p class=\"note\">* ");
	html_txt(b, stats_rule_text(res, note, sizeof(note)));
	buf_addstr(b, " The boot is the unit of replication.</p>\n");

	/* charts, per workload in table order */
	buf_addstr(b, "<h3>Per-boot means</h3>\n");
	for (i = 0; i < res->n; i = k) {
		wl = res->rows[i].workload;
		for (k = i; k < res->n && !strcmp(res->rows[k].workload, wl);
		    k++)
			;
		buf_addstr(b, "<figure class=\"charts\"><figcaption>");
		html_txt(b, wl);
		buf_addstr(b, "</figcaption>\n");
		for (start = i; start < k; start++)
			report_html_boots_chart(&res->rows[start], b);
		for (start = 0; start < nc; start++)
			if (!strcmp(cv[start].workload, wl))
				report_html_curve(&cv[start], b);
		buf_addstr(b, "</figure>\n");
	}
	report_curves_free(cv, nc);
}

/* A share as a percentage: two decimals below 1% so small shares differ. */
static void
report_fmt_share(char *out, size_t sz, double v)
{
	if (!isfinite(v))
		snprintf(out, sz, "-");
	else
		snprintf(out, sz, v < 0.01 ? "%.2f%%" : "%.1f%%", 100 * v);
}

static void
report_html_share(struct buf *b, double v)
{
	char s[32];

	report_fmt_share(s, sizeof(s), v);
	buf_addf(b, "<td class=\"num\">%s</td>", s);
}

/* One metric of one lock, in the columns of the results table. */
static void
report_html_wait_row(const struct stats_row *row, const char *label,
    struct buf *b)
{
	const char *miss = report_lock_missing(row);
	char s1[64], s2[64], chg[96];

	report_fmt_side(s1, sizeof(s1), &row->base);
	report_fmt_side(s2, sizeof(s2), &row->test);
	report_fmt_change(chg, sizeof(chg), row);
	buf_addf(b, "<tr class=\"v-%s%s\"><td class=\"num\">",
	    report_verdict_class(stats_verdict_name(row->verdict)),
	    row->significant ? " sig" : "");
	html_txt(b, s1);
	buf_addstr(b, "</td><td class=\"num chg\">");
	html_txt(b, chg);
	if (row->significant)
		buf_addstr(b, " <span class=\"mark\" title=\"significant\">*"
		    "</span>");
	buf_addstr(b, "</td><td class=\"num\">");
	html_txt(b, s2);
	buf_addstr(b, "</td><td class=\"metric\">");
	html_txt(b, label);
	buf_addstr(b, " <span class=\"unit\">(");
	html_txt(b, row->unit ? row->unit : "");
	buf_addstr(b, ")</span></td><td class=\"row-verdict\" title=\"");
	html_attr(b, row->reason);
	buf_addstr(b, "\">");
	html_txt(b, miss ? miss : stats_verdict_name(row->verdict));
	buf_addstr(b, "</td></tr>\n");
}

static void
report_html_contention(const struct report *r, struct buf *b)
{
	const char *run = NULL;
	size_t i;
	int m;

	const char *blind = report_lock_blind(r);
	size_t n = 0;

	if (!report_has_lock_pass(r))
		return;
	buf_addstr(b, "<h3>Lock contention</h3>\n");
	if (blind) {
		buf_addstr(b, "<p class=\"lock-blind\"><strong>Cannot show"
		    "</strong>: ");
		html_txt(b, blind);
		buf_addstr(b, "</p>\n");
	}
	for (i = 0; i < r->nlocks; i++) {
		const struct stats_row *row = report_lock_changed(&r->locks[i]);
		struct buf line = BUF_INIT(0);

		if (!row && !(row = report_lock_new(r, &r->locks[i])))
			continue;
		if (!n++)
			buf_addstr(b, "<p class=\"lock-changes\">Contended-lock "
			    "changes:</p>\n<ul class=\"lock-changes\">\n");
		report_lock_change_line(&line, &r->locks[i], row);
		buf_addf(b, "<li class=\"v-%s\">", row->base.present ?
		    report_verdict_class(stats_verdict_name(row->verdict)) :
		    "regression");
		html_txt(b, line.data);
		buf_addstr(b, "</li>\n");
		buf_release(&line);
	}
	if (n)
		buf_addstr(b, "</ul>\n");
	if (!r->nlocks) {
		buf_addstr(b, report_is_live(r) ? "<p class=\"note\">No lock "
		    "waits reported yet.</p>\n" : "<p class=\"note\">No lock "
		    "waited on either side.</p>\n");
		return;
	}
	buf_addstr(b, "<p class=\"note\">From the "
	    "lock:contention_begin/end tracepoints in the guest: per lock "
	    "(static locks by symbol; the lruvec, list_lru and split queue "
	    "locks by name from the functions that take them; the others by "
	    "their first caller) the "
	    "wait time, count and longest wait; wait share = wait total / "
	    "(tasks &times; wall). Same statistics as the results above; "
	    "these rows do not count towards the overall verdict.");
	if (r->ex.emulated)
		buf_addstr(b, " Emulated: under TCG a waiter spins only while "
		    "the holder's vCPU is not running; these waits say where "
		    "contention is, not how long it lasts on hardware.");
	buf_addstr(b, "</p>\n");
	for (i = 0; i < r->nlocks; i++) {
		const struct report_lockrow *l = &r->locks[i];

		if (!run || strcmp(run, l->run)) {
			if (run)
				buf_addstr(b, "</table>\n");
			buf_addstr(b, "<table class=\"result contention\">\n"
			    "<caption>");
			html_txt(b, l->run);
			buf_addstr(b, "</caption>\n<thead><tr><th>base<br>mean "
			    "±%stddev</th><th>%change [95% CI]</th><th>patched"
			    "<br>mean ±%stddev</th><th>metric</th><th>verdict"
			    "</th></tr></thead>\n");
			run = l->run;
		}
		buf_addstr(b, "<tbody><tr class=\"workload\"><th colspan=\"5\">");
		html_txt(b, l->lock);
		buf_addstr(b, "</th></tr>\n");
		for (m = 0; m < REPORT_WAIT_METRICS; m++)
			if (l->m[m])
				report_html_wait_row(l->m[m],
				    report_wait_labels[m], b);
		buf_addstr(b, "</tbody>\n");
	}
	buf_addstr(b, "</table>\n");
}

static void
report_html_profiles(const struct report *r, struct buf *b)
{
	size_t i, k, c;

	if (!r->nprofiles)
		return;
	buf_addstr(b, "<h3>Lock profile</h3>\n");
	for (i = 0; i < r->nprofiles; i++) {
		const struct report_profile *p = &r->profiles[i];

		buf_addstr(b, "<table class=\"locks\">\n<caption>");
		html_txt(b, p->params);
		buf_addf(b, " &middot; share of kernel samples, mean of %d base "
		    "and %d patched profiles</caption>\n<thead><tr><th>lock / "
		    "caller</th><th>base</th><th>patched</th></tr></thead>\n"
		    "<tbody>\n", p->nprofiles[0], p->nprofiles[1]);
		for (k = 0; k < p->nlocks && k < REPORT_TOP_LOCKS; k++) {
			const struct report_lock *l = &p->locks[k];

			buf_addstr(b, "<tr class=\"lock\"><td>");
			html_txt(b, l->lock);
			buf_addstr(b, " <span class=\"note\">");
			html_txt(b, l->symbol);
			buf_addstr(b, "</span></td>");
			report_html_share(b, l->share[0]);
			report_html_share(b, l->share[1]);
			buf_addstr(b, "</tr>\n");
			for (c = 0; c < l->ncallers && c < REPORT_TOP_CALLERS;
			    c++) {
				buf_addstr(b, "<tr class=\"caller\"><td>");
				html_txt(b, l->callers[c].symbol);
				buf_addstr(b, "</td>");
				report_html_share(b, l->callers[c].share[0]);
				report_html_share(b, l->callers[c].share[1]);
				buf_addstr(b, "</tr>\n");
			}
		}
		buf_addstr(b, "</tbody></table>\n");
	}
}

static void
report_html_jobs(const struct report *r, struct buf *b)
{
	size_t i;

	if (!r->njobs)
		return;
	buf_addstr(b, "<details class=\"jobs\"");
	for (i = 0; i < r->njobs; i++)
		if (r->jobs[i].state && strcmp(r->jobs[i].state, "done") &&
		    strcmp(r->jobs[i].state, "queued") &&
		    strcmp(r->jobs[i].state, "leased"))
			break;
	/* open when some boot failed: that is what a reader looks for */
	if (i < r->njobs)
		buf_addstr(b, " open");
	buf_addf(b, "><summary>Boots (%zu jobs, base and patched interleaved)"
	    "</summary>\n<table class=\"list\"><thead><tr><th>job</th>"
	    "<th>side</th><th>boot</th><th>state</th><th>agent</th>"
	    "<th>logs</th></tr></thead>\n<tbody>\n", r->njobs);
	for (i = 0; i < r->njobs; i++) {
		const struct report_job *j = &r->jobs[i];

		buf_addf(b, "<tr><td><a href=\"/jobs/%lld\">%lld</a>"
		    "</td><td>%s</td><td>%d</td><td><span class=\"state "
		    "state-", j->id, j->id, report_side_name(j->side), j->boot);
		html_attr(b, j->state ? j->state : "unknown");
		buf_addstr(b, "\">");
		html_txt(b, j->state ? j->state : "unknown");
		buf_addstr(b, "</span>");
		if (j->progress) {
			buf_addstr(b, " (");
			html_txt(b, j->progress);
			buf_addstr(b, ")");
		}
		if (j->reason) {
			buf_addstr(b, " ");
			html_txt(b, j->reason);
		}
		buf_addstr(b, "</td><td>");
		html_txt(b, j->agent ? j->agent : "");
		buf_addstr(b, "</td><td>");
		if (j->console) {
			buf_addstr(b, "<a href=\"");
			html_attr(b, j->console);
			buf_addstr(b, "\">console</a>");
		}
		buf_addstr(b, "</td></tr>\n");
	}
	buf_addstr(b, "</tbody></table>\n</details>\n");
}

void
report_html(const struct report *r, struct buf *b)
{
	char v[256];
	size_t k;
	int s;

	report_verdict(r, v, sizeof(v));
	buf_addstr(b, "<section id=\"result\" class=\"result\">\n"
	    "<h2>Comparison</h2>\n");
	buf_addf(b, "<p class=\"verdict verdict-%s\">Verdict: <strong>",
	    report_verdict_class(v));
	html_txt(b, v);
	buf_addstr(b, "</strong>");
	if (report_is_live(r))
		buf_addstr(b, " <span class=\"note\">(running; this page "
		    "refreshes itself)</span>");
	if (r->stale)
		buf_addstr(b, " <span class=\"note\">(the statistics of an "
		    "earlier upload: another request is computing the "
		    "newest)</span>");
	buf_addstr(b, "</p>\n");
	report_claims_html(r, b);
	for (s = 0; s < 2; s++) {
		const char *how = report_side_all_failed(r, s);

		if (!how)
			continue;
		buf_addf(b, "<div class=\"error\">Every %s boot %s. Console "
		    "logs:", report_side_name(s), how);
		for (k = 0; k < r->njobs; k++)
			if (r->jobs[k].side == s && r->jobs[k].console) {
				buf_addstr(b, " <a href=\"");
				html_attr(b, r->jobs[k].console);
				buf_addf(b, "\">boot %d</a>", r->jobs[k].boot);
			}
		buf_addstr(b, "</div>\n");
	}
	if (r->error) {
		buf_addstr(b, "<p class=\"error\">");
		html_txt(b, r->error);
		buf_addstr(b, "</p>\n");
	}
	report_html_header(r, b);
	if (r->comparison_id || r->kernel[0].build_id)
		report_html_progress(r, b);
	if (r->have_result && r->result.n)
		report_html_results(r, b);
	else if (r->comparison_id)
		buf_addstr(b, "<p class=\"note\">No samples yet.</p>\n");
	report_html_contention(r, b);
	if (r->comparison_id)
		report_exercise_html(r, b);
	report_html_profiles(r, b);
	report_html_jobs(r, b);
	if (r->matrix) {
		buf_addstr(b, "<details class=\"matrix\"><summary>Job definition "
		    "(the matrix every boot runs)</summary>\n<pre>");
		html_txt(b, r->matrix);
		buf_addstr(b, "</pre></details>\n");
	}
	buf_addstr(b, "<h3>Reproduce</h3>\n<pre class=\"repro\">");
	report_repro_lines(r, NULL, b, 1);
	buf_addf(b, "</pre>\n<p class=\"links\"><a href=\"/api/v1/series/%lld/"
	    "comparison\">comparison JSON</a> &middot; <a href=\"/series/%lld/"
	    "report.txt\">text report</a></p>\n</section>\n", r->series_id,
	    r->series_id);
}

/* ---- loading from the store --------------------------------------------- */

static char *
report_dup(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void
report_load_build(struct db *db, int64_t id, struct report_kernel *k)
{
	struct db_build b;

	k->build_id = id;
	if (!id || db_build_get(db, id, &b) != 0)
		return;
	k->build_state = report_dup(b.state);
	k->build_progress = b.progress;
	k->build_error = report_dup(b.error);
	db_build_release(&b);
}

/* CPUs in a node_cpus entry ("0-3", "0,2-3", "5"), 0 when malformed. */
static int
report_cpulist_count(const char *s)
{
	long a, b;
	int n = 0;
	char *e;

	while (s && *s) {
		a = strtol(s, &e, 10);
		if (e == s || a < 0)
			return 0;
		b = a;
		if (*e == '-') {
			s = e + 1;
			b = strtol(s, &e, 10);
			if (e == s || b < a || b - a > 1 << 20)
				return 0;
		}
		n += (int)(b - a + 1);
		if (*e == ',')
			e++;
		else if (*e)
			return 0;
		s = e;
	}
	return n;
}

/* The fewest CPUs on one node of a registered agent: its node_cpus, else
   cpus / nodes; 0 when unknown. */
static int
report_cpus_per_node(const json_t *agent)
{
	const json_t *nc = json_object_get(json_object_get(agent, "topology"),
	    "node_cpus"), *v;
	long long cpus = json_integer_value(json_object_get(agent, "cpus"));
	long long nodes = json_integer_value(json_object_get(agent, "nodes"));
	int least = 0, k;
	size_t i;

	json_array_foreach(nc, i, v) {
		k = report_cpulist_count(json_string_value(v));
		if (k > 0 && (least == 0 || k < least))
			least = k;
	}
	if (least)
		return least;
	return nodes > 0 && cpus > 0 ? (int)(cpus / nodes) : 0;
}

/* One line about the machines of class: the first agent of that class;
   its CPUs and CPUs per node into r. */
static char *
report_topology(struct db *db, const char *class, struct report *r)
{
	json_t *agents = NULL, *a;
	char *out = NULL;
	size_t i;

	if (!class || db_agent_list(db, &agents) < 0)
		goto out;
	json_array_foreach(agents, i, a) {
		const char *c = report_jstr(a, "class");

		if (!c || strcmp(c, class))
			continue;
		r->cpus = (int)json_integer_value(json_object_get(a, "cpus"));
		r->cpus_per_node = report_cpus_per_node(a);
		out = xasprintf("%lld sockets, %lld NUMA nodes, %lld CPUs, "
		    "%lld MiB, %s (%s agent)",
		    (long long)json_integer_value(json_object_get(a,
		    "sockets")),
		    (long long)json_integer_value(json_object_get(a, "nodes")),
		    (long long)json_integer_value(json_object_get(a, "cpus")),
		    (long long)json_integer_value(json_object_get(a,
		    "memory_mb")), report_jstr(a, "cpu_model") ?
		    report_jstr(a, "cpu_model") : "unknown CPU",
		    report_jstr(a, "backend") ? report_jstr(a, "backend") :
		    "unknown");
		break;
	}
out:
	json_decref(agents);
	return out;
}

/*
 * DESIGN (results stored once).  The statistics of a comparison (a
 * hierarchical bootstrap per row: 0.2 s for 30 rows of 24 boots, seconds
 * for a large upload) and its lock-profile diff are never computed inside
 * every GET:
 *   - a finished comparison (state done or failed) reads both from the
 *     store: comparisons.result (what the scheduler decided on, written by
 *     stage_sched_wait) and comparisons.profiles.  What is missing (the
 *     profiles of a comparison that just finished, the rows of one that
 *     failed with samples) is computed once, at the first view, under
 *     report_lock, stored, and read back, so every later view renders the
 *     very bytes that were stored.  Nothing recomputes a finished result;
 *     whatever re-runs a comparison must clear result and profiles.
 *   - a live comparison (running) keeps its last computation in memory,
 *     keyed by db_report_key (jobs done, samples and profiles uploaded):
 *     it is recomputed at most once per new upload, by one thread while
 *     the others wait for the same answer.
 * report_lock guards only the cache and the list of comparisons being
 * computed (report_busy); no computation runs under it.  A thread that
 * computes comparison C marks C busy, and only views of C wait for it
 * (report_cond): a large upload of one comparison never stalls views of
 * another, nor /healthz.
 * The results travel as their JSON (stats_result_to_json and the profile
 * diff), and report_from_text rebuilds the model from it: the renderers
 * never see whether a result was stored or just computed.
 */
#define REPORT_CACHE_SLOTS	16

struct report_cached {
	long long cid;			/* 0: free */
	char	 key[160];
	char	*result, *profiles;	/* JSON text */
	unsigned long used;
};

/* Comparisons being computed at once: one per MHD thread is plenty. */
#define REPORT_BUSY_SLOTS	64

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t report_cond = PTHREAD_COND_INITIALIZER;
static struct report_cached report_cache[REPORT_CACHE_SLOTS];
static long long report_busy[REPORT_BUSY_SLOTS];	/* 0: free */
static unsigned long report_clock, report_ncomputed;

/* Whether a thread computes cid now (report_lock held). */
static int
report_is_busy(long long cid)
{
	for (size_t i = 0; i < REPORT_BUSY_SLOTS; i++)
		if (report_busy[i] == cid)
			return 1;
	return 0;
}

/* Waits until nobody computes cid and a slot is free, then marks it ours
   (report_lock held, as on return). */
static void
report_claim(long long cid)
{
	for (;;) {
		if (!report_is_busy(cid))
			for (size_t i = 0; i < REPORT_BUSY_SLOTS; i++)
				if (!report_busy[i]) {
					report_busy[i] = cid;
					return;
				}
		pthread_cond_wait(&report_cond, &report_lock);
	}
}

/* Gives cid back and wakes its waiters (report_lock held). */
static void
report_unclaim(long long cid)
{
	size_t i;

	for (i = 0; i < REPORT_BUSY_SLOTS; i++)
		if (report_busy[i] == cid)
			report_busy[i] = 0;
	pthread_cond_broadcast(&report_cond);
}

void
report_busy_hold(long long cid, int on)
{
	pthread_mutex_lock(&report_lock);
	if (on)
		report_claim(cid);
	else
		report_unclaim(cid);
	pthread_mutex_unlock(&report_lock);
}

unsigned long
report_computations(void)
{
	unsigned long n;

	n = __atomic_load_n(&report_ncomputed, __ATOMIC_RELAXED);
	return n;
}

void
report_cache_clear(void)
{
	size_t i;

	pthread_mutex_lock(&report_lock);
	for (i = 0; i < REPORT_CACHE_SLOTS; i++) {
		free(report_cache[i].result);
		free(report_cache[i].profiles);
		memset(&report_cache[i], 0, sizeof(report_cache[i]));
	}
	pthread_mutex_unlock(&report_lock);
}

/* Runs the statistics (with_stats) and the profile diff over the stored
   samples of c (c claimed, report_lock not held). */
static int
report_compute_samples(struct db *db, struct report *r,
    const struct sched_comparison *c, int with_stats)
{
	struct buf bs = BUF_INIT(STATS_MAX_FILE), ts = BUF_INIT(STATS_MAX_FILE);
	struct buf err = BUF_INIT(1024);
	struct stats_opts opts;
	json_t *bp = NULL, *tp = NULL;
	int rc = -1;

	if (!with_stats)
		goto profiles;
	__atomic_add_fetch(&report_ncomputed, 1, __ATOMIC_RELAXED);
	if (sched_side_jsonl(db, c->id, "base", &bs) < 0 ||
	    sched_side_jsonl(db, c->id, "patched", &ts) < 0) {
		error("report: samples of comparison %lld unreadable", c->id);
		goto out;
	}
	sched_stats_opts(&opts, c);
	if ((bs.len || ts.len) && report_compute(r, bs.data, bs.len, ts.data,
	    ts.len, &opts, &err) < 0)
		log_warnx("report: comparison %lld: %s", c->id, err.data);
profiles:
	if (sched_side_profiles(db, c->id, "base", &bp) == 0 &&
	    sched_side_profiles(db, c->id, "patched", &tp) == 0)
		report_set_profiles(r, bp, tp);
	rc = 0;
out:
	json_decref(bp);
	json_decref(tp);
	buf_release(&bs);
	buf_release(&ts);
	buf_release(&err);
	return rc;
}

/* The computed result and profile diff as JSON text (result "null" when
   there are no rows). */
static void
report_to_text(const struct report *r, char **result, char **profiles)
{
	struct stats_result all;
	json_t *j;

	/* stored whole: the lock contention rows with the others */
	report_merge_contention(r, &all);
	j = r->have_result ? stats_result_to_json(&all) : json_null();
	free(all.rows);
	*result = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(j);
	j = report_profiles_json(r, SIZE_MAX, SIZE_MAX);
	*profiles = json_dumps(j, JSON_COMPACT);
	json_decref(j);
}

/* The profile diff back from report_profiles_json's JSON. */
static void
report_profiles_from_json(struct report *r, const json_t *a)
{
	const json_t *p, *l, *c;
	struct report_profile *rp;
	struct report_lock *rl;
	struct report_caller *rc;
	size_t i, k, n;

	json_array_foreach(a, i, p) {
		rp = report_profile_get(r, report_jstr((json_t *)p, "params") ?
		    report_jstr((json_t *)p, "params") : "");
		rp->nprofiles[0] = json_integer_value(json_object_get(p,
		    "base_profiles"));
		rp->nprofiles[1] = json_integer_value(json_object_get(p,
		    "patched_profiles"));
		json_array_foreach(json_object_get(p, "locks"), k, l) {
			rl = report_lock_get(rp, report_jstr((json_t *)l,
			    "lock") ? report_jstr((json_t *)l, "lock") : "",
			    report_jstr((json_t *)l, "symbol") ?
			    report_jstr((json_t *)l, "symbol") : "");
			rl->share[0] = report_jdouble(json_object_get(l,
			    "base"));
			rl->share[1] = report_jdouble(json_object_get(l,
			    "patched"));
			json_array_foreach(json_object_get(l, "callers"), n,
			    c) {
				rc = report_caller_get(rl, report_jstr(
				    (json_t *)c, "symbol") ? report_jstr(
				    (json_t *)c, "symbol") : "");
				rc->share[0] = report_jdouble(json_object_get(c,
				    "base"));
				rc->share[1] = report_jdouble(json_object_get(c,
				    "patched"));
			}
		}
	}
}

/* r's result and profiles from their JSON text: 0, or -1 (logged). */
static int
report_from_text(struct report *r, long long cid, const char *result,
    const char *profiles)
{
	json_t *jr = json_loads(result, JSON_DECODE_ANY, NULL);
	json_t *jp = json_loads(profiles, 0, NULL);
	char err[256];
	int rc = -1;

	if (!jr || !json_is_array(jp)) {
		error("report: comparison %lld: the stored result is not JSON",
		    cid);
		goto out;
	}
	if (!json_is_null(jr)) {
		if (stats_result_from_json(jr, &r->result, err,
		    sizeof(err)) < 0) {
			error("report: comparison %lld: %s", cid, err);
			goto out;
		}
		r->have_result = 1;
		report_split_contention(r);
	}
	report_profiles_from_json(r, jp);
	rc = 0;
out:
	json_decref(jr);
	json_decref(jp);
	return rc;
}

/* Forgets whatever result r holds. */
static void
report_drop_result(struct report *r)
{
	if (r->have_result)
		stats_result_release(&r->result);
	r->have_result = 0;
	report_contention_free(r);
	report_profiles_free(r->profiles, r->nprofiles);
	r->profiles = NULL;
	r->nprofiles = 0;
}

/* A finished comparison: its stored result (computed and stored first
   if it has none yet). */
static int
report_load_final(struct db *db, struct report *r,
    const struct sched_comparison *c, int nowait)
{
	char *res = NULL, *prof = NULL, *nres = NULL, *nprof = NULL;
	int rc = -1, claimed = 0;

	if (db_report_stored(db, c->id, &res, &prof) < 0)
		goto out;
	if (!res || !prof) {
		/* compute once: a thread that waited here finds it stored */
		pthread_mutex_lock(&report_lock);
		if (nowait && report_is_busy(c->id)) {
			/* a request thread does not wait: no result yet */
			pthread_mutex_unlock(&report_lock);
			r->computing = 1;
			rc = 0;
			goto out;
		}
		report_claim(c->id);
		pthread_mutex_unlock(&report_lock);
		claimed = 1;
		free(res);
		free(prof);
		res = prof = NULL;
		if (db_report_stored(db, c->id, &res, &prof) < 0)
			goto out;
	}
	if (!res || !prof) {
		/* the scheduler's stored result needs only the profiles */
		if (report_compute_samples(db, r, c, res == NULL) < 0)
			goto out;
		report_to_text(r, &nres, &nprof);
		report_drop_result(r);
		free(res);
		free(prof);
		res = prof = NULL;
		if (db_report_store(db, c->id, nres, nprof) < 0 ||
		    db_report_stored(db, c->id, &res, &prof) < 0)
			goto out;
		log_info("report: comparison %lld: result stored", c->id);
	}
	rc = res && prof ? report_from_text(r, c->id, res, prof) : -1;
out:
	if (claimed) {
		pthread_mutex_lock(&report_lock);
		report_unclaim(c->id);
		pthread_mutex_unlock(&report_lock);
	}
	free(res);
	free(prof);
	free(nres);
	free(nprof);
	return rc;
}

/* The cache entry of cid for key, or NULL (report_lock held). */
static struct report_cached *
report_cache_find(long long cid, const char *key)
{
	size_t i;

	for (i = 0; i < REPORT_CACHE_SLOTS; i++)
		if (report_cache[i].cid == cid &&
		    !strcmp(report_cache[i].key, key))
			return &report_cache[i];
	return NULL;
}

/* A live comparison: the cached result for its samples as they are now,
   computed when a new upload changed them. */
static int
report_load_live(struct db *db, struct report *r,
    const struct sched_comparison *c, int nowait)
{
	struct report_cached *e, *slot;
	char key[160], *res = NULL, *prof = NULL;
	size_t i;
	int rc = -1;

	if (db_report_key(db, c->id, key, sizeof(key)) < 0)
		return -1;
	pthread_mutex_lock(&report_lock);
	if (!(e = report_cache_find(c->id, key)) && nowait &&
	    report_is_busy(c->id)) {
		/* a request thread does not wait for another's computation:
		   the last upload's result if one is cached, else none */
		r->computing = 1;
		for (i = 0; i < REPORT_CACHE_SLOTS; i++)
			if (report_cache[i].cid == c->id)
				e = &report_cache[i];
		if (!e) {
			pthread_mutex_unlock(&report_lock);
			return 0;
		}
		r->stale = 1;
		goto hit;
	}
	if (!e) {
		/* one thread computes; other views of this comparison wait
		   (or, from a request thread, see the note above) */
		report_claim(c->id);
		if ((e = report_cache_find(c->id, key))) {
			report_unclaim(c->id);
			goto hit;
		}
		pthread_mutex_unlock(&report_lock);
		if (report_compute_samples(db, r, c, 1) == 0) {
			report_to_text(r, &res, &prof);
			report_drop_result(r);
		}
		pthread_mutex_lock(&report_lock);
		report_unclaim(c->id);
		if (!res)
			goto out;
		/* this comparison's slot, else a free one, else the oldest */
		slot = &report_cache[0];
		for (i = 0; i < REPORT_CACHE_SLOTS; i++) {
			e = &report_cache[i];
			if (e->cid == c->id || (slot->cid != c->id &&
			    (e->cid == 0 || e->used < slot->used)))
				slot = e;
		}
		e = slot;
		free(e->result);
		free(e->profiles);
		e->cid = c->id;
		snprintf(e->key, sizeof(e->key), "%s", key);
		e->result = res;
		e->profiles = prof;
	}
hit:
	e->used = ++report_clock;
	res = xstrdup(e->result);
	prof = xstrdup(e->profiles);
	rc = 0;
out:
	pthread_mutex_unlock(&report_lock);
	if (rc == 0)
		rc = report_from_text(r, c->id, res, prof);
	free(res);
	free(prof);
	return rc;
}

static int
report_load_result(struct db *db, struct report *r,
    const struct sched_comparison *c, int nowait)
{
	if (c->state && strcmp(c->state, "running"))
		return report_load_final(db, r, c, nowait);
	return report_load_live(db, r, c, nowait);
}

/* The scheduler's comparison of the series, its jobs and samples. */
static int
report_load_comparison(struct db *db, struct report *r, int with_result)
{
	struct sched_comparison c;
	struct buf ag = BUF_INIT(0);
	size_t i, n;
	int rc, s;

	if ((rc = sched_get(db, r->series_id, &c)) == 1)
		return 0;
	if (rc < 0)
		return -1;
	r->comparison_id = c.id;
	r->state = report_dup(c.state);
	if (c.state && !strcmp(c.state, "failed"))
		r->error = report_dup(c.summary);
	r->hw_class = report_dup(c.class);
	r->matrix = report_dup(c.matrix);
	r->looks = c.look;
	for (s = 0; s < 2; s++) {
		const struct sched_side *d = s ? &c.patched : &c.base;

		r->side[s].planned = d->planned;
		r->side[s].done = d->done;
		r->side[s].failed = d->boot_failed + d->lost;
		r->side[s].running = d->running;
	}
	for (i = 0; i < c.nagents; i++)
		buf_addf(&ag, "%s%s", i ? ", " : "", c.agents[i]);
	if (ag.len)
		r->agent = buf_detach(&ag, NULL);
	r->jobs = xcalloc(c.njobs ? c.njobs : 1, sizeof(*r->jobs));
	for (i = n = 0; i < c.njobs; i++) {
		const struct sched_job *j = &c.jobs[i];
		struct report_job *o = &r->jobs[n];

		/* a replaced job's boot is another job's now */
		if (j->replaced)
			continue;
		o->id = j->id;
		o->side = strcmp(j->side, "patched") ? REPORT_BASE :
		    REPORT_PATCHED;
		o->boot = j->boot;
		o->state = report_dup(j->state);
		o->reason = report_dup(j->reason);
		o->agent = report_dup(j->agent);
		if (j->progress && !strcmp(j->state, "leased"))
			o->progress = report_dup(j->progress);
		if (j->console)
			o->console = xasprintf("/api/v1/jobs/%lld/console"
			    "?attempt=%d", j->id, j->attempts);
		n++;
	}
	r->njobs = n;
	r->topology = report_topology(db, c.class, r);
	{
		json_t *chg = NULL, *att = NULL;

		if (db_exercise_get(db, c.id, &chg) == 0 &&
		    db_exercise_attempts(db, c.id, &att) == 0)
			report_exercise_set(r, chg, att);
		json_decref(chg);
		json_decref(att);
	}
	rc = with_result ? report_load_result(db, r, &c,
	    with_result == REPORT_NOWAIT) : 0;
	buf_release(&ag);
	sched_comparison_release(&c);
	return rc;
}

int
report_load(struct db *db, long long series_id, int with_result,
    struct report *r)
{
	struct db_series s;
	struct db_series_build sb;
	int rc;

	report_init(r);
	r->series_id = series_id;
	if ((rc = db_series_get(db, series_id, 0, &s)) != 0)
		return rc;
	r->series_state = report_dup(s.state);
	r->series_final = pipeline_series_rests(&s);
	r->series_rest = report_dup(s.rest);
	r->series_error = report_dup(s.error);
	r->subject = report_dup(s.title ? s.title : s.cover_subject);
	r->author = report_dup(s.author);
	if (s.source && strcmp(s.source, "upload"))
		r->source = xstrdup(s.source);
	r->version = s.version;
	db_series_release(&s);
	if (db_build_series_get(db, series_id, &sb) == 0) {
		r->tree = report_dup(sb.tree);
		r->base_commit = report_dup(sb.base_commit);
		r->base_kind = report_dup(sb.base_kind);
		r->base_reason = report_dup(sb.base_reason);
		r->kernel[REPORT_BASE].commit = report_dup(sb.base_commit);
		r->kernel[REPORT_PATCHED].commit =
		    report_dup(sb.patched_commit);
		report_load_build(db, sb.base_build, &r->kernel[REPORT_BASE]);
		report_load_build(db, sb.patched_build,
		    &r->kernel[REPORT_PATCHED]);
		db_series_build_release(&sb);
	}
	if (with_result)
		report_claims_load(db, r);
	return report_load_comparison(db, r, with_result);
}
