/*
 * svg: inline SVG charts for the result page (see svg.h).
 *
 * The page embeds the SVG in HTML, so the HTML escaping rules apply to
 * every text node and attribute; outside text only ever reaches the
 * output through html_txt.  Coordinates are our own numbers, printed with
 * one decimal.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/svg.h"
#include "lib/xalloc.h"

/* Plot margins, in pixels: room for tick labels, title and axis labels. */
#define SVG_ML	58
#define SVG_MR	12
#define SVG_MT	34
#define SVG_MB	36

/* Fallback colours (when web/style.css is not loaded, e.g. a saved page). */
static const char *const svg_colour[2] = { "#2f6db5", "#d9731a" };

double
svg_nice_step(double range, int nticks)
{
	double raw, mag, f;

	if (!isfinite(range) || range <= 0 || nticks < 1)
		return 1;
	raw = range / nticks;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	if (f < 1.5)
		f = 1;
	else if (f < 3)
		f = 2;
	else if (f < 7)
		f = 5;
	else
		f = 10;
	return f * mag;
}

void
svg_num(char *out, size_t sz, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(out, sz, "-");
	else if (a >= 1e9)
		snprintf(out, sz, "%.3gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(out, sz, "%.3gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(out, sz, "%.3gk", v / 1e3);
	else
		snprintf(out, sz, "%.4g", v);
}

struct svg_range {
	double	 lo, hi;
	int	 any;
};

static void
svg_range_add(struct svg_range *r, double v)
{
	if (!isfinite(v))
		return;
	if (!r->any || v < r->lo)
		r->lo = v;
	if (!r->any || v > r->hi)
		r->hi = v;
	r->any = 1;
}

/* Widens a degenerate or empty range so the axis has a span. */
static void
svg_range_fix(struct svg_range *r, int zero, int integer)
{
	double pad;

	if (!r->any) {
		r->lo = 0;
		r->hi = 1;
		return;
	}
	if (zero && r->lo > 0)
		r->lo = 0;
	if (r->hi - r->lo <= 0) {
		pad = fabs(r->hi) > 0 ? fabs(r->hi) * 0.05 : 1;
		if (integer && pad < 1)
			pad = 1;
		r->lo -= pad;
		r->hi += pad;
		if (zero && r->lo < 0 && r->hi > 0)
			r->lo = 0;
	} else if (!integer) {
		pad = (r->hi - r->lo) * 0.08;
		if (!(zero && r->lo == 0))
			r->lo -= pad;
		r->hi += pad;
	} else {
		r->lo -= 0.5;
		r->hi += 0.5;
	}
}

/* Most ticks on an axis: a nice step gives about 4 to 12 of them; more
   means the step is below the spacing of doubles at these values. */
#define SVG_MAX_TICKS	32

/*
 * The ticks of [lo, hi] every step: the first in *t0, the count returned
 * (at most SVG_MAX_TICKS; 0 when nothing finite fits).  Tick i is
 * t0 + i * step, computed from i, never accumulated: near 1e18 a step of 50
 * added to t leaves t unchanged, and a loop on t never ends.
 */
static int
svg_ticks(double lo, double hi, double step, double *t0)
{
	double n;

	*t0 = ceil(lo / step) * step;
	if (!isfinite(*t0) || !isfinite(hi) || !(step > 0))
		return 0;
	n = floor((hi + step * 1e-9 - *t0) / step) + 1;
	if (!isfinite(n) || n < 1)
		return 0;
	return n > SVG_MAX_TICKS ? SVG_MAX_TICKS : (int)n;
}

struct svg_xy {
	double	 x, y;
};

static int
svg_cmp_xy(const void *a, const void *b)
{
	const struct svg_xy *p = a, *q = b;

	return (p->x > q->x) - (p->x < q->x);
}

/* The frame of one chart: its size, the plot area, the ranges and the
   scales that map data to pixels. */
struct svg_frame {
	const struct svg_chart *c;
	int	 w, h;
	double	 pw, ph;		/* plot width and height */
	struct svg_range xr, yr;
	double	 sx, sy;
};

static double
svg_x(const struct svg_frame *f, double v)
{
	return SVG_ML + (v - f->xr.lo) * f->sx;
}

static double
svg_y(const struct svg_frame *f, double v)
{
	return SVG_MT + f->ph - (v - f->yr.lo) * f->sy;
}

/* Sizes the frame and fits the ranges to every finite point and mean. */
static void
svg_frame_init(struct svg_frame *f, const struct svg_chart *c)
{
	f->c = c;
	f->w = c->width > 0 ? c->width : 420;
	f->h = c->height > 0 ? c->height : 220;
	f->pw = f->w - SVG_ML - SVG_MR;
	f->ph = f->h - SVG_MT - SVG_MB;
	memset(&f->xr, 0, sizeof(f->xr));
	memset(&f->yr, 0, sizeof(f->yr));
	for (size_t i = 0; i < c->nseries; i++) {
		const struct svg_series *s = &c->series[i];

		for (size_t k = 0; k < s->n; k++)
			if (isfinite(s->x[k]) && isfinite(s->y[k])) {
				svg_range_add(&f->xr, s->x[k]);
				svg_range_add(&f->yr, s->y[k]);
			}
		if (isfinite(s->mean) && s->n)
			svg_range_add(&f->yr, s->mean);
	}
	svg_range_fix(&f->xr, 0, c->x_integer);
	svg_range_fix(&f->yr, c->y_zero, 0);
	f->sx = f->pw / (f->xr.hi - f->xr.lo);
	f->sy = f->ph / (f->yr.hi - f->yr.lo);
}

/* The <svg> element, its title, the plot's background and the titles. */
static void
svg_head(struct buf *b, const struct svg_frame *f)
{
	const struct svg_chart *c = f->c;

	buf_addf(b, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
	    "aria-label=\"", f->w, f->h, f->w, f->h);
	html_attr(b, c->title);
	buf_addstr(b, "\">\n<title>");
	html_txt(b, c->title);
	buf_addstr(b, "</title>\n");
	buf_addf(b, "<rect class=\"svg-bg\" x=\"%d\" y=\"%d\" width=\"%.1f\" "
	    "height=\"%.1f\" fill=\"#fff\" stroke=\"#ccc\"/>\n", SVG_ML,
	    SVG_MT, f->pw, f->ph);
	buf_addstr(b, "<text class=\"svg-title\" x=\"6\" y=\"14\" "
	    "font-size=\"12\" font-weight=\"bold\">");
	html_txt(b, c->title);
	buf_addstr(b, "</text>\n");
	if (c->subtitle) {
		buf_addstr(b, "<text class=\"svg-subtitle\" x=\"6\" y=\"27\" "
		    "font-size=\"10\" fill=\"#666\">");
		html_txt(b, c->subtitle);
		buf_addstr(b, "</text>\n");
	}
}

/* The y ticks with their grid lines, the x ticks, and the axis labels. */
static void
svg_axes(struct buf *b, const struct svg_frame *f)
{
	const struct svg_chart *c = f->c;
	double step, t, t0;
	char num[32];
	int nt;

	/* y ticks and grid */
	step = svg_nice_step(f->yr.hi - f->yr.lo, 4);
	nt = svg_ticks(f->yr.lo, f->yr.hi, step, &t0);
	for (int ti = 0; ti < nt; ti++) {
		t = t0 + ti * step;
		svg_num(num, sizeof(num), fabs(t) < step * 1e-9 ? 0 : t);
		buf_addf(b, "<line class=\"svg-grid\" x1=\"%d\" x2=\"%.1f\" "
		    "y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
		    "<text x=\"%d\" y=\"%.1f\" font-size=\"10\" "
		    "text-anchor=\"end\">%s</text>\n", SVG_ML, SVG_ML + f->pw,
		    svg_y(f, t), svg_y(f, t), SVG_ML - 4, svg_y(f, t) + 3, num);
	}
	/* x ticks */
	step = svg_nice_step(f->xr.hi - f->xr.lo, 6);
	if (c->x_integer && step < 1)
		step = 1;
	nt = svg_ticks(f->xr.lo, f->xr.hi, step, &t0);
	for (int ti = 0; ti < nt; ti++) {
		t = t0 + ti * step;
		svg_num(num, sizeof(num), fabs(t) < step * 1e-9 ? 0 : t);
		buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
		    "text-anchor=\"middle\">%s</text>\n", svg_x(f, t),
		    SVG_MT + f->ph + 13, num);
	}
	if (c->xlabel) {
		buf_addf(b, "<text class=\"svg-label\" x=\"%.1f\" y=\"%d\" "
		    "font-size=\"10\" text-anchor=\"middle\">",
		    SVG_ML + f->pw / 2, f->h - 6);
		html_txt(b, c->xlabel);
		buf_addstr(b, "</text>\n");
	}
	if (c->ylabel) {
		buf_addf(b, "<text class=\"svg-label\" x=\"10\" y=\"%.1f\" "
		    "font-size=\"10\" text-anchor=\"middle\" "
		    "transform=\"rotate(-90 10 %.1f)\">", SVG_MT + f->ph / 2,
		    SVG_MT + f->ph / 2);
		html_txt(b, c->ylabel);
		buf_addstr(b, "</text>\n");
	}
}

