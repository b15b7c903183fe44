/*
 * series: pick one revision of a patch series out of a thread, following
 * b4 0.12's LoreMailbox/LoreSeries logic step by step (see series.h), and
 * build each patch's commit message and diff the way `b4 am | git am`
 * would.  Where this file departs from b4 on purpose, the comment says so.
 *
 * Pure code over decoded messages (mime.h): no I/O, no globals.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <jansson.h>

#include "core/mime.h"
#include "core/series.h"
#include "lib/xalloc.h"

/*
 * How far up a reply chain a trailer or a reroll is followed.  b4 has no
 * limit; real threads are a few levels deep, and a hostile thread of
 * thousands of nested replies must not cost quadratic time.
 */
#define SERIES_MAX_DEPTH	100

/* ---- subjects ---------------------------------------------------------- */

static char *
series_fold(const char *s)
{
	char *r = xmalloc(strlen(s) + 1), *w = r;
	int sp = 0;

	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			sp = 1;
			continue;
		}
		if (sp && w != r)
			*w++ = ' ';
		sp = 0;
		*w++ = *s;
	}
	*w = '\0';
	return r;
}

static int
series_prefix_ci(const char *s, const char *p)
{
	return strncasecmp(s, p, strlen(p)) == 0;
}

/* Parses a decimal of 1..maxdig digits spanning exactly [s, e). */
static int
series_num(const char *s, const char *e, int maxdig, int *out)
{
	int v = 0;

	if (e <= s || e - s > maxdig)
		return 0;
	for (; s < e; s++) {
		if (!isdigit((unsigned char)*s))
			return 0;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return 1;
}

static void
subject_chunk(struct subject *o, const char *c, size_t n)
{
	const char *slash;
	int a, b;

	/* trailing commas and semicolons go, as in b4 */
	while (n && (c[0] == ',' || c[0] == ';'))
		c++, n--;
	while (n && (c[n - 1] == ',' || c[n - 1] == ';'))
		n--;
	if (!n)
		return;
	slash = memchr(c, '/', n);
	if (slash && series_num(c, slash, 4, &a) &&
	    series_num(slash + 1, c + n, 4, &b)) {
		o->counter = a;
		o->expected = b;
		o->counters_inferred = 0;
	} else if ((c[0] == 'v' || c[0] == 'V') &&
	    series_num(c + 1, c + n, 6, &a)) {
		o->revision = a;
		o->revision_inferred = 0;
	} else if (n >= 3 && strncasecmp(c, "rfc", 3) == 0) {
		o->rfc = 1;
	} else if (n >= 6 && strncasecmp(c, "resend", 6) == 0) {
		o->resend = 1;
	} else if (n >= 5 && strncasecmp(c, "patch", 5) == 0) {
		o->patch = 1;
	}
}

void
subject_parse(const char *subj, struct subject *o)
{
	char *s = series_fold(subj ? subj : ""), *p;
	size_t i;

	memset(o, 0, sizeof(*o));
	o->revision = o->counter = o->expected = 1;
	o->revision_inferred = o->counters_inferred = 1;

	/* a reply: "Re:", "Aw:", "Fwd:", or any "Xx:" / "Xxx:" before a '[' */
	if (series_prefix_ci(s, "re:") || series_prefix_ci(s, "aw:") ||
	    series_prefix_ci(s, "fwd:")) {
		o->reply = 1;
		o->subject = s;
		return;
	}
	for (i = 0; i < 3 && (isalnum((unsigned char)s[i]) || s[i] == '_'); i++)
		;
	if (i >= 2 && s[i] == ':') {
		p = s + i + 1;
		while (*p == ' ')
			p++;
		if (*p == '[') {
			o->reply = 1;
			o->subject = s;
			return;
		}
	}

	p = s;
	while (*p == '[') {
		char *close = strchr(p, ']'), *q, *b;
		size_t n;

		if (!close)
			break;
		/* "[PATCHv3" -> "[PATCH v3": copy the bracket with a space */
		n = close - p - 1;
		b = xmalloc(2 * n + 2);
		for (q = b, i = 0; i < n; i++) {
			*q++ = p[1 + i];
			if (i + 1 < n && (p[1 + i + 1] == 'v' || p[1 + i + 1] == 'V') &&
			    i >= 4 && strncasecmp(p + 1 + i - 4, "patch", 5) == 0 &&
			    i + 2 < n && isdigit((unsigned char)p[1 + i + 2]))
				*q++ = ' ';
		}
		*q = '\0';
		for (q = b; *q;) {
			char *e;
			while (*q == ' ')
				q++;
			e = q;
			while (*e && *e != ' ')
				e++;
			if (e > q)
				subject_chunk(o, q, e - q);
			q = e;
		}
		free(b);
		p = close + 1;
		while (*p == ' ')
			p++;
	}
	o->subject = xstrdup(p);
	free(s);
}

void
subject_release(struct subject *o)
{
	free(o->subject);
	o->subject = NULL;
}

/* ---- bodies: diffs, diffstats, trailers --------------------------------- */

/* Next line of text: sets *n to its length, returns the start of the next. */
static const char *
series_line(const char *p, size_t *n)
{
	const char *nl = strchr(p, '\n');

	*n = nl ? (size_t)(nl - p) : strlen(p);
	return nl ? nl + 1 : p + *n;
}

static int
series_is_diff_git(const char *l, size_t n)
{
	/* b4: ^diff --git \w/\S+ \w/\S+ */
	if (n < 11 || strncasecmp(l, "diff --git ", 11) != 0)
		return 0;
	l += 11, n -= 11;
	return n >= 3 && (isalnum((unsigned char)l[0]) || l[0] == '_') &&
	    l[1] == '/' && memchr(l, ' ', n) != NULL;
}

/* b4's DIFF_RE: "---" line followed by "+++", GIT binary patch, diff --git */
static int
series_has_diff(const char *b)
{
	const char *p = b, *next;
	size_t n, n2;

	while (*p) {
		next = series_line(p, &n);
		if (n >= 3 && strncmp(p, "---", 3) == 0 && *next) {
			series_line(next, &n2);
			if (n2 >= 3 && strncmp(next, "+++", 3) == 0)
				return 1;
		}
		if ((n >= 16 && strncasecmp(p, "GIT binary patch", 16) == 0) ||
		    series_is_diff_git(p, n))
			return 1;
		p = next;
	}
	return 0;
}

/* "<digits> <word>" somewhere in [s, e) */
static int
series_num_word(const char *s, const char *e, const char *word)
{
	size_t wl = strlen(word);
	const char *p;

	for (p = s + 2; p + wl <= e; p++)
		if (strncasecmp(p, word, wl) == 0 && p[-1] == ' ' &&
		    isdigit((unsigned char)p[-2]))
			return 1;
	return 0;
}

/* b4's DIFFSTAT_RE: ^\s*\d+ file.*\d+ (insertion|deletion) */
static int
series_has_diffstat(const char *b)
{
	const char *p = b, *next;
	size_t n;

	for (; *p; p = next) {
		const char *q = p, *e;

		next = series_line(p, &n);
		e = p + n;
		while (q < e && isspace((unsigned char)*q))
			q++;
		if (q == e || !isdigit((unsigned char)*q))
			continue;
		while (q < e && isdigit((unsigned char)*q))
			q++;
		if (e - q < 5 || strncasecmp(q, " file", 5) != 0)
			continue;
		if (series_num_word(q, e, "insertion") ||
		    series_num_word(q, e, "deletion"))
			return 1;
	}
	return 0;
}

enum { TR_UNKNOWN, TR_PERSON, TR_UTILITY };

struct tr {
	char	*name, *value, *lname;
	char	*extinfo;	/* "[for the foo bits]" or " # comment" */
	int	 type;
	char	*aname, *aaddr;	/* parseaddr(value) for persons */
};

struct trlist {
	struct tr **v;
	size_t	 n, cap;
};

static void
trlist_add(struct trlist *l, struct tr *t)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = t;
}

