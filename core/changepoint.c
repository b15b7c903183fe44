/*
 * changepoint: E-divisive change points over a history of per-boot means
 * (see changepoint.h for the interface).  No I/O.
 *
 * DESIGN
 *
 * Method.  E-divisive means (Matteson & James 2014, the method behind
 * MongoDB's and Netflix's performance CI and datastax's hunter), with the
 * boot as the unit: every boot of every night is one observation, and a
 * split may only fall between nights (all boots of a night ran the same
 * kernel).  For a split of a segment into L (m boots) and R (r boots) the
 * energy statistic with alpha = 1 is
 *
 *	Q = m r / (m + r) * ( 2/(m r) sum |x - y|
 *			      - 1/C(m,2) sum_L |x - x'| - 1/C(r,2) sum_R |y - y'| )
 *
 * computed for every night boundary in O(N^2) by moving one boot at a time
 * from R to L.  The boundary with the largest Q is the candidate; its
 * significance is a permutation test: the segment's boots are shuffled
 * (under "no change" every boot of the segment is exchangeable) and the
 * largest Q over the same boundaries recomputed, `permutations` times
 * (199); p = (1 + #{Q_perm >= Q}) / (1 + permutations).  The test stops
 * early once p can no longer reach alpha (flat histories cost a few
 * permutations).  A significant split is kept and both halves are
 * searched again (binary segmentation), until no segment splits.
 *
 * Reporting.  A kept split is reported only if the level change between
 * its two neighbouring segments (previous split to this one, this one to
 * the next) is at least min_effect % (1.5%): a performance CI has no use
 * for a "change" smaller than the spread of one boot, and the effect floor
 * is what holds the false-alarm rate well under alpha on long flat
 * histories, where the largest of ~60 possible splits is always somewhat
 * "different".  Its size is the %change of the segment means with a 95%
 * Welch interval (boots as the unit, GSL's t quantile).
 *
 * Numbers, measured with `make bench-changepoint` (t-changepoint --bench)
 * on 60 nights, per-boot noise sigma uniform in 1-3%, 3 boots per night,
 * step night uniform in 10..50, 1000 histories of each kind: the step is
 * found within 2 nights in 97.2% of histories and flat ones alarm on 0.6%;
 * with 2 boots per night 91.6% (0.5%), with 1 74.4% (0.8%), hence 3 boots
 * per night by default ([track] boots); tests/unit/t-changepoint.c
 * checks the requirements of issue 9 (a 3% step found within 2 nights of
 * where it happened >= 95% of the time, flat histories alarming on <= 1%
 * of metrics) on fixed seeds.
 *
 * The online rule (changepoint_online: what the daemon runs after every
 * night).  Judged once over a finished history, E-divisive is good; re-run
 * after every night it is not, because every night gives a flat metric a
 * new chance: 7 % of flat 60-night histories opened a false regression
 * that way, and requiring two nights in a row to agree (the previous
 * rule, changepoint_confirm) brought that to 1 % but found a 3 % step in
 * real-machine noise within 3 nights in only 65 % of histories.  The rule
 * now is a sequential test at the end of the history:
 *   - candidates: the first bad nights among the last `horizon` (4);
 *     each is tested against its baseline, the nights before it (at most
 *     `window`, 30; never before the row's last regression, `since`; from
 *     the last change point E-divisive finds in the window, so that an
 *     old level left behind is no baseline);
 *   - the statistic: the difference of the two segments' boot means in
 *     the bad direction over its standard error, the variance being
 *     boot-to-boot (within nights, pooled over the nights judged) plus
 *     night-to-night where the baseline shows it (an F test at 5 %):
 *     boots of one night share its machine state and cannot outvote it;
 *     one-sided p from Student's t;
 *   - robustness: each night's boots are clipped to its median +- 4
 *     robust sigmas of the baseline (1.4826 MAD): one boot made of two
 *     slow runs of three moves its night by little (clipping whole
 *     segments instead dated a change a night early: a segment may mix
 *     two levels, a night may not);
 *   - the decision: the candidate with the largest statistic; it opens at
 *     p <= open_p (1e-5; 1e-8 while its baseline has fewer than
 *     min_nights, 5, nights) with a min_effect (1.5 %) change and at
 *     least min_after (6) boots after it; at p <= suspect_p (0.1) it is
 *     suspect and the daemon boots tonight's kernel more (up to [track]
 *     max_boots, 9), then judges again; no earlier candidate opens in the
 *     likelier one's place because the latter has too few boots yet;
 *   - the range: every candidate whose z^2 is within loc_margin (4) of
 *     the best is a likely first bad night; the regression covers them
 *     all and the bisect searches their commits (a 3 % step in 3 % noise
 *     is often dated a night off; ranges average 1.2 nights).
 * Figures (make bench-changepoint, 1000 histories a line, re-run after
 * every night the way track.c runs it; real-machine model: 3 rows sharing
 * boots, 1-3 % boot noise, 2-5 % of runs 10-20 % slow, 3 runs a boot):
 * flat 0.6 % of metrics open a regression (target <= 1 %); a 3 % step
 * found (its night in the range) by night s+3 in 95.6 %, a 5 % step by
 * s+2 in 99 %; emulator model (0.3 %): flat 0 %, steps 99 % on their
 * night.  The cost: 4.6 boots a night on average instead of 3 on the real
 * model (suspect nights boot more), 3.0 on the emulator's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/changepoint.h"
#include "lib/xalloc.h"

void
changepoint_opts_init(struct changepoint_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = CHANGEPOINT_DEFAULT_ALPHA;
	o->permutations = CHANGEPOINT_DEFAULT_PERMS;
	o->min_effect = CHANGEPOINT_DEFAULT_MIN_EFFECT;
	o->min_boots = 2;
	o->seed = 1;
	o->confirm = CHANGEPOINT_DEFAULT_CONFIRM;
	o->horizon = CHANGEPOINT_DEFAULT_HORIZON;
	o->open_p = CHANGEPOINT_DEFAULT_OPEN_P;
	o->suspect_p = CHANGEPOINT_DEFAULT_SUSPECT_P;
	o->window = CHANGEPOINT_DEFAULT_WINDOW;
	o->min_nights = CHANGEPOINT_DEFAULT_MIN_NIGHTS;
	o->min_after = CHANGEPOINT_DEFAULT_MIN_AFTER;
	o->loc_margin = CHANGEPOINT_DEFAULT_LOC_MARGIN;
	o->early_cv = CHANGEPOINT_DEFAULT_EARLY_CV;
}

/*
 * The largest Q over the allowed cuts of x[0..n): cut[k] boots on the
 * left.  Returns the index k of the best cut (or -1 if none), *qmax its Q.
 */
