/*
 * svg: small charts rendered by the server as inline SVG (no JavaScript,
 * no library), for the result page: per-boot means of both sides of a
 * comparison, and scaling curves (metric vs task count).
 *
 * A chart is a plot area with axes and "nice" ticks, and a few series, each
 * drawn as dots and/or a polyline, with an optional horizontal line (a
 * side's mean).  Every piece of outside text (titles, labels, legends) goes
 * through html_txt; numbers that are not finite are never drawn or printed
 * (a chart with nothing finite says "no data").  Colours are CSS classes
 * (svg-a for the base side, svg-b for the patched side) set in
 * web/style.css, with fallback attributes so the chart reads without CSS.
 */
#ifndef KPERFCI_SVG_H
#define KPERFCI_SVG_H

#include <stddef.h>

#include "lib/buf.h"

struct svg_series {
	const char *label;		/* legend text (outside text: escaped) */
	int	 side;			/* 0: base (svg-a), 1: patched (svg-b) */
	const double *x, *y;		/* n points; non-finite ones skipped */
	size_t	 n;
	int	 dots;			/* draw a dot per point */
	int	 line;			/* join the points (sorted by x) */
	double	 mean;			/* horizontal line at y, NAN: none */
};

struct svg_chart {
	const char *title;		/* outside text */
	const char *xlabel, *ylabel;	/* outside text, may be NULL */
	int	 width, height;		/* pixels; 0: 360 x 200 */
	int	 x_integer;		/* x ticks on whole numbers only */
	int	 y_zero;		/* the y axis starts at 0 */
	const struct svg_series *series;
	size_t	 nseries;
	const char *subtitle;		/* a second, smaller title line (outside
					   text), or NULL */
};

/*
 * Appends one <svg> element (role="img", class "chart") for c to b.
 * Returns the number of points drawn (0: the chart says "no data").
 */
int	svg_chart(struct buf *b, const struct svg_chart *c);

/*
 * A "nice" tick step (1, 2 or 5 times a power of ten) giving about nticks
 * intervals over range; range <= 0 or not finite gives 1.  For tests.
 */
double	svg_nice_step(double range, int nticks);

/*
 * A compact axis label: "1.25M", "350k", "0.25", "12"; "-" when v is not
 * finite.  out has room for sz bytes (16 is enough).
 */
void	svg_num(char *out, size_t sz, double v);

#endif