/* Every struct tr lives in the arena; lists only point at them. */
struct arena {
	struct trlist all;
};

static int
series_has_email(const char *v)
{
	/* \S+@\S+\.\S+ */
	const char *at;

	for (at = strchr(v, '@'); at; at = strchr(at + 1, '@')) {
		const char *q = at + 1;
		if (at == v || isspace((unsigned char)at[-1]))
			continue;
		while (*q && !isspace((unsigned char)*q) && *q != '.')
			q++;
		while (*q && !isspace((unsigned char)*q)) {
			if (*q == '.' && q > at + 1 && q[1] &&
			    !isspace((unsigned char)q[1]))
				return 1;
			q++;
		}
	}
	return 0;
}

static char *
series_strip(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

static struct tr *
tr_new(struct arena *a, const char *name, size_t nn, const char *value,
    const char *extinfo)
{
	static const char *utility[] = { "fixes", "link", "buglink",
	    "obsoleted-by", "message-id", "change-id", "base-commit", NULL };
	struct tr *t = xcalloc(1, sizeof(*t));
	size_t i;

	t->name = xstrndup(name, nn);
	t->value = xstrdup(value);
	t->lname = xstrdup(t->name);
	for (i = 0; t->lname[i]; i++)
		t->lname[i] = tolower((unsigned char)t->lname[i]);
	t->extinfo = extinfo ? xstrdup(extinfo) : NULL;
	t->type = TR_UNKNOWN;
	for (i = 0; utility[i]; i++)
		if (strcmp(t->lname, utility[i]) == 0)
			t->type = TR_UTILITY;
	if (t->type == TR_UNKNOWN && strstr(value, "://"))
		t->type = TR_UTILITY;
	if (t->type == TR_UNKNOWN && series_has_email(value)) {
		const char *lt = strrchr(value, '<'), *gt;

		t->type = TR_PERSON;
		gt = lt ? strchr(lt, '>') : NULL;
		if (lt && gt) {
			t->aaddr = series_strip(lt + 1, gt - lt - 1);
			t->aname = series_strip(value, lt - value);
			if (t->aname[0] == '"') {
				size_t l = strlen(t->aname);
				memmove(t->aname, t->aname + 1, l);
				if (l >= 2 && t->aname[l - 2] == '"')
					t->aname[l - 2] = '\0';
			}
		} else {
			t->aaddr = series_strip(value, strlen(value));
			t->aname = xstrdup("");
		}
	}
	trlist_add(&a->all, t);
	return t;
}

static void
arena_release(struct arena *a)
{
	size_t i;

	for (i = 0; i < a->all.n; i++) {
		struct tr *t = a->all.v[i];
		free(t->name);
		free(t->value);
		free(t->lname);
		free(t->extinfo);
		free(t->aname);
		free(t->aaddr);
		free(t);
	}
	free(a->all.v);
}

static int
series_in(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(s, *set) == 0)
			return 1;
	return 0;
}

/* Cuts text at the signature marker and strips surrounding white space
   (b4: everything below "-- " is ignored, then strip()). */
static void
series_trailer_body(char *body)
{
	char *sig, *p;
	size_t n;

	if ((sig = strstr(body, "\n-- \n")))
		*sig = '\0';
	p = body;
	while (*p && isspace((unsigned char)*p))
		p++;
	memmove(body, p, strlen(p) + 1);
	n = strlen(body);
	while (n && isspace((unsigned char)body[n - 1]))
		body[--n] = '\0';
}

/* ^\s*(\w\S+):\s+(\S.*) -- greedy name, last ':' + space.  The colon
   ending the trailer's name (*name set to its start), or NULL. */
static char *
series_trailer_colon(char *line, char **name)
{
	char *q = line, *colon = NULL;

	while (isspace((unsigned char)*q))
		q++;
	*name = q;
	if (isalnum((unsigned char)*q) || *q == '_' || (*q & 0x80)) {
		char *r;
		for (r = q + 1; *r && !isspace((unsigned char)*r); r++)
			if (*r == ':' && r > q + 1 && r[1] &&
			    isspace((unsigned char)r[1]))
				colon = r;
		/* name is \w\S+ ending right at the colon whose next
		   char is a space; value must start with non-space */
		if (colon) {
			char *v = colon + 1;
			while (isspace((unsigned char)*v))
				v++;
			if (!*v)
				colon = NULL;
		}
	}
	return colon;
}

/* 1 when b4 ignores the trailer name[0..nl) with value v: phone/email,
   mail headers after some text, and in follow-ups non-ASCII names,
   person trailers without an address, and values with a URL. */
static int
series_trailer_skipped(const char *name, size_t nl, const char *v,
    int followup, size_t no)
{
	static const char *const ignores[] = { "phone", "email", NULL };
	static const char *const headers[] = { "subject", "date", "from", NULL };
	static const char *const nonperson[] = { "fixes", "subject", "date",
	    "link", "buglink", "obsoleted-by", "change-id", "base-commit", NULL };
	char *lname = xstrndup(name, nl);
	int skip = 0, ascii = 1;

	for (size_t i = 0; i < nl; i++) {
		if ((unsigned char)lname[i] >= 0x80)
			ascii = 0;
		lname[i] = tolower((unsigned char)lname[i]);
	}
	if (series_in(lname, ignores))
		skip = 1;
	else if (no && series_in(lname, headers))
		skip = 1;
	else if (followup) {
		if (!ascii)
			skip = 1;
		else if (!series_has_email(v) &&
		    !series_in(lname, nonperson))
			skip = 1;
		else if (strstr(v, "http://") || strstr(v, "https://"))
			skip = 1;
	}
	free(lname);
	return skip;
}

/* (.*\S+)(\s+#[^#]+)$: a hashtag comment cut off the value v and returned
   (the caller frees it), or NULL. */
static char *
series_trailer_hashtag(char *v)
{
	char *h = strrchr(v, '#'), *ext = NULL;

	if (h && h > v && isspace((unsigned char)h[-1])) {
		char *s0 = h - 1;
		while (s0 > v && isspace((unsigned char)s0[-1]))
			s0--;
		if (s0 > v && h[1]) {
			ext = xstrdup(s0);
			*s0 = '\0';
		}
	}
	return ext;
}

/*
 * b4's LoreMessage.find_trailers.  text is a copy we may modify.  Found
 * trailers are appended to *trs, other lines to *others (count only when
 * others is NULL).
 */
static void
series_find_trailers(struct arena *a, const char *text, int followup,
    struct trlist *trs, struct buf *others, size_t *nothers)
{
	char *body = xstrdup(text), *p;
	size_t no = 0;
	int was_trailer = 0;