/* One series: its mean line, its line through the points sorted by x,
   its dots.  Returns the number of finite points drawn. */
static int
svg_series_draw(struct buf *b, const struct svg_frame *f,
    const struct svg_series *s)
{
	int side = s->side ? 1 : 0;
	struct svg_xy *p = xcalloc(s->n ? s->n : 1, sizeof(*p));
	size_t k, npts;

	for (k = npts = 0; k < s->n; k++)
		if (isfinite(s->x[k]) && isfinite(s->y[k])) {
			p[npts].x = s->x[k];
			p[npts].y = s->y[k];
			npts++;
		}
	buf_addf(b, "<g class=\"svg-%c\">\n", side ? 'b' : 'a');
	if (isfinite(s->mean) && npts)
		buf_addf(b, "<line class=\"svg-mean\" x1=\"%d\" "
		    "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		    "stroke-dasharray=\"5 3\"/>\n", SVG_ML, SVG_ML + f->pw,
		    svg_y(f, s->mean), svg_y(f, s->mean), svg_colour[side]);
	if (s->line && npts > 1) {
		qsort(p, npts, sizeof(*p), svg_cmp_xy);
		buf_addf(b, "<polyline fill=\"none\" stroke=\"%s\" "
		    "stroke-width=\"1.5\" points=\"", svg_colour[side]);
		for (k = 0; k < npts; k++)
			buf_addf(b, "%s%.1f,%.1f", k ? " " : "",
			    svg_x(f, p[k].x), svg_y(f, p[k].y));
		buf_addstr(b, "\"/>\n");
	}
	if (s->dots)
		for (k = 0; k < npts; k++) {
			/* base dots left of the tick, patched right,
			   so the two sides never hide each other */
			double dx = f->c->x_integer && !s->line ?
			    (side ? 3 : -3) : 0;

			buf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" "
			    "r=\"3\" fill=\"%s\"/>\n", svg_x(f, p[k].x) + dx,
			    svg_y(f, p[k].y), svg_colour[side]);
		}
	buf_addstr(b, "</g>\n");
	free(p);
	return (int)npts;
}

