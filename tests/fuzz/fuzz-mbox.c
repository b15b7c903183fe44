/*
 * fuzz-mbox: libFuzzer target over the lore intake parsers: mboxrd split ->
 * MIME decode -> series pick -> JSON, and lore_parse_url on the same bytes.
 * The split is read three ways (mbox_split, mbox_check, msg_parse_mbox),
 * which must agree.
 * Seed corpus: tests/fuzz/corpus/fuzz-mbox/ (the fixture threads and URLs).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/lore.h"
#include "core/mbox.h"
#include "core/mime.h"
#include "core/series.h"

static const char *const bases[] = { "https://lore.kernel.org/",
    "http://127.0.0.1:8081/", "https://example.org/pi" };

static void
fuzz_url(const uint8_t *data, size_t size)
{
	struct lore_url u;
	struct buf err = BUF_INIT(4096);
	char *s;

	if (size > 4096)
		size = 4096;
	s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	if (lore_parse_url(s, bases, 3, &u, &err) == 0) {
		/* what parsed must be a usable id and re-escape cleanly */
		struct buf e = BUF_INIT(0);
		if (lore_check_msgid(u.msgid, &err) != 0)
			abort();
		lore_escape_msgid(&e, u.msgid);
		if (strchr(e.data, '/') || strchr(e.data, ' '))
			abort();
		buf_release(&e);
		lore_url_release(&u);
	}
	lore_parse_url(s, NULL, 0, &u, &err);
	lore_url_release(&u);
	buf_release(&err);
	free(s);
}

/* mbox_split, mbox_check and msg_parse_mbox read the same messages:
   what they return, with the messages decoded into *l. */
static int
fuzz_split(const uint8_t *data, size_t size, struct msg_list *l)
{
	struct mbox mb;
	struct buf err = BUF_INIT(4096), e2 = BUF_INIT(4096);
	int r = mbox_split((const char *)data, size, &mb, &err);

	if (r < 0 && err.len == 0)
		abort();	/* a refusal always says why */
	if (mbox_check((const char *)data, size, &e2) != r)
		abort();
	buf_reset(&e2);
	if (msg_parse_mbox((const char *)data, size, l, NULL, NULL,
	    &e2) != r || (r == 0 && (l->nmbox != mb.n || l->n > mb.n ||
	    l->truncated != mb.truncated)))
		abort();
	if (r < 0 && strcmp(err.data, e2.data) != 0)
		abort();
	for (size_t i = 0; i < mb.n; i++)
		if (mb.msgs[i].len > MBOX_MAX_MESSAGE + 1 ||
		    mb.msgs[i].data[mb.msgs[i].len] != '\0')
			abort();
	mbox_release(&mb);
	buf_release(&err);
	buf_release(&e2);
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT(4096);
	struct msg_list l;
	struct series s;
	size_t n;

	fuzz_url(data, size);
	if (mbox_looks_like_mail((const char *)data, size, &err) < 0 &&
	    err.len == 0)
		abort();	/* a refusal always says why */
	if (fuzz_split(data, size, &l) < 0)
		goto out;
	n = l.n;
	for (int v = 0; v <= 2; v++) {
		buf_reset(&err);
		if (series_pick(l.v, n, n && v == 2 ? l.v[0]->msgid : NULL, v,
		    &s, &err) == 0) {
			json_t *j = series_to_json(&s);
			char *t = json_dumps(j, 0);
			/* every picked series is complete and numbered */
			for (size_t k = 0; k < s.npatches; k++)
				if (s.patches[k].counter != (int)k + 1 ||
				    !s.patches[k].message || !s.patches[k].diff)
					abort();
			free(t);
			json_decref(j);
			series_release(&s);
		}
	}
	msg_list_release(&l);
out:
	buf_release(&err);
	return 0;
}