static int
cp_best_cut(const double *x, size_t n, const size_t *cut, size_t ncut,
    double *qmax)
{
	double wl = 0, wr = 0, tot, b, q, l, r;
	size_t s, i, k = 0;
	int best = -1;

	/* within-R sum of the whole segment (everything starts on the right) */
	for (s = 0; s < n; s++)
		for (i = s + 1; i < n; i++)
			wr += fabs(x[s] - x[i]);
	tot = wr;
	*qmax = -INFINITY;
	for (s = 0; s < n && k < ncut; s++) {
		if (s == cut[k]) {
			double m = (double)s, rr = (double)(n - s);

			b = tot - wl - wr;
			q = m * rr / (m + rr) * (2 * b / (m * rr) -
			    (m > 1 ? wl / (m * (m - 1) / 2) : 0) -
			    (rr > 1 ? wr / (rr * (rr - 1) / 2) : 0));
			if (q > *qmax) {
				*qmax = q;
				best = (int)k;
			}
			k++;
		}
		/* move boot s from R to L */
		l = r = 0;
		for (i = 0; i < s; i++)
			l += fabs(x[s] - x[i]);
		for (i = s + 1; i < n; i++)
			r += fabs(x[s] - x[i]);
		wl += l;
		wr -= r;
	}
	return best;
}

