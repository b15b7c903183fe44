/*
 * Unit tests for the text of a reply (daemon/mail.c's headers and
 * recipients, daemon/report_mail.c's body): at most 72 columns but for a
 * URL standing alone, "Re:" once, In-Reply-To and References pointing at
 * the thread, recipients only from the message replied to (its From, then
 * its To/Cc, trimmed by [mail] cc and cc_max), no header injection from a
 * hostile name, and a reproduce block whose long commands are shell
 * continuation lines rather than lines broken at a blank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/app.h"
#include "daemon/mail.h"
#include "daemon/report.h"
#include "daemon/report_mail.h"
#include "lib/buf.h"
#include "lib/smtp.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static char **
strv(const char *const *v, size_t *n)
{
	char **out;

	for (*n = 0; v[*n]; (*n)++)
		;
	out = xcalloc(*n + 1, sizeof(*out));
	for (size_t i = 0; i < *n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

static void
root_init(struct mail_root *r, const char *from_name, const char *from,
    const char *const *addrs, const char *const *refs)
{
	memset(r, 0, sizeof(*r));
	r->msgid = xstrdup("cover.1.git.dev@example.org");
	r->subject = xstrdup("[PATCH 0/1] mm: batch the thing");
	r->from_name = from_name ? xstrdup(from_name) : NULL;
	r->from_email = xstrdup(from);
	r->addrs = strv(addrs, &r->naddrs);
	r->refs = strv(refs, &r->nrefs);
}

/* The value of header name in b (first occurrence), or "" (static). */
static const char *
header(const char *b, const char *name)
{
	static char v[1024];
	size_t nl = strlen(name);

	v[0] = '\0';
	for (const char *p = b; p && *p; p = strchr(p, '\n'), p = p ? p + 1 :
	    NULL) {
		if (!strncmp(p, name, nl) && p[nl] == ':' && p[nl + 1] == ' ') {
			const char *e = strchr(p, '\n');
			size_t n = e ? (size_t)(e - p) - nl - 2 : strlen(p + nl + 2);

			if (n >= sizeof(v))
				n = sizeof(v) - 1;
			memcpy(v, p + nl + 2, n);
			v[n] = '\0';
			break;
		}
	}
	return v;
}