/* The legend, right-aligned below the plot (the title line may be long). */
static void
svg_legend(struct buf *b, const struct svg_frame *f)
{
	const struct svg_chart *c = f->c;
	int legend_x = f->w - SVG_MR;

	for (size_t i = c->nseries; i-- > 0;) {
		const struct svg_series *s = &c->series[i];
		int side = s->side ? 1 : 0;
		size_t len = s->label ? strlen(s->label) : 0;

		if (!s->label)
			continue;
		if (len > 24)
			len = 24;
		buf_addf(b, "<text x=\"%d\" y=\"%d\" font-size=\"10\" "
		    "text-anchor=\"end\" fill=\"%s\">", legend_x, f->h - 6,
		    svg_colour[side]);
		html_txt(b, s->label);
		buf_addstr(b, "</text>\n");
		legend_x -= (int)(len * 6 + 16);
	}
}

int
svg_chart(struct buf *b, const struct svg_chart *c)
{
	struct svg_frame f;
	int drawn = 0;

	svg_frame_init(&f, c);
	svg_head(b, &f);
	svg_axes(b, &f);
	for (size_t i = 0; i < c->nseries; i++)
		drawn += svg_series_draw(b, &f, &c->series[i]);
	svg_legend(b, &f);
	if (!drawn)
		buf_addf(b, "<text class=\"svg-nodata\" x=\"%.1f\" y=\"%.1f\" "
		    "font-size=\"12\" text-anchor=\"middle\" fill=\"#888\">"
		    "no data</text>\n", SVG_ML + f.pw / 2, SVG_MT + f.ph / 2);
	buf_addstr(b, "</svg>\n");
	return drawn;
}
