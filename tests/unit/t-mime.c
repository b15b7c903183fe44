/*
 * Unit tests for core/mime.c: headers and bodies, table-driven; a whole
 * mbox decoded one message at a time (msg_parse_mbox).
 */
#include <stdlib.h>
#include <string.h>

#include "core/mbox.h"
#include "core/mime.h"
#include "tests/unit/tap.h"

static const struct {
	const char *name, *raw;
	const char *from_name, *from_email, *subject, *msgid, *irt, *body;
	size_t	 nrefs;
	long long epoch;
} cases[] = {
	{ "plain",
	  "From: Alice <alice@example.org>\nSubject: [PATCH] x\nDate: Tue, 14 Nov 2023 22:30:00 +0000\n"
	  "Message-Id: <a@b>\n\nhello\n",
	  "Alice", "alice@example.org", "[PATCH] x", "a@b", NULL, "hello\n", 0, 1700001000 },
	{ "RFC 2047 name and folded encoded subject",
	  "From: =?UTF-8?q?J=C3=B6rg=20R=C3=B6del?= <j@example.org>\n"
	  "Subject: =?UTF-8?B?W1BBVENIXSBtbTogZ3LDtsOfZXJl?=\n =?UTF-8?Q?_Batches?=\n"
	  "Message-Id: <c@d>\nIn-Reply-To: <a@b>\nReferences: <z@y>\n <a@b>\n\nx\n",
	  "Jörg Rödel", "j@example.org", "[PATCH] mm: größere Batches", "c@d", "a@b", "x\n", 2, 0 },
	{ "quoted-printable utf-8",
	  "From: c@example.net\nSubject: Re: x\nMessage-Id: <e@f>\nMIME-Version: 1.0\n"
	  "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n"
	  "a =E2=80=94 b=\nc\nTested-by: C <c@example.net>\n",
	  "c@example.net", "c@example.net", "Re: x", "e@f", NULL,
	  "a \xe2\x80\x94 bc\nTested-by: C <c@example.net>\n", 0, 0 },
	{ "latin-1 converted to UTF-8",
	  "From: x@y.z\nSubject: s\nMessage-Id: <g@h>\nContent-Type: text/plain; charset=iso-8859-1\n"
	  "Content-Transfer-Encoding: 8bit\n\nR\xf6" "del\n",
	  "x@y.z", "x@y.z", "s", "g@h", NULL, "R\xc3\xb6" "del\n", 0, 0 },
	{ "base64 body with CRLF inside",
	  "From: x@y.z\nSubject: s\nMessage-Id: <i@j>\nContent-Transfer-Encoding: base64\n\n"
	  "bGluZSAxDQpsaW5lIDINCg==\n",
	  "x@y.z", "x@y.z", "s", "i@j", NULL, "line 1\nline 2\n", 0, 0 },
	{ "format=flowed delsp=yes",
	  "From: x@y.z\nSubject: s\nMessage-Id: <k@l>\n"
	  "Content-Type: text/plain; format=flowed; delsp=yes\n\n"
	  "one two \nthree\n> quoted \n> more\n-- \nsig\n",
	  "x@y.z", "x@y.z", "s", "k@l", NULL, "one twothree\n> quotedmore\n-- \nsig\n", 0, 0 },
	{ "multipart/alternative keeps text/plain only",
	  "From: x@y.z\nSubject: s\nMessage-Id: <m@n>\nMIME-Version: 1.0\n"
	  "Content-Type: multipart/alternative; boundary=B\n\n--B\nContent-Type: text/plain\n\nplain\n"
	  "--B\nContent-Type: text/html\n\n<p>html</p>\n--B--\n",
	  "x@y.z", "x@y.z", "s", "m@n", NULL, "plain\n", 0, 0 },
	{ "multipart/mixed with a base64 text/x-patch attachment",
	  "From: x@y.z\nSubject: s\nMessage-Id: <o@p>\nMIME-Version: 1.0\n"
	  "Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\nmessage\n"
	  "--B\nContent-Type: text/x-patch; name=a.patch\nContent-Transfer-Encoding: base64\n"
	  "Content-Disposition: attachment; filename=a.patch\n\nLS0tCmRpZmYgLS1naXQgYS94IGIveAo=\n"
	  "--B\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n\niVBORw0K\n--B--\n",
	  "x@y.z", "x@y.z", "s", "o@p", NULL, "message\n---\ndiff --git a/x b/x\n", 0, 0 },
	{ "no From, no Message-Id",
	  "Subject: s\n\nb\n", "", "", "s", NULL, NULL, "b\n", 0, 0 },
	{ "a byte that is no UTF-8 dropped in the charset conversion",
	  "Subject: s\nContent-Type: text/plain; charset=utf-8\n\na\xff" "b\n",
	  "", "", "s", NULL, NULL, "ab\n", 0, 0 },
	{ "an octet-stream .patch with a NUL and a bad byte: U+FFFD each",
	  "Subject: s\nMIME-Version: 1.0\nContent-Type: multipart/mixed; "
	  "boundary=B\n\n--B\nContent-Type: text/plain\n\nhi\n--B\n"
	  "Content-Type: application/octet-stream; name=x.patch\n"
	  "Content-Disposition: attachment; filename=x.patch\n"
	  "Content-Transfer-Encoding: base64\n\nZGlmZgB4/3kK\n--B--\n",
	  "", "", "s", NULL, NULL, "hi\ndiff\xef\xbf\xbdx\xef\xbf\xbdy\n", 0, 0 },
};

