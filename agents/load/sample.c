/* sample: JSON line encoding and output (see sample.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/load/sample.h"
#include "agents/load/util.h"

static FILE *sample_out;

void
sample_json_init(struct sample_json *j)
{
	j->cap = 256;
	j->len = 0;
	j->data = load_xmalloc(j->cap);
	j->data[0] = '\0';
}

void
sample_json_release(struct sample_json *j)
{
	free(j->data);
	j->data = NULL;
	j->len = j->cap = 0;
}

static void
sample_json_grow(struct sample_json *j, size_t need)
{
	if (j->len + need + 1 <= j->cap)
		return;
	while (j->len + need + 1 > j->cap)
		j->cap *= 2;
	j->data = load_xrealloc(j->data, j->cap);
}

void
sample_json_addf(struct sample_json *j, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sample_json_grow(j, n);
	va_start(ap, fmt);
	vsnprintf(j->data + j->len, j->cap - j->len, fmt, ap);
	va_end(ap);
	j->len += n;
}

/* Length of a valid UTF-8 sequence at p, or 0 if it is not one. */
static int
sample_utf8_len(const unsigned char *p)
{
	int n, i;
	unsigned cp;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) { n = 2; cp = p[0] & 0x1f; }
	else if ((p[0] & 0xf0) == 0xe0) { n = 3; cp = p[0] & 0x0f; }
	else if ((p[0] & 0xf8) == 0xf0) { n = 4; cp = p[0] & 0x07; }
	else return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void
sample_json_str(struct sample_json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	int n;

	sample_json_addf(j, "\"");
	while (*p) {
		switch (*p) {
		case '"': sample_json_addf(j, "\\\""); p++; continue;
		case '\\': sample_json_addf(j, "\\\\"); p++; continue;
		case '\n': sample_json_addf(j, "\\n"); p++; continue;
		case '\r': sample_json_addf(j, "\\r"); p++; continue;
		case '\t': sample_json_addf(j, "\\t"); p++; continue;
		case '\b': sample_json_addf(j, "\\b"); p++; continue;
		case '\f': sample_json_addf(j, "\\f"); p++; continue;
		}
		if (*p < 0x20 || *p == 0x7f) {
			sample_json_addf(j, "\\u%04x", *p);
			p++;
			continue;
		}
		n = sample_utf8_len(p);
		if (n == 0) {
			sample_json_addf(j, "\\ufffd");
			p++;
			continue;
		}
		sample_json_grow(j, n);
		memcpy(j->data + j->len, p, n);
		j->len += n;
		j->data[j->len] = '\0';
		p += n;
	}
	sample_json_addf(j, "\"");
}

void
sample_json_num(struct sample_json *j, double v)
{
	if (!isfinite(v))
		sample_json_addf(j, "null");
	else if (v == floor(v) && fabs(v) < 1e15)
		sample_json_addf(j, "%.1f", v);
	else
		sample_json_addf(j, "%.*g", 10, v);
}

struct sample_kv {
	const char *k, *v;
};

static int
sample_kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sample_kv *)a)->k,
	    ((const struct sample_kv *)b)->k);
}

char *
sample_params(const char *const *keys, const char *const *vals, int n)
{
	struct sample_kv *kv = load_xcalloc(n, sizeof(*kv));
	size_t len = 1;
	char *out;
	int i;

	for (i = 0; i < n; i++) {
		kv[i].k = keys[i];
		kv[i].v = vals[i];
		len += strlen(keys[i]) + strlen(vals[i]) + 2;
	}
	qsort(kv, n, sizeof(*kv), sample_kv_cmp);
	out = load_xmalloc(len);
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strcat(out, ",");
		strcat(out, kv[i].k);
		strcat(out, "=");
		strcat(out, kv[i].v);
	}
	free(kv);
	return out;
}

void
sample_set_output(FILE *f)
{
	sample_out = f;
}

FILE *
sample_output(void)
{
	return sample_out ? sample_out : stdout;
}

void
sample_emit_raw(struct sample_json *j)
{
	FILE *f = sample_output();

	sample_json_addf(j, "\n");
	fwrite(j->data, 1, j->len, f);
	fflush(f);
}

void
sample_emit(const char *workload, const char *params, int iteration,
    const char *metric, double value, const char *unit, int higher)
{
	struct sample_json j;

	sample_json_init(&j);
	sample_json_addf(&j, "{\"workload\":");
	sample_json_str(&j, workload);
	sample_json_addf(&j, ",\"params\":");
	sample_json_str(&j, params);
	sample_json_addf(&j, ",\"iteration\":%d,\"metric\":", iteration);
	sample_json_str(&j, metric);
	sample_json_addf(&j, ",\"value\":");
	sample_json_num(&j, value);
	sample_json_addf(&j, ",\"unit\":");
	sample_json_str(&j, unit);
	sample_json_addf(&j, ",\"better\":\"%s\"}", higher ? "higher" : "lower");
	sample_emit_raw(&j);
	sample_json_release(&j);
}

void
sample_emit_error(const char *msg, const char *workload, const char *params)
{
	struct sample_json j;

	sample_json_init(&j);
	sample_json_addf(&j, "{\"error\":");
	sample_json_str(&j, msg && *msg ? msg : "unknown error");
	if (workload) {
		sample_json_addf(&j, ",\"workload\":");
		sample_json_str(&j, workload);
	}
	if (params) {
		sample_json_addf(&j, ",\"params\":");
		sample_json_str(&j, params);
	}
	sample_json_addf(&j, "}");
	sample_emit_raw(&j);
	sample_json_release(&j);
}
