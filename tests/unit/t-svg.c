/*
 * Unit tests for core/svg.c: tick steps and labels, escaping of outside
 * text, the NaN guard, degenerate data (no point, one point, equal
 * values), and that every drawn point lies inside the chart.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/svg.h"
#include "lib/buf.h"
#include "tests/unit/tap.h"

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;
	const char *p = hay;

	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

/* Every circle's centre inside [0, w] x [0, h]; returns how many. */
static int
circles_inside(const char *svg, int w, int h, int *outside)
{
	const char *p = svg;
	double cx, cy;
	int n = 0;

	*outside = 0;
	while ((p = strstr(p, "<circle cx=\""))) {
		if (sscanf(p, "<circle cx=\"%lf\" cy=\"%lf\"", &cx, &cy) != 2) {
			(*outside)++;
			break;
		}
		if (!(cx >= 0 && cx <= w && cy >= 0 && cy <= h))
			(*outside)++;
		n++;
		p++;
	}
	return n;
}

/* No number that is not finite made it into the text. */
static int
no_nonfinite(const char *s)
{
	return !strstr(s, "nan") && !strstr(s, "NaN") && !strstr(s, "inf");
}

static void
test_nice_step(void)
{
	ok(svg_nice_step(10, 5) == 2, "nice step 10/5 = 2");
	ok(fabs(svg_nice_step(1, 4) - 0.2) < 1e-12, "nice step 1/4 = 0.2");
	ok(svg_nice_step(700000, 4) == 200000, "nice step 700k/4 = 200k");
	ok(svg_nice_step(9, 1) == 10, "nice step 9/1 = 10");
	ok(svg_nice_step(0, 4) == 1, "zero range gives 1");
	ok(svg_nice_step(NAN, 4) == 1, "NaN range gives 1");
	ok(svg_nice_step(-3, 4) == 1, "negative range gives 1");
}

static void
test_num(void)
{
	char s[16];

	svg_num(s, sizeof(s), 1250000);
	is_str(s, "1.25M", "1250000 is 1.25M");
	svg_num(s, sizeof(s), 350000);
	is_str(s, "350k", "350000 is 350k");
	svg_num(s, sizeof(s), 0.25);
	is_str(s, "0.25", "0.25 stays");
	svg_num(s, sizeof(s), 12);
	is_str(s, "12", "12 stays");
	svg_num(s, sizeof(s), 3e9);
	is_str(s, "3G", "3e9 is 3G");
	svg_num(s, sizeof(s), NAN);
	is_str(s, "-", "NaN is -");
	svg_num(s, sizeof(s), -INFINITY);
	is_str(s, "-", "-inf is -");
}

static void
test_escaping(void)
{
	static const double x[] = { 1, 2 }, y[] = { 10, 12 };
	struct svg_series s = { "<b>base</b>", 0, x, y, 2, 1, 0, 11 };
	struct svg_chart c = { "<script>alert('x')</script> & \"q\"",
	    "tasks<", "pages/s\"><svg onload=x>", 0, 0, 1, 0, &s, 1,
	    "<i>sub</i>" };
	struct buf b = BUF_INIT(0);

	svg_chart(&b, &c);
	ok(!strstr(b.data, "<script"), "no raw <script> from the title");
	ok(strstr(b.data, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; "
	    "&amp; &quot;q&quot;") != NULL, "title escaped as text");
	ok(!strstr(b.data, "<b>"), "legend escaped");
	ok(!strstr(b.data, "<i>") && strstr(b.data, "&lt;i&gt;sub&lt;/i&gt;"),
	    "subtitle escaped");
	ok(!strstr(b.data, "onload=x>"), "label cannot open an element");
	is_int(count(b.data, "<svg"), 1, "one <svg> element");
	is_int(count(b.data, "</svg>"), 1, "closed once");
	buf_release(&b);
}

static void
test_nan_guard(void)
{
	static const double x[] = { 1, 2, 3, 4, NAN, 6 };
	static const double y[] = { 100, NAN, INFINITY, 104, 5, -INFINITY };
	struct svg_series s[2] = {
		{ "base", 0, x, y, 6, 1, 1, NAN },
		{ "patched", 1, x, y, 6, 1, 1, INFINITY },
	};
	struct svg_chart c = { "guard", "boot", "v", 0, 0, 1, 0, s, 2 };
	struct buf b = BUF_INIT(0);
	int out, n, drawn;

	drawn = svg_chart(&b, &c);
	is_int(drawn, 4, "only the finite points are drawn (2 per side)");
	ok(no_nonfinite(b.data), "no nan/inf in the output");
	n = circles_inside(b.data, 420, 220, &out);
	is_int(n, 4, "four dots");
	is_int(out, 0, "every dot inside the chart");
	ok(!strstr(b.data, "svg-mean"), "no mean line for a NaN or inf mean");
	buf_release(&b);
}