static void
test_unflow(void)
{
	static const struct { const char *in, *out; int delsp; } t[] = {
		{ "a \nb\n", "a b\n", 0 },
		{ "a \nb\n", "ab\n", 1 },
		{ " stuffed\n", "stuffed\n", 0 },
		{ "-- \nsig\n", "-- \nsig\n", 0 },
		{ "last \n", "last \n", 0 },
		{ "no flow\nhere\n", "no flow\nhere\n", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *s = strdup(t[i].in);
		mime_unflow(s, t[i].delsp);
		is_str(s, t[i].out, "unflow %zu", i);
		free(s);
	}
}

static void
note_skipped(size_t pos, const char *why, void *arg)
{
	buf_addf(arg, "%zu: %s\n", pos, why);
}

/* Each message decoded in mbox order, those that do not decode told by
   their place; a message over the cap refuses the whole mbox. */
static void
test_parse_mbox(void)
{
	static const char head[] = "From a\nSubject: one\n\nbody\n\n"
	    "From b\nMessage-ID: <big@x>\n\n";
	static const char in[] = "From a\nSubject: one\n\nbody1\n\n"
	    "From b\n no header\n\nnot mail\n\n"
	    "From c\r\nSubject: three\r\n\r\nbody3\r\n\r\n"
	    "From d\nSubject: cut";
	struct buf err = BUF_INIT(1024), why = BUF_INIT(1024);
	struct msg_list l;
	size_t len = (9u << 20) + 64;
	char *big, *p;

	is_int(msg_parse_mbox(in, strlen(in), &l, note_skipped, &why, &err), 0,
	    "mbox: decodes");
	is_int(l.n, 2, "mbox: two messages decoded");
	is_int(l.nmbox, 3, "mbox: of three complete ones");
	is_int(l.truncated, 1, "mbox: the cut-off one counted");
	if (l.n == 2) {
		is_str(l.v[0]->subject, "one", "mbox: in order (1)");
		is_str(l.v[1]->subject, "three", "mbox: in order (3)");
		is_str(l.v[1]->body, "body3\n", "mbox: a CRLF body");
		is_int(l.v[1]->body_len, 6, "mbox: its length");
	}
	is_str(why.data, "2: message has no headers GMime can parse\n",
	    "mbox: the undecodable one told by its place");
	msg_list_release(&l);

	p = big = malloc(len);
	p = mempcpy(p, head, sizeof(head) - 1);
	memset(p, 'x', big + len - p);
	buf_reset(&err);
	is_int(msg_parse_mbox(big, len, &l, NULL, NULL, &err), -1,
	    "mbox: a 9 MiB message refuses the mbox");
	is_str(err.data, "message 2 of the mbox (Message-ID <big@x>) is larger "
	    "than 8 MiB, the most one message may be", "  saying which");
	ok(l.n == 0 && l.v == NULL, "  and nothing decoded is kept");
	free(big);
	buf_release(&err);
	buf_release(&why);
}

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct msg m;
		struct buf err = BUF_INIT(1024);

		if (!ok(msg_parse(cases[i].raw, strlen(cases[i].raw), &m, &err) == 0,
		    "%s: parses", cases[i].name))
			continue;
		is_str(m.from_name, cases[i].from_name, "%s: from name", cases[i].name);
		is_str(m.from_email, cases[i].from_email, "%s: from email", cases[i].name);
		is_str(m.subject, cases[i].subject, "%s: subject", cases[i].name);
		is_str(m.msgid, cases[i].msgid, "%s: msgid", cases[i].name);
		is_str(m.in_reply_to, cases[i].irt, "%s: in-reply-to", cases[i].name);
		is_str(m.body, cases[i].body, "%s: body", cases[i].name);
		is_int(m.nreferences, cases[i].nrefs, "%s: references", cases[i].name);
		if (cases[i].epoch)
			is_int(m.date_epoch, cases[i].epoch, "%s: date", cases[i].name);
		msg_release(&m);
		buf_release(&err);
	}
	test_unflow();
	test_parse_mbox();
	return tap_done();
}