	series_trailer_body(body);
	for (p = body; ; ) {
		const char *l = p, *next;
		char *line, *colon, *name;
		size_t ln;

		next = series_line(p, &ln);
		line = xstrndup(l, ln);
		if (ln && line[ln - 1] == '\r')
			line[--ln] = '\0';
		colon = series_trailer_colon(line, &name);
		if (colon) {
			char *v = colon + 1, *ext;
			size_t nl = colon - name;

			while (isspace((unsigned char)*v))
				v++;
			if (series_trailer_skipped(name, nl, v, followup, no)) {
				free(line);
				if (!*next)
					break;
				p = (char *)next;
				continue;
			}
			ext = series_trailer_hashtag(v);
			trlist_add(trs, tr_new(a, name, nl, v, ext));
			free(ext);
			was_trailer = 1;
		} else if (ln > 2 && was_trailer && trs->n &&
		    line[0] == '[' && line[ln - 1] == ']') {
			struct tr *t = trs->v[trs->n - 1];
			free(t->extinfo);
			t->extinfo = xstrdup(line);
			was_trailer = 0;
		} else {
			was_trailer = 0;
			if (others) {
				if (no)
					buf_addch(others, '\n');
				buf_addstr(others, line);
			}
			no++;
		}
		free(line);
		if (!*next)
			break;
		p = (char *)next;
	}
	if (nothers)
		*nothers = no;
	free(body);
}

/* ---- the thread --------------------------------------------------------- */

struct lmsg {
	struct msg *m;
	struct subject s;
	int	 reply, revision, counter, expected;
	int	 has_diff, has_diffstat;
	char	 pwhash[41];	/* patchwork hash of the body, "" if none */
	struct trlist trailers;		/* own trailers, replies only */
	struct trlist fup;		/* follow-up trailers for this one */
	size_t	 idx;
};

struct slot {
	struct lmsg *l;
	int	 from_version;
};

struct ser {
	int	 revision, expected;
	struct slot *p;		/* expected + 1 slots, 0 is the cover */
	size_t	 np;
	int	 complete, partial;
	char	*base_commit, *change_id;
};

struct pick {
	struct lmsg *l;
	size_t	 n;
	struct lmsg **byid;	/* sorted by msgid */
	size_t	 nbyid;
	struct ser *ser;	/* sorted by revision */
	size_t	 nser;
	struct lmsg **covers;	/* by revision, parallel to covrev */
	int	*covrev;
	size_t	 ncovers;
	struct lmsg **fups;
	size_t	 nfups;
	struct arena a;
};

static int
pick_cmp_id(const void *x, const void *y)
{
	const struct lmsg *a = *(struct lmsg *const *)x, *b = *(struct lmsg *const *)y;
	int c = strcmp(a->m->msgid, b->m->msgid);

	return c ? c : (a->idx < b->idx ? -1 : a->idx > b->idx);
}

