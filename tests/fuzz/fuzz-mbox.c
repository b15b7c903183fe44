/*
 * fuzz-mbox: libFuzzer target over the lore intake parsers: mboxrd split ->
 * MIME decode -> series pick -> JSON, and lore_parse_url on the same bytes.
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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mbox mb;
	struct buf err = BUF_INIT(4096);
	struct msg *msgs;
	struct msg **ptrs;
	struct series s;
	size_t i, n = 0;

	fuzz_url(data, size);
	if (mbox_looks_like_mail((const char *)data, size, &err) < 0 &&
	    err.len == 0)
		abort();	/* a refusal always says why */
	buf_reset(&err);
	if (mbox_split((const char *)data, size, &mb, &err) < 0)
		goto out;
	msgs = calloc(mb.n, sizeof(*msgs));
	ptrs = calloc(mb.n, sizeof(*ptrs));
	for (i = 0; i < mb.n; i++) {
		if (msg_parse(mb.msgs[i].data, mb.msgs[i].len, &msgs[n], &err) == 0) {
			ptrs[n] = &msgs[n];
			n++;
		}
	}
	for (int v = 0; v <= 2; v++) {
		buf_reset(&err);
		if (series_pick(ptrs, n, n && v == 2 ? ptrs[0]->msgid : NULL, v,
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
	for (i = 0; i < n; i++)
		msg_release(&msgs[i]);
	free(msgs);
	free(ptrs);
	mbox_release(&mb);
out:
	buf_release(&err);
	return 0;
}