/* Permutation p-value of qobs for x[0..n) (x is shuffled in place). */
static double
cp_perm_p(gsl_rng *rng, double *x, size_t n, const size_t *cut, size_t ncut,
    double qobs, const struct changepoint_opts *o)
{
	int P = o->permutations > 0 ? o->permutations : 1, i, ge = 0;
	/* p <= alpha needs ge + 1 <= alpha * (P + 1) */
	double limit = o->alpha * (P + 1) - 1;
	double q;

	for (i = 0; i < P; i++) {
		gsl_ran_shuffle(rng, x, n, sizeof(*x));
		cp_best_cut(x, n, cut, ncut, &q);
		if (q >= qobs * (1 - 1e-12))
			ge++;
		if (ge > limit)
			return (double)(ge + 1) / (i + 2);
	}
	return (double)(ge + 1) / (P + 1);
}

struct cp_split {
	size_t	 night;
	double	 p;
};

struct cp_work {
	const double *v;
	const size_t *start;
	const struct changepoint_opts *o;
	gsl_rng	*rng;
	double	*scratch;
	size_t	*cut, *cutnight;
	struct cp_split *splits;
	size_t	 nsplits;
};

/* Searches nights [a, b) for one split; recurses into both halves. */
static void
cp_segment(struct cp_work *w, size_t a, size_t b, int depth)
{
	size_t s0 = w->start[a], n = w->start[b] - s0, ncut = 0, j, night;
	size_t mb = w->o->min_boots ? w->o->min_boots : 1;
	double q, p;
	int k;

	if (b - a < 2 || n < 2 * mb || depth > 64)
		return;
	for (j = a + 1; j < b; j++) {
		size_t pos = w->start[j] - s0;

		if (w->start[j] == w->start[j + 1])
			continue;	/* an empty night starts nothing */
		if (pos < mb || n - pos < mb)
			continue;
		w->cut[ncut] = pos;
		w->cutnight[ncut++] = j;
	}
	if (!ncut)
		return;
	k = cp_best_cut(w->v + s0, n, w->cut, ncut, &q);
	if (k < 0 || !(q > 0))
		return;
	night = w->cutnight[k];
	memcpy(w->scratch, w->v + s0, n * sizeof(double));
	p = cp_perm_p(w->rng, w->scratch, n, w->cut, ncut, q, w->o);
	if (p > w->o->alpha)
		return;
	w->splits[w->nsplits].night = night;
	w->splits[w->nsplits++].p = p;
	cp_segment(w, a, night, depth + 1);
	cp_segment(w, night, b, depth + 1);
}

static int
cp_split_cmp(const void *a, const void *b)
{
	const struct cp_split *x = a, *y = b;

	return x->night < y->night ? -1 : x->night > y->night;
}