static struct lmsg *
pick_by_id(struct pick *k, const char *id)
{
	size_t lo = 0, hi = k->nbyid;

	if (!id)
		return NULL;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(id, k->byid[mid]->m->msgid);
		if (c == 0)
			return k->byid[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static struct ser *
pick_ser(struct pick *k, int rev)
{
	size_t i;

	for (i = 0; i < k->nser; i++)
		if (k->ser[i].revision == rev)
			return &k->ser[i];
	return NULL;
}

static struct ser *
pick_ser_new(struct pick *k, int rev, int expected)
{
	struct ser *s;

	k->ser = xrealloc(k->ser, (k->nser + 1) * sizeof(*k->ser));
	s = &k->ser[k->nser++];
	memset(s, 0, sizeof(*s));
	s->revision = rev;
	s->expected = expected;
	s->np = expected + 1;
	s->p = xcalloc(s->np, sizeof(*s->p));
	return s;
}

static struct lmsg *
pick_cover(struct pick *k, int rev)
{
	size_t i;

	for (i = 0; i < k->ncovers; i++)
		if (k->covrev[i] == rev)
			return k->covers[i];
	return NULL;
}

/* b4's footer regexes: ^base-commit: .*?([\da-f]+) and ^change-id:\s+(\S+) */
static char *
series_footer(const char *body, const char *key)
{
	const char *p = body, *next;
	size_t n, kl = strlen(key);

	while (*p) {
		next = series_line(p, &n);
		if (n > kl && strncasecmp(p, key, kl) == 0) {
			const char *v = p + kl, *e = p + n;
			while (v < e && isspace((unsigned char)*v))
				v++;
			if (strcmp(key, "base-commit:") == 0) {
				while (v < e && !isxdigit((unsigned char)*v))
					v++;
				const char *s = v;
				while (v < e && isxdigit((unsigned char)*v))
					v++;
				if (v > s)
					return xstrndup(s, v - s);
			} else {
				const char *s = v;
				while (v < e && !isspace((unsigned char)*v))
					v++;
				if (v > s)
					return xstrndup(s, v - s);
			}
		}
		p = next;
	}
	return NULL;
}

static void
ser_add_patch(struct ser *s, struct lmsg *l)
{
	size_t i;

	if ((size_t)l->expected + 1 > s->np) {
		s->p = xrealloc(s->p, (l->expected + 1) * sizeof(*s->p));
		for (i = s->np; i < (size_t)l->expected + 1; i++)
			s->p[i].l = NULL, s->p[i].from_version = 0;
		s->np = l->expected + 1;
	}
	s->expected = l->expected;
	if (s->p[l->counter].l) {
		struct lmsg *o = s->p[l->counter].l;
		if (o->reply || (o->s.counters_inferred && !l->s.counters_inferred))
			s->p[l->counter].l = l;
	} else {
		s->p[l->counter].l = l;
	}
	s->p[l->counter].from_version = s->revision;
	s->complete = 1;
	for (i = 1; i < s->np; i++)
		if (!s->p[i].l)
			s->complete = 0;
	if (l->counter == 0) {
		char *v;
		if (strstr(l->m->body, "\nbase-commit:") &&
		    (v = series_footer(l->m->body, "base-commit:"))) {
			free(s->base_commit);
			s->base_commit = v;
		}
		if (strstr(l->m->body, "\nchange-id:") &&
		    (v = series_footer(l->m->body, "change-id:"))) {
			free(s->change_id);
			s->change_id = v;
		}
	}
}

/* patchwork's hash of a diff, as b4 uses it to carry trailers over */
static void
series_pwhash(const char *body, char out[41])
{
	GChecksum *ck = g_checksum_new(G_CHECKSUM_SHA1);
	const char *p = body, *next;
	struct buf line = BUF_INIT(0);
	size_t n;

	while (*p) {
		int a, b, c, d;
		char tail;

		next = series_line(p, &n);
		buf_reset(&line);
		if (n == 0)
			goto next;
		if (n >= 4 && (strncmp(p, "--- ", 4) == 0 || strncmp(p, "+++ ", 4) == 0) &&
		    !isspace((unsigned char)p[4])) {
			/* ^(---|\+\+\+) (\S+): keep the path minus its
			   first component, under a/ or b/ */
			const char *s = p + 4, *e = s, *sl;
			while (e < p + n && !isspace((unsigned char)*e))
				e++;
			buf_addf(&line, "%.3s %s", p, p[0] == '-' ? "a/" : "b/");
			sl = memchr(s, '/', e - s);
			if (sl)
				buf_add(&line, sl + 1, e - sl - 1);
		} else if (n >= 4 && strncmp(p, "@@ -", 4) == 0) {
			char *l = xstrndup(p, n);
			/* ^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@ */
			if (sscanf(l, "@@ -%d,%d +%d,%d @@%c", &a, &b, &c, &d, &tail) >= 4 &&
			    strstr(l, " @@")) {
			} else if (sscanf(l, "@@ -%d +%d,%d @@", &a, &c, &d) == 3) {
				b = 1;
			} else if (sscanf(l, "@@ -%d,%d +%d @@", &a, &b, &c) == 3) {
				d = 1;
			} else if (sscanf(l, "@@ -%d +%d @@", &a, &c) == 2) {
				b = d = 1;
			} else {
				free(l);
				goto plain;
			}
			free(l);
			buf_addf(&line, "@@ -%d +%d @@", b, d);
		} else {
plain:
			if (p[0] != '-' && p[0] != '+' && p[0] != ' ')
				goto next;
			buf_add(&line, p, n);
		}
		buf_addch(&line, '\n');
		g_checksum_update(ck, (const guchar *)line.data, line.len);
next:
		p = next;
	}
	snprintf(out, 41, "%s", g_checksum_get_string(ck));
	g_checksum_free(ck);
	buf_release(&line);
}

static void
pick_add_message(struct pick *k, struct lmsg *l)
{
	struct trlist trs = { 0 };
	struct ser *s;
	size_t i;

	subject_parse(l->m->subject, &l->s);
	l->reply = l->s.reply;
	l->revision = l->s.revision;
	l->counter = l->s.counter;
	l->expected = l->s.expected;
	if (l->counter > l->expected)	/* [PATCH 6/5] */
		l->expected = l->counter;
	l->has_diffstat = series_has_diffstat(l->m->body);
	l->has_diff = series_has_diff(l->m->body);
	if (l->has_diff)
		series_pwhash(l->m->body, l->pwhash);
	series_find_trailers(&k->a, l->m->body, 1, &trs, NULL, NULL);
	/* a follow-up without "Re:" that carries trailers and no diff */
	if (trs.n && l->m->in_reply_to && !l->has_diff)
		l->reply = 1;
	if (l->reply)
		for (i = 0; i < trs.n; i++)
			if (!series_in(trs.v[i]->lname, (const char *const[]){
			    "from", "author", "cc", "to", NULL }))
				trlist_add(&l->trailers, trs.v[i]);
	free(trs.v);

	if (l->reply) {
		k->fups = xrealloc(k->fups, (k->nfups + 1) * sizeof(*k->fups));
		k->fups[k->nfups++] = l;
		return;
	}
	if (l->counter == 0 && (!l->s.counters_inferred || l->has_diffstat)) {
		for (i = 0; i < k->ncovers; i++)
			if (k->covrev[i] == l->revision) {
				k->covers[i] = l;	/* b4 keeps the last */
				return;
			}
		k->covers = xrealloc(k->covers, (k->ncovers + 1) * sizeof(*k->covers));
		k->covrev = xrealloc(k->covrev, (k->ncovers + 1) * sizeof(*k->covrev));
		k->covers[k->ncovers] = l;
		k->covrev[k->ncovers++] = l->revision;
		return;
	}
	if (!l->has_diff)
		return;		/* b4's "unknowns" */
	if (!pick_ser(k, l->revision) && l->s.revision_inferred && l->m->in_reply_to) {
		/* an unnumbered revision inherits its cover letter's or
		   patch 1's revision */
		struct lmsg *irt = pick_by_id(k, l->m->in_reply_to);
		if (irt && irt->has_diffstat && !irt->has_diff)
			l->revision = irt->revision;
		else if (l->counter > 0 && irt && irt->has_diff && irt->counter == 1)
			l->revision = irt->revision;
	}
	if (!(s = pick_ser(k, l->revision)))
		s = pick_ser_new(k, l->revision, l->expected);
	/* the same author sent a new unnumbered revision */
	if (l->counter == 1 && l->s.counters_inferred && l->s.patch && !l->s.resend) {
		struct lmsg *o = s->np > 1 ? s->p[1].l : NULL;
		if (o && o->s.counters_inferred &&
		    strcmp(l->m->from_email, o->m->from_email) == 0 &&
		    o->m->date_epoch < l->m->date_epoch) {
			l->revision = (int)k->nser + 1;
			s = pick_ser_new(k, l->revision, l->expected);
		}
	}
	ser_add_patch(s, l);
}

/* b4's LoreTrailer.email_eq with fuzzy matching */
static int
series_email_eq(const char *ours, const char *theirs)
{
	char *o = g_ascii_strdown(ours, -1), *t = g_ascii_strdown(theirs, -1);
	char *oat, *tat, *plus;
	int eq = strcmp(o, t) == 0;

	if (eq || !(oat = strchr(o, '@')) || !(tat = strchr(t, '@')))
		goto out;
	/* foo+kernel@x == foo@x */
	if ((plus = strchr(o, '+')) && plus < oat)
		memmove(plus, oat, strlen(oat) + 1);
	if ((plus = strchr(t, '+')) && plus < tat)
		memmove(plus, tat, strlen(tat) + 1);
	if (strcmp(o, t) == 0) {
		eq = 1;
		goto out;
	}
	oat = strchr(o, '@');
	tat = strchr(t, '@');
	if (oat - o == tat - t && strncmp(o, t, oat - o) == 0) {
		/* foo@linux.intel.com == foo@intel.com */
		const char *od = oat + 1, *td = tat + 1;
		int dots_o = 0, dots_t = 0;
		size_t lo = strlen(od), lt = strlen(td);
		for (const char *c = od; *c; c++)
			dots_o += *c == '.';
		for (const char *c = td; *c; c++)
			dots_t += *c == '.';
		if (abs(dots_o - dots_t) == 1 &&
		    ((lo > lt + 1 && od[lo - lt - 1] == '.' && strcmp(od + lo - lt, td) == 0) ||
		     (lt > lo + 1 && td[lt - lo - 1] == '.' && strcmp(td + lt - lo, od) == 0)))
			eq = 1;
	}
out:
	g_free(o);
	g_free(t);
	return eq;
}

/* b4's get_trailers: person trailers must come from that person */
static void
pick_checked_trailers(struct lmsg *f, struct trlist *ok, struct trlist *bad)
{
	size_t i;

	for (i = 0; i < f->trailers.n; i++) {
		struct tr *t = f->trailers.v[i];
		int match = 0;

		if (t->type != TR_PERSON || series_email_eq(t->aaddr, f->m->from_email))
			match = 1;
		else if (g_ascii_strcasecmp(t->aname, f->m->from_name) == 0)
			match = 1;
		else {
			/* b4 accepts any From: name with a comma after its
			   first character (its chunk test always passes) */
			const char *c = strchr(f->m->from_name, ',');
			if (c && c > f->m->from_name)
				match = 1;
		}
		trlist_add(match ? ok : bad, t);
	}
}

static void
pick_followups(struct pick *k, struct trlist *mismatches)
{
	size_t i, j;

	for (i = 0; i < k->nfups; i++) {
		struct lmsg *f = k->fups[i], *pm = NULL;
		struct trlist trs = { 0 };

		if (!f->trailers.n)
			continue;
		if (!f->m->in_reply_to) {
			for (j = 0; j < f->m->nreferences && !pm; j++) {
				struct lmsg *r = pick_by_id(k, f->m->references[j]);
				if (r && r != f)
					pm = r;
			}
			if (!pm)
				continue;
		} else if (!(pm = pick_by_id(k, f->m->in_reply_to))) {
			continue;
		}
		pick_checked_trailers(f, &trs, mismatches);
		for (int guard = 0; guard < SERIES_MAX_DEPTH; guard++) {
			if (pm->has_diff && !pm->reply) {
				for (j = 0; j < trs.n; j++)
					trlist_add(&pm->fup, trs.v[j]);
				break;
			}
			if (!pm->reply) {	/* a cover letter */
				for (j = 0; j < trs.n; j++)
					trlist_add(&pm->fup, trs.v[j]);
				break;
			}
			if (pm->m->in_reply_to && pick_by_id(k, pm->m->in_reply_to)) {
				/* b4 also takes the intermediate reply's own
				   trailers, unchecked */
				for (j = 0; j < pm->trailers.n; j++)
					trlist_add(&trs, pm->trailers.v[j]);
				pm = pick_by_id(k, pm->m->in_reply_to);
				continue;
			}
			break;
		}
		free(trs.v);
	}
}

/* b4's partial_reroll: fills the holes of s from revision s->revision-1 */
static void
pick_partial_reroll(struct pick *k, struct ser *s)
{
	struct ser *ps = pick_ser(k, s->revision - 1);
	size_t i;

	if (s->revision <= 1 || !ps)
		return;
	for (i = 0; i < s->np; i++) {
		struct lmsg *p = s->p[i].l, *pp;
		int found = 0, guard;

		if (!p)
			continue;
		if (!p->m->in_reply_to || !(pp = pick_by_id(k, p->m->in_reply_to)))
			return;		/* not sent as a reply */
		for (guard = 0; guard < SERIES_MAX_DEPTH; guard++) {
			if (p->counter == pp->counter && p->expected == pp->expected) {
				found = 1;
				break;
			}
			if (!pp->m->in_reply_to || !pick_by_id(k, pp->m->in_reply_to))
				break;
			pp = pick_by_id(k, pp->m->in_reply_to);
		}
		if (!found)
			return;
	}
	for (i = 0; i < s->np && i < ps->np; i++) {
		if (!ps->p[i].l)
			continue;
		if (!s->p[i].l) {
			s->p[i] = ps->p[i];
			if (!s->p[i].from_version)
				s->p[i].from_version = ps->revision;
		}
	}
	for (i = 1; i < s->np; i++)
		if (!s->p[i].l)
			return;
	s->complete = 1;
	s->partial = 1;
}

/* ---- union-find over In-Reply-To/References: the thread ------------------ */

static size_t
uf_find(size_t *par, size_t x)
{
	while (par[x] != x)
		x = par[x] = par[par[x]];
	return x;
}

static void
uf_join(size_t *par, size_t a, size_t b)
{
	a = uf_find(par, a);
	b = uf_find(par, b);
	if (a != b)
		par[a] = b;
}

/* ---- commit message and diff ------------------------------------------- */

static void
series_trailer_line(struct buf *b, const struct tr *t)
{
	buf_addf(b, "%s: %s", t->name, t->value);
	if (t->extinfo) {
		if (t->extinfo[strspn(t->extinfo, " \t")] == '#')
			buf_addstr(b, t->extinfo);
		else
			buf_addf(b, "\n%s", t->extinfo);
	}
	buf_addch(b, '\n');
}

static int
tr_eq(const struct tr *a, const struct tr *b)
{
	return strcmp(a->lname, b->lname) == 0 &&
	    g_ascii_strcasecmp(a->value, b->value) == 0;
}

/*
 * The diff: from the first "diff --git" (or "--- "/"+++ " pair, or
 * "Index: ") not inside quoted text, through the last line a hunk or a
 * header of it accounts for.  What follows (base-commit: footers, the
 * "-- " signature) is not part of it: libgit2 rejects trailing garbage.
 */
static char *
series_diff(const char *body)
{
	static const char *const hdrs[] = { "diff --git ", "index ", "new file mode",
	    "deleted file mode", "old mode", "new mode", "similarity index",
	    "dissimilarity index", "rename from", "rename to", "copy from",
	    "copy to", "--- ", "+++ ", "Binary files", "GIT binary patch",
	    "literal ", "delta ", "Index: ", "===", NULL };
	const char *p = body, *start = NULL, *end = NULL, *next;
	size_t n;
	long old = 0, new = 0;
	int binary = 0;

	for (; *p; p = next) {
		size_t n2;
		next = series_line(p, &n);
		if (series_is_diff_git(p, n) || (n >= 7 && strncmp(p, "Index: ", 7) == 0) ||
		    (n >= 4 && strncmp(p, "--- ", 4) == 0 && *next &&
		     (series_line(next, &n2), n2 >= 4 && strncmp(next, "+++ ", 4) == 0))) {
			start = p;
			break;
		}
	}
	if (!start)
		return NULL;
	for (p = start; *p; p = next) {
		int i, known = 0;

		next = series_line(p, &n);
		if (old > 0 || new > 0) {
			/* inside a hunk; an empty line is a context line
			   whose space a mailer ate */
			if (n == 0 || p[0] == ' ') {
				old--, new--;
			} else if (p[0] == '-') {
				old--;
			} else if (p[0] == '+') {
				new--;
			} else if (p[0] == '\\') {
			} else {
				break;
			}
			end = next;
			continue;
		}
		if (n > 0 && p[0] == '\\') {	/* "\ No newline at end of file" */
			end = next;
			continue;
		}
		if (n >= 4 && strncmp(p, "@@ -", 4) == 0) {
			long a, b = 1, c, d = 1;
			const char *q = p + 4;
			char *e;

			a = strtol(q, &e, 10);
			if (*e == ',')
				b = strtol(e + 1, &e, 10);
			if (strncmp(e, " +", 2) != 0)
				break;
			c = strtol(e + 2, &e, 10);
			if (*e == ',')
				d = strtol(e + 1, &e, 10);
			(void)a, (void)c;
			if (b < 0 || d < 0 || b > 100000000 || d > 100000000)
				break;
			old = b;
			new = d;
			binary = 0;
			end = next;
			continue;
		}
		for (i = 0; hdrs[i]; i++)
			if (strncmp(p, hdrs[i], strlen(hdrs[i])) == 0)
				known = 1;
		if (known) {
			if (strncmp(p, "GIT binary patch", 16) == 0)
				binary = 1;
			end = next;
			continue;
		}
		/* base85 lines and the blank lines between binary hunks */
		if (binary && (n == 0 || (p[0] >= 'A' && p[0] <= 'z'))) {
			end = next;
			continue;
		}
		break;
	}
	if (!end)
		return NULL;
	return xstrndup(start, end - start);
}

/* " mm/swap.c | 12 ++++--", " mm/x.png  | Bin 0 -> 12 bytes",
   " 2 files changed, 9 insertions(+)", " create mode 100644 mm/new.c":
   git's diffstat, which notes leave out. */
int
series_is_diffstat_line(const char *p, size_t n)
{
	const char *e = p + n, *bar;

	if (n < 2 || p[0] != ' ')
		return 0;
	while (p < e && *p == ' ')
		p++;
	if ((size_t)(e - p) > 12 && (strncmp(p, "create mode ", 12) == 0 ||
	    strncmp(p, "delete mode ", 12) == 0 ||
	    strncmp(p, "rename ", 7) == 0 || strncmp(p, "mode change ", 12) == 0))
		return 1;
	if (isdigit((unsigned char)*p)) {
		const char *q = p;

		while (q < e && isdigit((unsigned char)*q))
			q++;
		return e - q > 5 && strncmp(q, " file", 5) == 0 &&
		    memmem(q, (size_t)(e - q), "changed", 7) != NULL;
	}
	if (!(bar = memchr(p, '|', (size_t)(e - p))) || bar == p)
		return 0;
	for (bar++; bar < e && *bar == ' '; bar++)
		;
	if ((size_t)(e - bar) >= 3 && strncmp(bar, "Bin", 3) == 0)
		return 1;
	if (bar == e || !isdigit((unsigned char)*bar))
		return 0;
	while (bar < e && isdigit((unsigned char)*bar))
		bar++;
	while (bar < e && (*bar == ' ' || *bar == '+' || *bar == '-'))
		bar++;
	return bar == e;
}

/*
 * What a patch mail carries below its "---" cut line (the same line
 * series_message_body cuts at) and before the diff: a changelog, and for
 * a patch without a cover letter often the author's test results.  git
 * am leaves it out of the commit; a reviewer reads it, and so do claims.
 * The diffstat is left out; the signature ("-- ") and the diff end it.
 * NULL when nothing but blank lines and the diffstat is there.
 */
static char *
series_notes(const char *body)
{
	struct buf out = BUF_INIT(0);
	const char *p, *nl;
	int any = 0;

	if (strncmp(body, "---\n", 4) == 0)
		p = body + 4;
	else if ((p = strstr(body, "\n---\n")))
		p += 5;
	else
		return NULL;
	for (; *p; p = nl ? nl + 1 : p + strlen(p)) {
		size_t n;

		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (n && p[n - 1] == '\r')
			n--;
		if ((n == 3 && strncmp(p, "-- ", 3) == 0) ||
		    (n >= 11 && strncmp(p, "diff --git ", 11) == 0) ||
		    (n >= 4 && strncmp(p, "--- ", 4) == 0 && nl &&
		    strncmp(nl + 1, "+++ ", 4) == 0) ||
		    (n >= 7 && strncmp(p, "Index: ", 7) == 0))
			break;
		if (series_is_diffstat_line(p, n))
			continue;
		if (n)
			any = 1;
		buf_add(&out, p, n);
		buf_addch(&out, '\n');
	}
	if (!any) {
		buf_release(&out);
		return NULL;
	}
	return buf_detach(&out, NULL);
}

/* The message part of a patch mail's body, cut in place: stripped of
   newlines, the signature after the last "\n-- \n" dropped, and cut at
   the "---" line (or else the diff). */
static char *
series_message_body(char *body)
{
	char *p, *sep, *sig, *mbody;
	size_t i;

	/* strip('\n') */
	for (p = body; *p == '\n'; p++)
		;
	memmove(body, p, strlen(p) + 1);
	for (i = strlen(body); i && body[i - 1] == '\n'; i--)
		body[i - 1] = '\0';
	/* the signature after the last "\n-- \n" */
	for (sig = NULL, p = body; (p = strstr(p, "\n-- \n")); p++)
		sig = p;
	if (sig)
		*sig = '\0';
	/* ^---\n splits message and basement; else "\ndiff " */
	sep = NULL;
	if (strncmp(body, "---\n", 4) == 0 || strcmp(body, "---") == 0)
		sep = body;
	else {
		for (p = body; (p = strstr(p, "\n---")); p++)
			if (p[4] == '\n' || p[4] == '\0') {
				sep = p + 1;
				break;
			}
	}
	if (sep)
		*sep = '\0';
	else if ((p = strstr(body, "\ndiff ")))
		*p = '\0';
	mbody = body;
	while (*mbody == '\n')
		mbody++;
	for (i = strlen(mbody); i && mbody[i - 1] == '\n'; i--)
		mbody[i - 1] = '\0';
	return mbody;
}

/* Splits mbody into paragraphs: the first may be in-body headers (*htr),
   the last may be trailers (*btr); the text in between, and the last
   paragraph's other lines, go to *m2. */
static void
series_message_paragraphs(struct arena *a, char *mbody, struct trlist *htr,
    struct trlist *btr, struct buf *m2)
{
	struct buf others = BUF_INIT(0);
	char **para = NULL, *p;
	size_t i, npara = 0, nothers = 0, hothers = 0;

	for (p = mbody;;) {
		char *e = strstr(p, "\n\n");
		para = xrealloc(para, (npara + 1) * sizeof(*para));
		para[npara++] = p;
		if (!e)
			break;
		*e = '\0';
		p = e + 2;
	}
	series_find_trailers(a, para[0], 0, htr, NULL, &hothers);
	if (hothers) {
		htr->n = 0;
		buf_addstr(m2, para[0]);
	}
	series_find_trailers(a, para[npara - 1], 0, btr, &others, &nothers);
	if (npara == 1) {
		int same = htr->n == btr->n;
		for (i = 0; same && i < htr->n; i++)
			same = tr_eq(htr->v[i], btr->v[i]);
		if (same)
			htr->n = 0;
		buf_reset(m2);
		if (nothers)
			buf_addstr(m2, others.data);
	} else {
		for (i = 1; i + 1 < npara; i++) {
			if (m2->len)
				buf_addstr(m2, "\n\n");
			buf_addstr(m2, para[i]);
		}
		if (nothers) {
			if (m2->len)
				buf_addstr(m2, "\n\n");
			buf_addstr(m2, others.data);
		}
	}
	free(para);
	buf_release(&others);
}

/* In-body From:/Subject:/Date: override the mail's (git mailinfo). */
static void
series_message_headers(const struct trlist *htr, const char **subject,
    struct patch *out)
{
	for (size_t i = 0; i < htr->n; i++) {
		struct tr *t = htr->v[i];
		if (strcmp(t->lname, "subject") == 0) {
			*subject = t->value;
		} else if (strcmp(t->lname, "from") == 0) {
			const char *lt = strrchr(t->value, '<'), *gt;
			gt = lt ? strchr(lt, '>') : NULL;
			if (lt && gt) {
				free(out->author);
				free(out->email);
				out->author = series_strip(t->value, lt - t->value);
				out->email = series_strip(lt + 1, gt - lt - 1);
			}
		} else if (strcmp(t->lname, "date") == 0) {
			free(out->date);
			out->date = xstrdup(t->value);
		}
	}
}

/* Appends to msg the text and trailers as git stripspace leaves them. */
static void
series_message_stripspace(struct buf *msg, const struct buf *m2,
    const struct trlist *all)
{
	struct buf raw = BUF_INIT(0);
	const char *q, *nx;
	size_t n;
	int blank = 1;	/* no leading blank lines */

	if (m2->len) {
		buf_addstr(&raw, m2->data);
		buf_addch(&raw, '\n');
	}
	if (all->n) {
		if (m2->len)
			buf_addch(&raw, '\n');
		for (size_t i = 0; i < all->n; i++)
			series_trailer_line(&raw, all->v[i]);
	}
	buf_addstr(&raw, "");
	if (raw.len)
		buf_addch(msg, '\n');
	for (q = raw.data; *q; q = nx) {
		nx = series_line(q, &n);
		while (n && isspace((unsigned char)q[n - 1]))
			n--;
		if (n == 0) {
			blank = 1;
			continue;
		}
		if (blank && msg->len && msg->data[msg->len - 1] == '\n' &&
		    !(msg->len >= 2 && msg->data[msg->len - 2] == '\n'))
			buf_addch(msg, '\n');
		blank = 0;
		buf_add(msg, q, n);
		buf_addch(msg, '\n');
	}
	buf_release(&raw);
}

/*
 * The commit message `b4 am | git am` produces: b4 splits the body at the
 * first "---" line (or the diff), takes the last paragraph's trailers,
 * appends the follow-up trailers it does not already have, and git am
 * takes in-body From:/Subject:/Date: headers and stops at "---".
 */
static void
series_message(struct arena *a, struct lmsg *l, const struct trlist *fup,
    struct patch *out)
{
	char *body = xstrdup(l->m->body), *mbody;
	struct trlist btr = { 0 }, htr = { 0 }, all = { 0 };
	struct buf msg = BUF_INIT(0), m2 = BUF_INIT(0);
	const char *subject = l->s.subject;
	struct subject s;
	size_t i, j;

	mbody = series_message_body(body);
	series_message_paragraphs(a, mbody, &htr, &btr, &m2);
	series_message_headers(&htr, &subject, out);

	/* the trailers: the patch's own, then new follow-up ones */
	for (i = 0; i < btr.n; i++)
		trlist_add(&all, btr.v[i]);
	for (i = 0; i < fup->n; i++) {
		int dup = 0;
		for (j = 0; j < all.n && !dup; j++)
			dup = tr_eq(all.v[j], fup->v[i]);
		if (!dup)
			trlist_add(&all, fup->v[i]);
	}

	/* subject: the whole header minus leading [..] prefixes */
	subject_parse(subject, &s);
	buf_addstr(&msg, s.reply ? subject : s.subject);
	subject_release(&s);
	buf_addch(&msg, '\n');
	series_message_stripspace(&msg, &m2, &all);
	out->message = buf_detach(&msg, NULL);
	out->ntrailers = all.n;
	out->trailers = xcalloc(all.n ? all.n : 1, sizeof(*out->trailers));
	for (i = 0; i < all.n; i++) {
		out->trailers[i].name = xstrdup(all.v[i]->name);
		out->trailers[i].value = xstrdup(all.v[i]->value);
	}
	free(btr.v);
	free(htr.v);
	free(all.v);
	buf_release(&m2);
	free(body);
}

/* ---- series_pick -------------------------------------------------------- */

static int
int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void
series_copy_trailers(struct trailer **dst, size_t *n, const struct trlist *l)
{
	size_t i;

	*n = l->n;
	*dst = xcalloc(l->n ? l->n : 1, sizeof(**dst));
	for (i = 0; i < l->n; i++) {
		(*dst)[i].name = xstrdup(l->v[i]->name);
		(*dst)[i].value = xstrdup(l->v[i]->value);
	}
}

/* Indexes the messages by Message-ID.  b4 skips a Message-ID it has
   already seen (lore's /all/ can return one per list); so do we: the
   first in mbox order stays, later duplicates get m = NULL. */
static void
series_pick_index(struct pick *k, struct msg *const *msgs, size_t nmsgs)
{
	size_t i, j;

	k->l = xcalloc(nmsgs ? nmsgs : 1, sizeof(*k->l));
	k->byid = xcalloc(nmsgs ? nmsgs : 1, sizeof(*k->byid));
	for (i = 0; i < nmsgs; i++) {
		k->l[i].idx = i;
		k->l[i].m = msgs[i];
		if (msgs[i]->msgid)
			k->byid[k->nbyid++] = &k->l[i];
	}
	qsort(k->byid, k->nbyid, sizeof(*k->byid), pick_cmp_id);
	for (i = 0, j = 0; i < k->nbyid; i++) {
		if (j && strcmp(k->byid[i]->m->msgid,
		    k->byid[j - 1]->m->msgid) == 0) {
			k->byid[i]->m = NULL;	/* later duplicate */
			continue;
		}
		k->byid[j++] = k->byid[i];
	}
	k->nbyid = j;
}

/* Adds the messages of the thread that holds want_msgid (all of them
   when it is NULL) to the revisions they belong to. */
static int
series_pick_thread(struct pick *k, size_t nmsgs, const char *want_msgid,
    struct buf *err)
{
	size_t *par = xmalloc((nmsgs ? nmsgs : 1) * sizeof(*par));
	size_t i, j, root = 0;
	int rc = -1;

	for (i = 0; i < nmsgs; i++)
		par[i] = i;
	for (i = 0; i < nmsgs; i++) {
		struct lmsg *l = &k->l[i], *r;
		if (!l->m)
			continue;
		if ((r = pick_by_id(k, l->m->in_reply_to)))
			uf_join(par, i, r - k->l);
		for (j = 0; j < l->m->nreferences; j++)
			if ((r = pick_by_id(k, l->m->references[j])))
				uf_join(par, i, r - k->l);
	}
	if (want_msgid) {
		struct lmsg *w = pick_by_id(k, want_msgid);
		if (!w) {
			buf_addf(err, "message <%s> is not in the thread", want_msgid);
			goto out;
		}
		root = uf_find(par, w - k->l);
	}
	for (i = 0; i < nmsgs; i++) {
		if (!k->l[i].m || (want_msgid && uf_find(par, i) != root))
			continue;
		pick_add_message(k, &k->l[i]);
	}
	rc = 0;
out:
	free(par);
	return rc;
}

/* Lists the thread's revisions in out->versions and finds the wanted one
   (0: the newest); NULL with err when the thread has none or not it. */
static struct ser *
series_pick_version(struct pick *k, int want_version, struct series *out,
    struct buf *err)
{
	struct buf v = BUF_INIT(0);
	struct ser *s;
	size_t i;

	if (!k->nser) {
		buf_addstr(err, "no patches in thread");
		return NULL;
	}
	out->nversions = k->nser;
	out->versions = xmalloc(k->nser * sizeof(int));
	for (i = 0; i < k->nser; i++)
		out->versions[i] = k->ser[i].revision;
	qsort(out->versions, k->nser, sizeof(int), int_cmp);
	if (!want_version)
		want_version = out->versions[k->nser - 1];
	if ((s = pick_ser(k, want_version)))
		return s;
	for (i = 0; i < out->nversions; i++)
		buf_addf(&v, "%sv%d", i ? ", " : "", out->versions[i]);
	buf_addf(err, "revision v%d not found; the thread has %s",
	    want_version, v.data);
	buf_release(&v);
	return NULL;
}

/* The cover letter of revision s, or the first patch's parent when that
   has a diffstat and no diff; NULL when there is none. */
static struct lmsg *
series_pick_cover(struct pick *k, struct ser *s)
{
	struct lmsg *cover = pick_cover(k, s->revision);

	if (cover) {
		ser_add_patch(s, cover);
		return cover;
	}
	for (size_t i = 1; i < s->np; i++) {
		struct lmsg *pl = s->p[i].l, *pot;
		/* as b4: the first patch whose parent looks like a
		   cover letter.  (b4 also looks at a partial reroll's
		   copied cover, which can land on an older revision's
		   cover letter; we keep the newer one.) */
		if (pl && pl->m->in_reply_to) {
			pot = pick_by_id(k, pl->m->in_reply_to);
			if (pot && pot->has_diffstat && !pot->has_diff)
				return pot;
		}
	}
	return NULL;
}

/* Refuses a revision with a missing patch or with no patches at all
   (after the cover letter: its 0/K can announce more patches). */
static int
series_pick_check(const struct ser *s, struct buf *err)
{
	for (size_t i = 1; i < s->np; i++) {
		if (!s->p[i].l) {
			buf_addf(err, "patch %zu/%d of v%d is missing", i,
			    s->expected, s->revision);
			return -1;
		}
	}
	if (s->np < 2) {
		buf_addf(err, "v%d has a cover letter and no patches", s->revision);
		return -1;
	}
	return 0;
}

/* The series' own fields: revision, counts, cover letter, author,
   footers and the follow-up trailers that matched no patch. */
static void
series_pick_header(const struct ser *s, const struct lmsg *cover,
    const struct trlist *mism, struct series *out)
{
	out->version = s->revision;
	/* a cover letter's 0/K may say fewer than the patches that came */
	out->total = (int)s->np - 1;
	out->partial_reroll = s->partial;
	if (cover) {
		out->cover_subject = xstrdup(cover->s.subject);
		out->cover_body = xstrdup(cover->m->body);
		out->cover_msgid = xstrdup(cover->m->msgid ? cover->m->msgid : "");
		out->author = xstrdup(cover->m->from_name);
		out->email = xstrdup(cover->m->from_email);
		series_copy_trailers(&out->cover_trailers, &out->ncover_trailers,
		    &cover->fup);
	} else {
		out->author = xstrdup(s->p[1].l->m->from_name);
		out->email = xstrdup(s->p[1].l->m->from_email);
	}
	/* footers: the cover letter's; else patch 1's (format-patch without
	   a cover letter writes them after the diff) */
	out->base_commit = s->base_commit ? xstrdup(s->base_commit) :
	    series_footer(s->p[1].l->m->body, "base-commit:");
	out->change_id = s->change_id ? xstrdup(s->change_id) :
	    series_footer(s->p[1].l->m->body, "change-id:");
	series_copy_trailers(&out->ignored_trailers, &out->nignored_trailers, mism);
}

/* Patch i of revision s: its fields, the commit message with its
   follow-up trailers (and those of an older revision's patch with the
   same patchwork hash, as b4 carries them over), and the diff. */
static void
series_pick_patch(struct pick *k, size_t nmsgs, const struct ser *s,
    size_t i, const struct series *out, struct patch *p)
{
	struct lmsg *l = s->p[i].l;
	struct trlist fup = { 0 };
	size_t j;

	for (j = 0; j < l->fup.n; j++)
		trlist_add(&fup, l->fup.v[j]);
	if (l->pwhash[0]) {
		for (size_t q = 0; q < nmsgs; q++) {
			struct lmsg *o = &k->l[q];
			if (o == l || !o->m || !o->has_diff || o->reply ||
			    o->revision == s->revision ||
			    strcmp(o->pwhash, l->pwhash) != 0)
				continue;
			for (j = 0; j < o->fup.n; j++)
				trlist_add(&fup, o->fup.v[j]);
		}
	}
	p->counter = (int)i;
	p->total = out->total;
	p->subject = xstrdup(l->s.subject);
	p->author = xstrdup(l->m->from_name);
	p->email = xstrdup(l->m->from_email);
	p->date = xstrdup(l->m->date);
	p->date_epoch = l->m->date_epoch;
	p->msgid = xstrdup(l->m->msgid ? l->m->msgid : "");
	p->from_version = s->p[i].from_version ? s->p[i].from_version : l->revision;
	series_message(&k->a, l, &fup, p);
	p->diff = series_diff(l->m->body);
	if (!p->diff)
		p->diff = xstrdup("");
	p->notes = series_notes(l->m->body);
	free(fup.v);
}

/* Frees what picking built. */
static void
series_pick_release(struct pick *k, size_t nmsgs)
{
	size_t i;

	for (i = 0; i < nmsgs; i++) {
		subject_release(&k->l[i].s);
		free(k->l[i].trailers.v);
		free(k->l[i].fup.v);
	}
	for (i = 0; i < k->nser; i++) {
		free(k->ser[i].p);
		free(k->ser[i].base_commit);
		free(k->ser[i].change_id);
	}
	free(k->ser);
	free(k->covers);
	free(k->covrev);
	free(k->fups);
	free(k->byid);
	free(k->l);
	arena_release(&k->a);
}

int
series_pick(struct msg *const *msgs, size_t nmsgs, const char *want_msgid,
    int want_version, struct series *out, struct buf *err)
{
	struct pick k = { 0 };
	struct trlist mism = { 0 };
	struct ser *s = NULL;
	struct lmsg *cover = NULL;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	series_pick_index(&k, msgs, nmsgs);
	if (series_pick_thread(&k, nmsgs, want_msgid, err) != 0)
		goto out;
	if (!(s = series_pick_version(&k, want_version, out, err)))
		goto out;
	/* follow-ups first: b4 tallies them while picking the older
	   revision for a partial reroll, which gives the same attribution */
	pick_followups(&k, &mism);
	if (!s->complete)
		pick_partial_reroll(&k, s);
	cover = series_pick_cover(&k, s);
	if (series_pick_check(s, err) != 0)
		goto out;
	series_pick_header(s, cover, &mism, out);
	out->npatches = s->np - 1;
	out->patches = xcalloc(out->npatches ? out->npatches : 1, sizeof(*out->patches));
	for (size_t i = 1; i < s->np; i++)
		series_pick_patch(&k, nmsgs, s, i, out, &out->patches[i - 1]);
	ret = 0;
out:
	if (ret)
		series_release(out);
	series_pick_release(&k, nmsgs);
	free(mism.v);
	return ret;
}

static void
series_free_trailers(struct trailer *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(t[i].name);
		free(t[i].value);
	}
	free(t);
}

void
series_release(struct series *s)
{
	size_t i;

	for (i = 0; i < s->npatches; i++) {
		struct patch *p = &s->patches[i];
		free(p->subject);
		free(p->author);
		free(p->email);
		free(p->date);
		free(p->msgid);
		free(p->message);
		free(p->diff);
		free(p->notes);
		series_free_trailers(p->trailers, p->ntrailers);
	}
	free(s->patches);
	free(s->cover_subject);
	free(s->cover_body);
	free(s->cover_msgid);
	free(s->author);
	free(s->email);
	free(s->change_id);
	free(s->base_commit);
	free(s->versions);
	series_free_trailers(s->cover_trailers, s->ncover_trailers);
	series_free_trailers(s->ignored_trailers, s->nignored_trailers);
	memset(s, 0, sizeof(*s));
}

/* ---- JSON --------------------------------------------------------------- */

static json_t *
series_jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *
series_jtrailers(const struct trailer *t, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s,s:s}", "name",
		    t[i].name, "value", t[i].value));
	return a;
}

