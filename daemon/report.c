/*
 * report: the comparison model and its computation (see report.h): the
 * rows and their verdicts from each side's samples (one stats_compare),
 * the lock contention rows moved out of the main table and grouped per
 * lock, the lock-profile diff, and the overall verdict in words.  Pure:
 * the store is read by report_load.c and, for the results computed once,
 * report_cache.c; the renderings are report_html.c, report_json.c and
 * report_text.c, with what they share in report_fmt.c (report_int.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/report.h"
#include "daemon/report_int.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

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

void
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

void
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

const char *
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

/* The profile diff back from report_profiles_json's JSON. */
void
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

/* ---- lock contention: its rows out of the main table, per lock -------- */

const char *const report_wait_metrics[REPORT_WAIT_METRICS] = {
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
void
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
void
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
const char *
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

/* Why a row has no numbers: which side lacks the metric. */
const char *
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

const char *
report_row_verdict(const struct report *r, const struct stats_row *row)
{
	if (r && r->ex.state == REPORT_EX_NOT_EXERCISED &&
	    !report_row_missing(row) && row->verdict != STATS_INVALID)
		return "not exercised";
	return stats_verdict_name(row->verdict);
}

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