static void
cp_mean_var(const double *x, size_t n, double *mean, double *var)
{
	double m = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m += x[i];
	m /= n;
	for (i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	*mean = m;
	*var = n > 1 ? ss / (n - 1) : 0;
}

/* Fills c's sizes from boots [a0, a1) before and [a1, a2) after. */
static void
cp_measure(const double *v, size_t a0, size_t a1, size_t a2,
    struct changepoint *c)
{
	double ma, va, mb, vb, na = a1 - a0, nb = a2 - a1, se, df, t;

	cp_mean_var(v + a0, a1 - a0, &ma, &va);
	cp_mean_var(v + a1, a2 - a1, &mb, &vb);
	c->nboots_before = a1 - a0;
	c->nboots_after = a2 - a1;
	c->mean_before = ma;
	c->mean_after = mb;
	c->pct_change = ma != 0 ? 100 * (mb / ma - 1) : NAN;
	se = sqrt(va / na + vb / nb);
	if (se > 0 && ma != 0) {
		double u = va / na, w = vb / nb;

		df = (u + w) * (u + w) / ((na > 1 ? u * u / (na - 1) : 0) +
		    (nb > 1 ? w * w / (nb - 1) : 0));
		if (!(df >= 1))
			df = 1;
		t = gsl_cdf_tdist_Pinv(0.975, df);
		c->ci_lo = 100 * (mb - ma - t * se) / ma;
		c->ci_hi = 100 * (mb - ma + t * se) / ma;
	} else {
		c->ci_lo = c->ci_hi = c->pct_change;
	}
}

static int
cp_check(const double *v, const size_t *start, size_t nnights, char *err,
    size_t errsz)
{
	size_t i;

	if (start[0] != 0) {
		snprintf(err, errsz, "history: the first night must start "
		    "at boot 0");
		return -1;
	}
	for (i = 0; i < nnights; i++)
		if (start[i + 1] < start[i]) {
			snprintf(err, errsz, "history: night %zu ends before "
			    "it starts", i);
			return -1;
		}
	if (start[nnights] > CHANGEPOINT_MAX_BOOTS) {
		snprintf(err, errsz, "history: %zu boots, at most %d",
		    start[nnights], CHANGEPOINT_MAX_BOOTS);
		return -1;
	}
	for (i = 0; i < start[nnights]; i++)
		if (!isfinite(v[i])) {
			snprintf(err, errsz, "history: boot %zu is not a "
			    "finite number", i);
			return -1;
		}
	return 0;
}

/*
 * The start of an analysis: *opts the defaults (in def) when NULL, and
 * the history checked.  0 to go on, 1 when there is nothing to judge (no
 * nights), -1 on bad input (err).
 */
static int
cp_begin(const double *v, const size_t *start, size_t nnights,
    const struct changepoint_opts **opts, struct changepoint_opts *def,
    char *err, size_t errsz)
{
	if (!*opts) {
		changepoint_opts_init(def);
		*opts = def;
	}
	if (nnights == 0)
		return 1;
	return cp_check(v, start, nnights, err, errsz) < 0 ? -1 : 0;
}

int
changepoint_detect(const double *v, const size_t *start, size_t nnights,
    const struct changepoint_opts *opts, struct changepoint **out,
    size_t *nout, char *err, size_t errsz)
{
	struct changepoint_opts def;
	struct cp_work w;
	size_t i, N, prev, next;
	int rc;

	*out = NULL;
	*nout = 0;
	if ((rc = cp_begin(v, start, nnights, &opts, &def, err, errsz)) != 0)
		return rc < 0 ? -1 : 0;
	N = start[nnights];
	memset(&w, 0, sizeof(w));
	w.v = v;
	w.start = start;
	w.o = opts;
	w.rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(w.rng, opts->seed);
	w.scratch = xcalloc(N + 1, sizeof(double));
	w.cut = xcalloc(nnights + 1, sizeof(size_t));
	w.cutnight = xcalloc(nnights + 1, sizeof(size_t));
	w.splits = xcalloc(nnights + 1, sizeof(*w.splits));
	cp_segment(&w, 0, nnights, 0);
	qsort(w.splits, w.nsplits, sizeof(*w.splits), cp_split_cmp);
	*out = xcalloc(w.nsplits + 1, sizeof(**out));
	for (i = 0; i < w.nsplits; i++) {
		struct changepoint c;

		prev = i ? start[w.splits[i - 1].night] : 0;
		next = i + 1 < w.nsplits ? start[w.splits[i + 1].night] : N;
		memset(&c, 0, sizeof(c));
		c.night = w.splits[i].night;
		c.p_value = w.splits[i].p;
		cp_measure(v, prev, start[c.night], next, &c);
		if (isfinite(c.pct_change) &&
		    fabs(c.pct_change) >= opts->min_effect)
			(*out)[(*nout)++] = c;
	}
	gsl_rng_free(w.rng);
	free(w.scratch);
	free(w.cut);
	free(w.cutnight);
	free(w.splits);
	return 0;
}

int
changepoint_is_regression(const struct changepoint *c, int better,
    double min_effect)
{
	if (!isfinite(c->pct_change) || fabs(c->pct_change) < min_effect)
		return 0;
	return better >= 0 ? c->pct_change < 0 : c->pct_change > 0;
}

/* The regression of an at night, or NULL. */
static const struct changepoint *
cp_find(const struct changepoint *an, size_t n, size_t night, int better,
    double min_effect)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (an[i].night == night &&
		    changepoint_is_regression(&an[i], better, min_effect))
			return &an[i];
	return NULL;
}

