/*
 * smtp: one message to an SMTP relay through libcurl (smtp.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "lib/smtp.h"
#include "lib/xalloc.h"

struct smtp_src {
	const char	*p;
	size_t		 left;
};

/* The relay's last reply line, for the reason of a refusal: libcurl's own
   text for a 4xx/5xx after DATA is "Weird server reply", while the relay's
   ("451 try again later") says what to do. */
#define SMTP_REPLY_MAX	256

struct smtp_reply {
	char	line[SMTP_REPLY_MAX];
};

static int
smtp_debug(CURL *c, curl_infotype t, char *data, size_t n, void *arg)
{
	struct smtp_reply *r = arg;
	size_t k = 0;

	(void)c;
	if (t != CURLINFO_HEADER_IN || n < 4)
		return 0;
	/* one reply line per call; keep it printable and bounded */
	while (k < n && k < sizeof(r->line) - 1 && data[k] != '\r' &&
	    data[k] != '\n') {
		unsigned char ch = (unsigned char)data[k];

		r->line[k] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
		k++;
	}
	r->line[k] = '\0';
	return 0;
}

static size_t
smtp_read(char *dst, size_t sz, size_t nm, void *arg)
{
	struct smtp_src *s = arg;
	size_t n = sz * nm;

	if (n > s->left)
		n = s->left;
	memcpy(dst, s->p, n);
	s->p += n;
	s->left -= n;
	return n;
}

int
smtp_send(const struct smtp_relay *r, const char *from,
    const char *const *rcpt, size_t nrcpt, const char *msg, size_t len,
    int *permanent, struct buf *err)
{
	struct curl_slist *to = NULL;
	struct smtp_src src = { msg, len };
	struct smtp_reply reply = { "" };
	char cerr[CURL_ERROR_SIZE], *url, *mfrom;
	long code = 0;
	CURLcode cr;
	CURL *c;
	int rc = -1;

	*permanent = 0;
	/* curl says only "problem with the SSL CA cert (path? access
	   rights?)": the file is named here, and the message waits */
	if (r->ca_file && access(r->ca_file, R_OK) != 0)
		return buf_addf(err, "[mail] ca_file %s: %s", r->ca_file,
		    strerror(errno)), -1;
	if (!(c = curl_easy_init()))
		return buf_addstr(err, "curl_easy_init failed"), -1;
	url = xasprintf("smtp://%s:%d/%s", r->host, r->port,
	    r->helo ? r->helo : "kperfci");
	mfrom = xasprintf("<%s>", from);
	for (size_t i = 0; i < nrcpt; i++) {
		char *a = xasprintf("<%s>", rcpt[i]);

		to = curl_slist_append(to, a);
		free(a);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)SMTP_CONNECT_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)SMTP_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_USE_SSL, r->starttls ? (long)CURLUSESSL_ALL :
	    (long)CURLUSESSL_NONE);
	/* libcurl verifies the peer and its name by default; only where it
	   finds the CAs is ours to say */
	if (r->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, r->ca_file);
	if (r->user) {
		curl_easy_setopt(c, CURLOPT_USERNAME, r->user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, r->password ?
		    r->password : "");
	}
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, mfrom);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, to);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, smtp_read);
	curl_easy_setopt(c, CURLOPT_READDATA, &src);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, smtp_debug);
	curl_easy_setopt(c, CURLOPT_DEBUGDATA, &reply);
	curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);
	cerr[0] = '\0';
	cr = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (cr != CURLE_OK) {
		size_t l = strlen(cerr);

		while (l && (cerr[l - 1] == '\n' || cerr[l - 1] == '\r'))
			cerr[--l] = '\0';
		/* a 5xx refuses the message; a refused login or STARTTLS is
		   this side's configuration, and the message goes once that
		   is fixed */
		if (code >= 500 && code < 600 && cr != CURLE_LOGIN_DENIED &&
		    cr != CURLE_USE_SSL_FAILED)
			*permanent = 1;
		/* a refused login says so: the relay's 535 alone reads as
		   if it refused the message */
		if (cr == CURLE_LOGIN_DENIED)
			buf_addf(err, "AUTH as %s refused: ", r->user ?
			    r->user : "(none)");
		/* the relay's words only when they refuse (4xx, 5xx): after
		   a TLS failure the last reply is "220 TLS go ahead" */
		if (code >= 400 && strtol(reply.line, NULL, 10) == code)
			buf_addstr(err, reply.line);
		else if (code >= 400)
			buf_addf(err, "%ld %s", code, l ? cerr :
			    curl_easy_strerror(cr));
		else
			buf_addstr(err, l ? cerr : curl_easy_strerror(cr));
		goto out;
	}
	rc = 0;
out:
	curl_slist_free_all(to);
	curl_easy_cleanup(c);
	free(url);
	free(mfrom);
	return rc;
}

int
smtp_read_auth(const char *path, char **user, char **password,
    struct buf *err)
{
	struct buf b = BUF_INIT(4096);
	char *colon, *nl;
	int rc = -1;

	*user = *password = NULL;
	if (buf_read_file(&b, path) < 0 || !b.data) {
		buf_addf(err, "%s: cannot be read", path);
		goto out;
	}
	if ((nl = strchr(b.data, '\n')))
		*nl = '\0';
	if ((nl = strchr(b.data, '\r')))
		*nl = '\0';
	if (!(colon = strchr(b.data, ':')) || colon == b.data) {
		buf_addf(err, "%s: expected one line \"user:password\"", path);
		goto out;
	}
	*user = xstrndup(b.data, colon - b.data);
	*password = xstrdup(colon + 1);
	rc = 0;
out:
	buf_release(&b);
	return rc;
}