static void
test_degenerate(void)
{
	static const double one_x[] = { 1 }, one_y[] = { 42 };
	static const double eq_x[] = { 1, 2, 3 }, eq_y[] = { 7, 7, 7 };
	struct svg_series s = { "base", 0, one_x, one_y, 1, 1, 0, 42 };
	struct svg_chart c = { "one boot", "boot", NULL, 300, 150, 1, 0, &s,
	    1 };
	struct buf b = BUF_INIT(0);
	int out;

	is_int(svg_chart(&b, &c), 1, "one point drawn");
	is_int(circles_inside(b.data, 300, 150, &out), 1, "one dot");
	is_int(out, 0, "inside a 300x150 chart");
	ok(no_nonfinite(b.data), "one point: no nan from a zero range");
	ok(strstr(b.data, "svg-mean") != NULL, "its mean line is drawn");
	ok(strstr(b.data, "width=\"300\" height=\"150\"") != NULL,
	    "size as asked");

	buf_reset(&b);
	s.x = eq_x;
	s.y = eq_y;
	s.n = 3;
	s.line = 1;
	c.y_zero = 1;
	is_int(svg_chart(&b, &c), 3, "equal values drawn");
	is_int(circles_inside(b.data, 300, 150, &out), 3, "three dots");
	is_int(out, 0, "inside");
	ok(no_nonfinite(b.data), "equal values: no nan");
	ok(strstr(b.data, "<polyline") != NULL, "joined by a line");

	buf_reset(&b);
	s.n = 0;
	is_int(svg_chart(&b, &c), 0, "no points");
	ok(strstr(b.data, "no data") != NULL, "an empty chart says no data");
	ok(!strstr(b.data, "<circle"), "and draws no dot");
	ok(no_nonfinite(b.data), "empty: no nan");

	buf_reset(&b);
	c.nseries = 0;
	c.series = NULL;
	is_int(svg_chart(&b, &c), 0, "no series at all");
	ok(strstr(b.data, "no data") != NULL, "says no data");
	buf_release(&b);
}

/* The line joins points in x order, whatever order they came in. */
static void
test_line_order(void)
{
	static const double x[] = { 4, 1, 2 }, y[] = { 40, 10, 20 };
	struct svg_series s = { "base", 0, x, y, 3, 0, 1, NAN };
	struct svg_chart c = { "scaling", "tasks", "pages/s", 0, 0, 0, 1, &s,
	    1 };
	struct buf b = BUF_INIT(0);
	double px[3], py[3];
	const char *p;

	svg_chart(&b, &c);
	p = strstr(b.data, "points=\"");
	ok(p && sscanf(p, "points=\"%lf,%lf %lf,%lf %lf,%lf", &px[0], &py[0],
	    &px[1], &py[1], &px[2], &py[2]) == 6, "polyline has three points");
	ok(px[0] < px[1] && px[1] < px[2], "sorted by x");
	ok(py[0] > py[1] && py[1] > py[2], "y grows upwards on screen");
	ok(!strstr(b.data, "<circle"), "dots off: no circles");
	buf_release(&b);
}

/* Per-boot means near 1e18 with a spread of a few hundred: the tick step
   (about 50) is below half the spacing of doubles there (128), so t += step
   never moved and the chart grew until memory ran out.  The child gets a
   few seconds and a memory cap. */
static void
test_huge_values(void)
{
	static const double x[] = { 1, 2, 3, 4 };
	static const double y[] = { 1e18, 1e18 + 256, 1e18 + 128, 1e18 };
	static const double yx[] = { 1e18, 1e18 + 256, 1e18 + 128, 1e18 };
	static const double ninf[] = { -INFINITY, 1e308, -1e308, 1e-300 };
	struct svg_series s = { "base", 0, x, y, 4, 1, 0, 1e18 + 64 };
	struct svg_series sx = { "base", 0, yx, x, 4, 1, 1, NAN };
	struct svg_series sh = { "base", 0, x, ninf, 4, 1, 1, NAN };
	struct svg_chart c = { "huge", NULL, NULL, 0, 0, 1, 0, &s, 1, NULL };
	struct svg_chart cx = { "huge x", NULL, NULL, 0, 0, 0, 0, &sx, 1,
	    NULL };
	struct svg_chart ch = { "extremes", NULL, NULL, 0, 0, 0, 0, &sh, 1,
	    NULL };
	pid_t pid;
	int st = 0;

	fflush(NULL);
	if ((pid = fork()) == 0) {
		struct rlimit rl = { 256u << 20, 256u << 20 };
		struct buf b = BUF_INIT(0);

		/* ASan reserves terabytes of shadow: under it only the
		   alarm bounds a runaway loop */
#ifndef __SANITIZE_ADDRESS__
		setrlimit(RLIMIT_AS, &rl);
#else
		(void)rl;
#endif
		alarm(10);
		svg_chart(&b, &c);
		svg_chart(&b, &cx);
		svg_chart(&b, &ch);
		_exit(b.len < (64u << 10) ? 0 : 3);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "means near 1e18 and extreme values: the tick loops end (%s %d)",
	    WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ?
	    WTERMSIG(st) : WEXITSTATUS(st));
}

int
main(void)
{
	test_nice_step();
	test_num();
	test_escaping();
	test_nan_guard();
	test_degenerate();
	test_line_order();
	test_huge_values();
	return tap_done();
}