void
changepoint_confirm(struct changepoint *const *an, const size_t *nan,
    size_t nnights, const struct changepoint_opts *o, int better,
    struct changepoint **out, size_t *nout)
{
	size_t K = o->confirm > 1 ? (size_t)o->confirm : 1, i, j;

	*out = xcalloc(nan[0] + 1, sizeof(**out));
	*nout = 0;
	if (nnights < K)
		return;
	for (i = 0; i < nan[0]; i++) {
		const struct changepoint *c = &an[0][i];

		if (!changepoint_is_regression(c, better, o->min_effect))
			continue;
		/* seen on confirm nights: the last of them is its own */
		if (c->night + K > nnights)
			continue;
		if (o->horizon > 0 && c->night + (size_t)o->horizon < nnights)
			continue;
		for (j = 1; j < K; j++)
			if (!cp_find(an[j], nan[j], c->night, better,
			    o->min_effect))
				break;
		if (j == K)
			(*out)[(*nout)++] = *c;
	}
}

int
changepoint_nightly(const double *v, const size_t *start, size_t nnights,
    const struct changepoint_opts *opts, int better,
    struct changepoint **out, size_t *nout, char *err, size_t errsz)
{
	struct changepoint_opts def;
	struct changepoint **an;
	size_t *nan, K, j;
	int rc = -1;

	if (!opts) {
		changepoint_opts_init(&def);
		opts = &def;
	}
	K = opts->confirm > 1 ? (size_t)opts->confirm : 1;
	*out = NULL;
	*nout = 0;
	an = xcalloc(K, sizeof(*an));
	nan = xcalloc(K, sizeof(*nan));
	for (j = 0; j < K && j < nnights; j++)
		if (changepoint_detect(v, start, nnights - j, opts, &an[j],
		    &nan[j], err, errsz) != 0)
			goto out;
	changepoint_confirm(an, nan, nnights, opts, better, out, nout);
	rc = 0;
out:
	for (j = 0; j < K; j++)
		free(an[j]);
	free(an);
	free(nan);
	return rc;
}

/* ---- the online rule ------------------------------------------------------ */

/*
 * Sums of nights [a, b): boots, boot-weighted mean, nights with boots, the
 * mean of 1/n over those nights, the variance of their night means, and
 * the within-night sum of squares with its degrees of freedom.
 */
struct cp_sums {
	size_t	 boots, nights;
	double	 mean, inv_n, var_nights, ss_within;
	size_t	 df_within;
};

static void
cp_sums(const double *v, const size_t *start, size_t a, size_t b,
    struct cp_sums *s)
{
	double sum = 0, nm_sum = 0, nm_ss = 0;
	size_t i, k;

	memset(s, 0, sizeof(*s));
	for (i = a; i < b; i++) {
		size_t n = start[i + 1] - start[i];
		double m = 0;

		if (!n)
			continue;
		for (k = start[i]; k < start[i + 1]; k++)
			m += v[k];
		sum += m;
		m /= n;
		for (k = start[i]; k < start[i + 1]; k++)
			s->ss_within += (v[k] - m) * (v[k] - m);
		s->df_within += n - 1;
		s->boots += n;
		s->nights++;
		s->inv_n += 1.0 / n;
		nm_sum += m;
		nm_ss += m * m;
	}
	if (!s->nights)
		return;
	s->mean = sum / s->boots;
	s->inv_n /= s->nights;
	if (s->nights > 1) {
		double nm = nm_sum / s->nights;

		s->var_nights = (nm_ss - s->nights * nm * nm) /
		    (s->nights - 1);
		if (s->var_nights < 0)
			s->var_nights = 0;
	}
}

