/* atom: the entries of a public-inbox Atom feed (see atom.h). */
#include <stdlib.h>
#include <string.h>

#include "core/atom.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

#define ATOM_FIELD_MAX	4096	/* a subject or URL longer is refused */

static const char *
atom_find(const char *s, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (; s + n <= end; s++)
		if (*s == *needle && !memcmp(s, needle, n))
			return s;
	return NULL;
}

/* Decodes XML text s[0..n) into a new string; NULL on a bad entity. */
static char *
atom_decode(const char *s, size_t n)
{
	struct buf b = BUF_INIT(ATOM_FIELD_MAX + 8);
	size_t i;

	for (i = 0; i < n; i++) {
		const char *semi;
		size_t el;

		if (s[i] != '&') {
			buf_addch(&b, s[i]);
			continue;
		}
		semi = memchr(s + i, ';', n - i < 12 ? n - i : 12);
		if (!semi)
			goto bad;
		el = semi - (s + i) + 1;
		if (el == 5 && !memcmp(s + i, "&amp;", 5))
			buf_addch(&b, '&');
		else if (el == 4 && !memcmp(s + i, "&lt;", 4))
			buf_addch(&b, '<');
		else if (el == 4 && !memcmp(s + i, "&gt;", 4))
			buf_addch(&b, '>');
		else if (el == 6 && !memcmp(s + i, "&quot;", 6))
			buf_addch(&b, '"');
		else if (el == 6 && !memcmp(s + i, "&apos;", 6))
			buf_addch(&b, '\'');
		else if (el > 3 && s[i + 1] == '#') {
			char *e;
			unsigned long c = s[i + 2] == 'x' ?
			    strtoul(s + i + 3, &e, 16) : strtoul(s + i + 2, &e, 10);

			if (e != semi || c == 0 || c > 0x10ffff)
				goto bad;
			if (c < 0x80)
				buf_addch(&b, (int)c);
			else if (c < 0x800) {
				buf_addch(&b, 0xc0 | (int)(c >> 6));
				buf_addch(&b, 0x80 | (int)(c & 0x3f));
			} else if (c < 0x10000) {
				buf_addch(&b, 0xe0 | (int)(c >> 12));
				buf_addch(&b, 0x80 | (int)((c >> 6) & 0x3f));
				buf_addch(&b, 0x80 | (int)(c & 0x3f));
			} else {
				buf_addch(&b, 0xf0 | (int)(c >> 18));
				buf_addch(&b, 0x80 | (int)((c >> 12) & 0x3f));
				buf_addch(&b, 0x80 | (int)((c >> 6) & 0x3f));
				buf_addch(&b, 0x80 | (int)(c & 0x3f));
			}
		} else
			goto bad;
		i += el - 1;
	}
	if (b.overflow)
		goto bad;
	if (!b.data)
		return xstrdup("");
	return buf_detach(&b, NULL);
bad:
	buf_release(&b);
	return NULL;
}

/* The text of <author><email>...</email> in s[0..end), or NULL. */
static char *
atom_email(const char *s, const char *end)
{
	const char *a, *ae, *m, *me;

	if (!(a = atom_find(s, end, "<author>")) ||
	    !(ae = atom_find(a, end, "</author>")) ||
	    !(m = atom_find(a, ae, "<email>")) ||
	    !(me = atom_find(m, ae, "</email>")))
		return NULL;
	m += 7;
	if (me - m > 320)
		return NULL;
	return atom_decode(m, me - m);
}

/* One <entry> body: its <title> text and first <link href="...">. */
static int
atom_entry(const char *s, const char *end, struct atom_entry *e,
    size_t idx, struct buf *err)
{
	const char *t, *te, *l, *le, *h, *q;

	memset(e, 0, sizeof(*e));
	if (!(t = atom_find(s, end, "<title")) ||
	    !(t = memchr(t, '>', end - t)) ||
	    !(te = atom_find(t, end, "</title>"))) {
		buf_addf(err, "feed entry %zu has no <title>", idx + 1);
		return -1;
	}
	t++;
	if (te - t > ATOM_FIELD_MAX || !(e->title = atom_decode(t, te - t))) {
		buf_addf(err, "feed entry %zu: bad <title> text", idx + 1);
		return -1;
	}
	/* "<link" then whitespace: not <link-something> */
	for (l = s; (l = atom_find(l, end, "<link")); l += 5)
		if (l + 5 < end && (l[5] == ' ' || l[5] == '\n' ||
		    l[5] == '\t' || l[5] == '\r'))
			break;
	if (!l || !(le = memchr(l, '>', end - l)) ||
	    !(h = atom_find(l, le, "href=\"")) ||
	    !(q = memchr(h + 6, '"', le - (h + 6)))) {
		buf_addf(err, "feed entry %zu has no <link href>", idx + 1);
		free(e->title);
		e->title = NULL;
		return -1;
	}
	h += 6;
	if (q - h > ATOM_FIELD_MAX || !(e->link = atom_decode(h, q - h))) {
		buf_addf(err, "feed entry %zu: bad <link href>", idx + 1);
		free(e->title);
		e->title = NULL;
		return -1;
	}
	e->email = atom_email(s, end);
	return 0;
}

/* Lists entry idx (0-based) as skipped, for why. */
static void
atom_skip(struct atom_feed *f, size_t idx, const char *why)
{
	f->nbad++;
	if (f->nskipped >= ATOM_MAX_SKIPPED)
		return;
	if (!f->skipped)
		f->skipped = xcalloc(ATOM_MAX_SKIPPED, sizeof(*f->skipped));
	f->skipped[f->nskipped].entry = idx + 1;
	f->skipped[f->nskipped].why = xstrdup(why);
	f->nskipped++;
}

int
atom_parse(const char *text, size_t len, struct atom_feed *out,
    struct buf *err)
{
	const char *p = text, *end = text + len, *e;
	struct buf why = BUF_INIT(256);
	size_t cap = 0, idx;

	memset(out, 0, sizeof(*out));
	if (!atom_find(text, end, "<feed")) {
		buf_addstr(err, "not an Atom feed: no <feed> element");
		return -1;
	}
	for (idx = 0; (p = atom_find(p, end, "<entry>")); idx++) {
		if (out->n + out->nbad >= ATOM_MAX_ENTRIES)
			break;
		if (!(e = atom_find(p, end, "</entry>"))) {
			buf_reset(&why);
			buf_addf(&why, "feed entry %zu is not closed", idx + 1);
			atom_skip(out, idx, why.data);
			break;		/* the rest of the text is inside it */
		}
		if (out->n == cap) {
			cap = cap ? cap * 2 : 32;
			out->v = xrealloc(out->v, cap * sizeof(*out->v));
		}
		buf_reset(&why);
		if (atom_entry(p + 7, e, &out->v[out->n], idx, &why) < 0)
			atom_skip(out, idx, why.data ? why.data : "bad entry");
		else
			out->n++;
		p = e + 8;
	}
	buf_release(&why);
	return 0;
}

void
atom_feed_release(struct atom_feed *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].title);
		free(f->v[i].link);
		free(f->v[i].email);
	}
	for (size_t i = 0; i < f->nskipped; i++)
		free(f->skipped[i].why);
	free(f->v);
	free(f->skipped);
	memset(f, 0, sizeof(*f));
}