struct json_t *
series_to_json(const struct series *s)
{
	json_t *o = json_object(), *ps = json_array(), *vs = json_array();
	size_t i;

	json_object_set_new(o, "version", json_integer(s->version));
	json_object_set_new(o, "total", json_integer(s->total));
	json_object_set_new(o, "cover_subject", series_jstr(s->cover_subject));
	json_object_set_new(o, "cover_msgid", series_jstr(s->cover_msgid));
	json_object_set_new(o, "change_id", series_jstr(s->change_id));
	json_object_set_new(o, "base_commit", series_jstr(s->base_commit));
	json_object_set_new(o, "author", series_jstr(s->author));
	json_object_set_new(o, "email", series_jstr(s->email));
	json_object_set_new(o, "partial_reroll", json_boolean(s->partial_reroll));
	for (i = 0; i < s->nversions; i++)
		json_array_append_new(vs, json_integer(s->versions[i]));
	json_object_set_new(o, "versions", vs);
	json_object_set_new(o, "cover_trailers",
	    series_jtrailers(s->cover_trailers, s->ncover_trailers));
	json_object_set_new(o, "ignored_trailers",
	    series_jtrailers(s->ignored_trailers, s->nignored_trailers));
	for (i = 0; i < s->npatches; i++) {
		const struct patch *p = &s->patches[i];
		json_t *j = json_object();

		json_object_set_new(j, "counter", json_integer(p->counter));
		json_object_set_new(j, "total", json_integer(p->total));
		json_object_set_new(j, "subject", series_jstr(p->subject));
		json_object_set_new(j, "author", series_jstr(p->author));
		json_object_set_new(j, "email", series_jstr(p->email));
		json_object_set_new(j, "date", series_jstr(p->date));
		json_object_set_new(j, "msgid", series_jstr(p->msgid));
		json_object_set_new(j, "from_version", json_integer(p->from_version));
		json_object_set_new(j, "trailers",
		    series_jtrailers(p->trailers, p->ntrailers));
		json_array_append_new(ps, j);
	}
	json_object_set_new(o, "patches", ps);
	return o;
}