/*
 * One candidate: baseline nights [b0, c), after [c, n).  Fills the alarm's
 * figures (one-sided p in the bad direction).  0, or -1 when the segments
 * cannot be judged (no boots, no spread).
 */
static int
cp_dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of x[0..n) (x is sorted in place). */
static double
cp_median(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cp_dbl_cmp);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/*
 * Boots of w[a..b) (one night's, positions into w) clipped to med +- k s,
 * med their own median: a lone boot far from its night (two slow runs of
 * three, a boot on a bad node) moves the night by at most k s / n.  The
 * night is the unit: every boot of it ran the same kernel, where a segment
 * of nights may mix two levels.
 */
#define CP_CLIP_K	4.0

/* The factor on open_p for a candidate with a short baseline. */
#define CP_EARLY_P	1e-3

static void
cp_clip(double *w, size_t a, size_t b, double s, double *tmp)
{
	double med;
	size_t i;

	if (b <= a || !(s > 0))
		return;
	memcpy(tmp, w + a, (b - a) * sizeof(*w));
	med = cp_median(tmp, b - a);
	for (i = a; i < b; i++) {
		if (w[i] > med + CP_CLIP_K * s)
			w[i] = med + CP_CLIP_K * s;
		else if (w[i] < med - CP_CLIP_K * s)
			w[i] = med - CP_CLIP_K * s;
	}
}

/*
 * The test of candidate night c against the baseline nights b0..c.
 * early_cv > 0 (a baseline of fewer than min_nights nights): a night-to-
 * night spread estimated from so few nights is no measure at all.  Two
 * nights that happen to agree let one ordinary night open a regression
 * (a 2 % night spread did in 1.5 % of young histories); two that differ
 * give a t of one degree of freedom, which never reaches the early p
 * however large the change (t7500's -24 % stayed suspect).  The spread
 * is taken as the larger of its estimate and early_cv % of the mean, as
 * a known figure (normal quantiles).
 */