static int
lines_fit(const char *t, size_t width, const char **bad)
{
	for (const char *p = t; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		int one_word = 1;

		for (size_t i = 0; i < n; i++)
			if (p[i] == ' ' && i > 0 && p[i - 1] != ' ')
				one_word = 0;
		if (n > width && !one_word) {
			*bad = p;
			return 0;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return 1;
}

static void
test_headers(void)
{
	static const char *const addrs[] = { "linux-mm@example.org",
	    "Re Viewer <reviewer@example.org>", "dev@example.org", NULL };
	static const char *const refs[] = { NULL };
	static const char *const refs2[] = { "a@x", "b@x", NULL };
	struct mail_root r;
	struct buf h = BUF_INIT(0), rc = BUF_INIT(0), rh = BUF_INIT(0);
	char *re;

	app.settings.mail.from = "kperfci <kperfci@example.org>";
	app.settings.mail.cc_max = 8;
	root_init(&r, "Dev Eloper", "dev@example.org", addrs, refs);

	re = mail_re(r.subject);
	is_str(re, "Re: [PATCH 0/1] mm: batch the thing", "Re: the subject");
	free(re);
	re = mail_re("RE: already a reply");
	is_str(re, "RE: already a reply", "Re: only once");
	free(re);

	mail_headers(&h, "kperfci.result.C1.L1.x@example.org", &r, NULL,
	    "Re: [PATCH 0/1] mm: batch the thing");
	is_str(header(h.data, "From"), "kperfci <kperfci@example.org>",
	    "From: [mail] from");
	is_str(header(h.data, "Subject"), "Re: [PATCH 0/1] mm: batch the thing",
	    "Subject: Re: the root's");
	is_str(header(h.data, "Message-ID"),
	    "<kperfci.result.C1.L1.x@example.org>", "Message-ID");
	is_str(header(h.data, "In-Reply-To"), "<cover.1.git.dev@example.org>",
	    "In-Reply-To the cover letter");
	is_str(header(h.data, "References"), "<cover.1.git.dev@example.org>",
	    "References the cover letter");
	ok(strstr(h.data, "Content-Type: text/plain; charset=utf-8\n") &&
	    strstr(h.data, "Auto-Submitted: auto-replied\n"),
	    "plain text, marked automatic");
	buf_release(&h);

	/* an answer to a command: In-Reply-To it, References the chain */
	mail_root_release(&r);
	root_init(&r, "Dev Eloper", "dev@example.org", addrs, refs2);
	h = (struct buf)BUF_INIT(0);
	mail_headers(&h, "kperfci.answer.y@example.org", &r, "cmd-1@example.org",
	    "Re: x");
	is_str(header(h.data, "In-Reply-To"), "<cmd-1@example.org>",
	    "an answer is In-Reply-To the command");
	is_str(header(h.data, "References"), "<a@x> <b@x> "
	    "<cover.1.git.dev@example.org> <cmd-1@example.org>",
	    "References: the root's, the root, the command, in order");
	buf_release(&h);

	/* recipients: To the author, Cc the rest of the thread, not twice */
	ok(mail_recipients(&r, &rc, &rh) == 0, "recipients");
	is_str(rc.data, "dev@example.org\nlinux-mm@example.org\n"
	    "reviewer@example.org\n", "the author, then To/Cc, each once");
	is_str(header(rh.data, "To"), "\"Dev Eloper\" <dev@example.org>",
	    "To: the author by name");
	is_str(header(rh.data, "Cc"), "linux-mm@example.org, "
	    "reviewer@example.org", "Cc: the list and the reviewer");
	buf_release(&rc);
	buf_release(&rh);

	/* [mail] cc keeps only the matching ones; cc_max caps them */
	{
		static const char *cc[] = { "@example.org" };
		static const char *const many[] = { "a@example.org",
		    "b@other.org", "c@example.org", "d@example.org", NULL };

		mail_root_release(&r);
		root_init(&r, NULL, "dev@example.org", many, refs);
		app.settings.mail.cc = cc;
		app.settings.mail.ncc = 1;
		app.settings.mail.cc_max = 2;
		rc = (struct buf)BUF_INIT(0);
		rh = (struct buf)BUF_INIT(0);
		ok(mail_recipients(&r, &rc, &rh) == 0, "recipients, trimmed");
		is_str(rc.data, "dev@example.org\na@example.org\n"
		    "c@example.org\n", "[mail] cc filters, cc_max caps");
		is_str(header(rh.data, "To"), "dev@example.org",
		    "no name: the bare address");
		buf_release(&rc);
		buf_release(&rh);
		app.settings.mail.cc = NULL;
		app.settings.mail.ncc = 0;
		app.settings.mail.cc_max = 8;
	}

	/* a hostile name cannot add a header or a recipient */
	{
		static const char *const none[] = { NULL };

		mail_root_release(&r);
		root_init(&r, "Eve\r\nBcc: victim@example.org", "eve@example.org",
		    none, refs);
		rc = (struct buf)BUF_INIT(0);
		rh = (struct buf)BUF_INIT(0);
		ok(mail_recipients(&r, &rc, &rh) == 0, "hostile name");
		is_str(rc.data, "eve@example.org\n", "only the sender");
		ok(!strstr(rh.data, "\nBcc:") && !strchr(rh.data, '\r'),
		    "no header injected from the name");
		buf_release(&rc);
		buf_release(&rh);
	}

	/* nobody to write to */
	mail_root_release(&r);
	{
		static const char *const none[] = { NULL };

		root_init(&r, "X", "not an address", none, refs);
		rc = (struct buf)BUF_INIT(0);
		rh = (struct buf)BUF_INIT(0);
		ok(mail_recipients(&r, &rc, &rh) < 0,
		    "a From without an address: no mail");
		buf_release(&rc);
		buf_release(&rh);
	}
	mail_root_release(&r);
}

static void
gen(struct buf *b, int boots, double mean)
{
	for (int i = 1; i <= boots; i++)
		for (int k = 1; k <= 3; k++)
			buf_addf(b, "{\"boot\":%d,\"workload\":\"fault-free\","
			    "\"params\":\"mode=shmem,tasks=2\",\"iteration\":%d,"
			    "\"metric\":\"pages_per_sec\",\"value\":%.1f,"
			    "\"unit\":\"pages/s\",\"better\":\"higher\"}\n",
			    i, k, mean + i * 0.7 + k * 0.3);
}

static void
test_body(void)
{
	struct buf bs = BUF_INIT(0), ts = BUF_INIT(0), err = BUF_INIT(0);
	struct buf out = BUF_INIT(0), w = BUF_INIT(0);
	struct report r;
	struct report_mail m = {
		.public_url = "http://ci.example.org/",
		.greet = "Dev Eloper",
		.thread_url = "https://lore.kernel.org/linux-mm/"
		    "20241104123456.1234567-1-a.very.long.name@example.org/",
		.msgid = "20241104123456.1234567-1-a.very.long.name@example.org",
	};
	const char *bad = NULL;

	report_init(&r);
	r.series_id = 7;
	r.series_state = xstrdup("done");
	r.series_final = 1;
	r.comparison_id = 3;
	r.state = xstrdup("done");
	r.subject = xstrdup("mm: batch the thing, with a subject long enough "
	    "that its line in the headline must be wrapped somewhere");
	r.base_commit = xstrdup("2de6ba68c3b586a31aa9c9572777175a148a3a33");
	r.tree = xstrdup("mm");
	r.hw_class = xstrdup("2s-2n-4c-abcd");
	r.topology = xstrdup("2 sockets, 2 NUMA nodes, 4 CPUs");
	r.matrix = xstrdup("[run \"ff\"]\nworkload = fault-free\n");
	r.side[0].planned = r.side[1].planned = 6;
	r.side[0].done = r.side[1].done = 6;
	gen(&bs, 6, 1000);
	gen(&ts, 6, 1100);
	ok(report_compute(&r, bs.data, bs.len, ts.data, ts.len, NULL,
	    &err) == 0, "compute");
	report_mail_body(&r, &m, &out);
	ok(out.data && strstr(out.data, "Hello Dev Eloper,\n"), "greets");
	ok(strstr(out.data, "and found:\n  improvement.\n"),
	    "the verdict, the headline wrapped two columns in");
	ok(strstr(out.data, "http://ci.example.org/series/7\n"),
	    "an absolute link");
	ok(lines_fit(out.data, REPORT_MAIL_WIDTH, &bad),
	    "every line fits 72 columns but a lone URL");
	if (bad)
		printf("#   %.100s\n", bad);
	ok(strstr(out.data, "  kperfci submit \\\n    --base "
	    "2de6ba68c3b586a31aa9c9572777175a148a3a33 --boots 6 \\\n"
	    "    https://lore.kernel.org/linux-mm/"), "a long submit command "
	    "is continuation lines, the URL alone");
	ok(strstr(out.data, "    b4 am -o kperfci-series \\\n      '2024"),
	    "so is a long b4 am");
	for (const char *p = out.data; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\n') {
			ok(0, "no control bytes");
			break;
		}

	/* a short command stays on one line */
	buf_release(&out);
	m.thread_url = "http://lore/l/x@y/";
	m.msgid = "x@y";
	report_mail_body(&r, &m, &out);
	ok(strstr(out.data, "--boots 6 \\\n    http://lore/l/x@y/\n") != NULL,
	    "the submit command with a base is still continued");
	ok(strstr(out.data, "    b4 am -o kperfci-series 'x@y'\n") != NULL,
	    "b4 am: one line");

	/* the wrap: control bytes, long words, indents */
	report_mail_wrap("a\001b\tc\177\n", 72, &w);
	is_str(w.data, "a?b c?\n", "control bytes become '?', a tab a blank");
	buf_release(&w);
	report_mail_wrap("  one two three four five six seven eight nine ten",
	    20, &w);
	ok(lines_fit(w.data, 20, &bad) && strstr(w.data, "\n    "),
	    "a wrapped line continues two columns in");
	buf_release(&w);

	report_release(&r);
	buf_release(&out);
	buf_release(&bs);
	buf_release(&ts);
	buf_release(&err);
}

/* A [mail] ca_file that cannot be read: named, and the message waits
   (not refused for good) without a connection tried. */
static void
test_smtp_ca_file(void)
{
	struct smtp_relay r = { "127.0.0.1", 9, 1, NULL, NULL, NULL,
	    "/nonexistent/kperfci-ca.pem" };
	const char *to[] = { "dev@example.org" };
	struct buf err = BUF_INIT(1024);
	int permanent = -1;

	ok(smtp_send(&r, "ci@example.org", to, 1, "Subject: x\n\nx\n", 14,
	    &permanent, &err) == -1, "a missing ca_file: not sent");
	is_str(err.data, "[mail] ca_file /nonexistent/kperfci-ca.pem: No "
	    "such file or directory", "the reason names the file");
	is_int(permanent, 0, "the message waits for the fix");
	buf_release(&err);
}

int
main(void)
{
	test_headers();
	test_body();
	test_smtp_ca_file();
	return tap_done();
}