static int
cp_online_test(const double *v0, const size_t *start0, size_t b0, size_t c,
    size_t n, int better, double early_cv, struct changepoint_alarm *a)
{
	struct cp_sums B, A, all;
	double sw2, tau2 = 0, own, var_b, var_a, se, df, d, t, s, *v, *tmp;
	int known = 0;
	size_t nb = start0[c] - start0[b0], nv = start0[n] - start0[b0], i;
	size_t *start, b0_night = b0;

	if (!nb || nb == nv)
		return -1;
	/* a copy from b0 on, each night clipped around its own median at
	   CP_CLIP_K robust sigmas of the baseline (1.4826 MAD) */
	v = xmalloc(nv * sizeof(*v));
	tmp = xmalloc(nv * sizeof(*tmp));
	start = xmalloc((n - b0 + 1) * sizeof(*start));
	memcpy(v, v0 + start0[b0], nv * sizeof(*v));
	for (i = b0; i <= n; i++)
		start[i - b0] = start0[i] - start0[b0];
	memcpy(tmp, v, nb * sizeof(*v));
	s = cp_median(tmp, nb);
	for (i = 0; i < nb; i++)
		tmp[i] = fabs(v[i] - s);
	s = 1.4826 * cp_median(tmp, nb);
	for (i = 0; i < n - b0; i++)
		cp_clip(v, start[i], start[i + 1], s, tmp);
	c -= b0;
	n -= b0;
	b0 = 0;
	cp_sums(v, start, b0, c, &B);
	cp_sums(v, start, c, n, &A);
	cp_sums(v, start, b0, n, &all);
	free(v);
	free(tmp);
	free(start);
	if (B.nights < 2 || !A.boots || B.mean == 0)
		return -1;
	/* boot-to-boot variance: within nights, over every night judged
	   (none with one boot a night: the night means are all there is) */
	sw2 = all.df_within >= 2 ? all.ss_within / all.df_within : 0;
	if (sw2 == 0 && B.nights < 3)
		return -1;
	/*
	 * Night-to-night variance beyond what the boots explain, when the
	 * baseline shows one (F test at 5 %): nights that share a machine
	 * state (a firmware, a room temperature) cannot be outvoted by
	 * booting one night more.  Not always: an estimate of it from
	 * nights that share none costs the boots their weight (a 3 % step
	 * found by s+3 in 89 % of real-model histories instead of 98 %;
	 * make bench-changepoint).  The degrees of freedom are
	 * Satterthwaite's for the two variances.
	 */
	/* its estimate (one boot a night: the night means are all there
	   is) */
	own = sw2 > 0 ? B.var_nights - sw2 * B.inv_n : B.var_nights;
	if (sw2 > 0 && B.var_nights > 0) {
		double f = B.var_nights / (sw2 * B.inv_n);

		if (gsl_cdf_fdist_Q(f, (double)(B.nights - 1),
		    (double)all.df_within) < 0.05)
			tau2 = own;
	} else if (sw2 == 0) {
		tau2 = own;
	}
	if (tau2 < 0)
		tau2 = 0;
	if (early_cv > 0) {
		double floor = early_cv / 100 * B.mean;

		tau2 = own > floor * floor ? own : floor * floor;
		known = 1;
	}
	var_b = tau2 / B.nights + sw2 / B.boots;
	var_a = tau2 / A.nights + sw2 / A.boots;
	se = sqrt(var_b + var_a);
	if (!(se > 0))
		return -1;
	d = A.mean - B.mean;
	a->z = (better >= 0 ? -d : d) / se;
	if (tau2 == 0 || known) {
		df = all.df_within >= 2 ? (double)all.df_within :
		    (double)(B.nights - 1);
	} else {
		/* se^2 = c1 var_nights + c2 sw2 */
		double c1 = 1.0 / B.nights + 1.0 / A.nights,
		    c2 = 1.0 / B.boots + 1.0 / A.boots - c1 * B.inv_n,
		    t1 = c1 * B.var_nights, t2 = c2 * sw2;

		if (sw2 == 0 || all.df_within < 2)
			df = (double)(B.nights - 1);
		else
			df = (se * se) * (se * se) / (t1 * t1 /
			    (double)(B.nights - 1) + t2 * t2 /
			    (double)all.df_within);
	}
	if (df < 1)
		df = 1;
	a->c.night = c + b0_night;
	a->c.nboots_before = B.boots;
	a->c.nboots_after = A.boots;
	a->c.mean_before = B.mean;
	a->c.mean_after = A.mean;
	a->c.pct_change = 100 * (A.mean / B.mean - 1);
	t = known ? gsl_cdf_ugaussian_Pinv(0.975) :
	    gsl_cdf_tdist_Pinv(0.975, df);
	a->c.ci_lo = 100 * (d - t * se) / B.mean;
	a->c.ci_hi = 100 * (d + t * se) / B.mean;
	a->c.p_value = known ? gsl_cdf_ugaussian_Q(a->z) :
	    gsl_cdf_tdist_Q(a->z, df);
	a->base_night = b0_night;
	return 0;
}

int
changepoint_online(const double *v, const size_t *start, size_t nnights,
    size_t since, const struct changepoint_opts *opts, int better,
    struct changepoint_alarm *out, char *err, size_t errsz)
{
	struct changepoint_opts def;
	size_t H, W, M, lo, w0, b0, c;
	double *zc, open_p;
	int best = 0, rc;

	memset(out, 0, sizeof(*out));
	if ((rc = cp_begin(v, start, nnights, &opts, &def, err, errsz)) != 0)
		return rc < 0 ? -1 : 0;
	H = opts->horizon > 0 ? (size_t)opts->horizon : 1;
	W = opts->window > 0 ? (size_t)opts->window : nnights;
	M = opts->min_nights > 1 ? (size_t)opts->min_nights : 2;
	lo = nnights > H ? nnights - H : 0;
	if (lo < since)
		lo = since;
	/* the baseline: the window before the candidates, from its last
	   change point on (a level the history has since left) */
	w0 = lo > W ? lo - W : 0;
	if (w0 < since)
		w0 = since;
	b0 = w0;
	if (lo > w0 + 2 * M) {
		struct changepoint *cp = NULL;
		size_t ncp = 0, k, j, nn = 0;
		double *nm = xcalloc(lo - w0, sizeof(*nm));
		size_t *st = xcalloc(lo - w0 + 1, sizeof(*st));
		size_t *at = xcalloc(lo - w0, sizeof(*at));

		/* over the nights' means, each night one value: a search
		   over boots takes a night that shared a machine state for a
		   level change, and the baseline from there on is the nights
		   picked for being off (a flat metric with 0.5-2 % a night
		   opened twice as often) */
		for (k = w0; k < lo; k++) {
			if (start[k] == start[k + 1])
				continue;
			for (j = start[k]; j < start[k + 1]; j++)
				nm[nn] += v[j];
			nm[nn] /= (double)(start[k + 1] - start[k]);
			st[nn] = nn;
			at[nn++] = k;
		}
		st[nn] = nn;
		if (nn > 2 * M && changepoint_detect(nm, st, nn, opts, &cp,
		    &ncp, err, errsz) == 0 && ncp)
			b0 = at[cp[ncp - 1].night];
		free(cp);
		free(st);
		free(nm);
		free(at);
	}
	/*
	 * The candidate is the first bad night the data points to most
	 * surely (the largest statistic); only it may open.  An earlier
	 * night never opens in its place because the likelier one has too
	 * few boots yet: that would date the change a night early.
	 */
	zc = xcalloc(nnights - lo + 1, sizeof(*zc));
	for (c = lo; c < nnights; c++) {
		struct changepoint_alarm a;

		memset(&a, 0, sizeof(a));
		zc[c - lo] = NAN;
		if (c < b0 + 2 || start[c] == start[c + 1])
			continue;
		if (cp_online_test(v, start, b0, c, nnights, better, 0,
		    &a) < 0)
			continue;
		zc[c - lo] = a.z;
		if (!best || a.z > out->z) {
			*out = a;
			best = 1;
		}
	}
	/* where the change may have started: every candidate about as
	   likely as the best (a 3 % step in 3 % noise is often dated a
	   night off; the bisect then covers both nights' commits) */
	if (best) {
		out->night_lo = out->night_hi = out->c.night;
		for (c = lo; c < nnights; c++) {
			double zz = zc[c - lo];

			if (isnan(zz) || zz <= 0 || out->z * out->z - zz * zz >
			    opts->loc_margin)
				continue;
			if (c < out->night_lo)
				out->night_lo = c;
			if (c > out->night_hi)
				out->night_hi = c;
		}
	}
	free(zc);
	/* a short baseline: its night spread at least opts->early_cv */
	if (best && out->c.night < b0 + M && opts->early_cv > 0) {
		struct changepoint_alarm e;
		size_t nlo = out->night_lo, nhi = out->night_hi;

		memset(&e, 0, sizeof(e));
		if (cp_online_test(v, start, b0, out->c.night, nnights,
		    better, opts->early_cv, &e) == 0) {
			*out = e;
			out->night_lo = nlo;
			out->night_hi = nhi;
		}
	}
	if (!best || !changepoint_is_regression(&out->c, better,
	    opts->min_effect / 2)) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	/* a baseline of fewer than min_nights nights shows no
	   night-to-night spread: it opens only on overwhelming evidence */
	open_p = opts->open_p;
	if (out->c.night < b0 + M)
		open_p *= CP_EARLY_P;
	if (out->c.p_value <= open_p && out->c.nboots_after >=
	    (size_t)(opts->min_after > 0 ? opts->min_after : 1) &&
	    changepoint_is_regression(&out->c, better, opts->min_effect))
		out->state = CHANGEPOINT_OPEN;
	else if (out->c.p_value <= opts->suspect_p)
		out->state = CHANGEPOINT_SUSPECT;
	else
		memset(out, 0, sizeof(*out));
	return 0;
}
