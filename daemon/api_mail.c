/*
 * api_mail: the replies kperfci sends, as JSON (what `kperfci mail show`
 * prints).
 *
 *	GET /api/v1/mail/{id}		{id, msgid, kind, state, reason,
 *					 series, subject, rcpt, message}
 *	GET /api/v1/series/{id}/mail	{series, reply, mails: [...],
 *					 preview}  reply: the series' policy
 *					 (yes | regressions | no, null when
 *					 none was stored)
 *					 preview: the body a reply would
 *					 have now (no recipients: those come
 *					 from the thread when it is sent)
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "daemon/app.h"
#include "daemon/db_mail.h"
#include "daemon/http.h"
#include "daemon/mail.h"
#include "daemon/report.h"
#include "daemon/report_mail.h"
#include "lib/xalloc.h"

static json_t *
api_mail_obj(const struct mail_row *m)
{
	return json_pack("{s:I,s:s,s:s,s:s,s:s?,s:I,s:s?,s:s?,s:s?,s:s?,s:I,"
	    "s:I,s:I}", "id", (json_int_t)m->id, "msgid", m->msgid, "kind",
	    m->kind, "state", m->state, "reason", m->reason, "series",
	    (json_int_t)m->series_id, "subject", m->subject, "rcpt", m->rcpt,
	    "list", m->list, "message", m->message, "attempts",
	    (json_int_t)m->attempts, "created", (json_int_t)m->created, "sent",
	    (json_int_t)m->sent);
}

static int
api_mail_get(struct http_req *req, struct http_resp *resp)
{
	struct mail_row m;
	long long id;
	int rc;
	json_t *o;

	if (http_param_id(req, resp, "id", &id) < 0)
		return 0;
	if ((rc = db_mail_get(req->db, id, &m)) != 0)
		return http_reply_error(resp, rc == 1 ? 404 : 500, rc == 1 ?
		    "no mail %lld" : "store error reading mail %lld", id);
	o = api_mail_obj(&m);
	mail_row_release(&m);
	return http_reply_json(resp, 200, o);
}

static int
api_mail_series(struct http_req *req, struct http_resp *resp)
{
	struct mail_row *rows;
	struct report r;
	size_t n;
	long long id;
	json_t *a, *o;
	int rc;

	if (http_param_id(req, resp, "id", &id) < 0)
		return 0;
	if ((rc = report_load(req->db, id, REPORT_NOWAIT, &r)) != 0) {
		if (rc == 0)
			report_release(&r);
		return http_reply_error(resp, rc == 1 ? 404 : 500, rc == 1 ?
		    "no series %lld" : "store error reading series %lld", id);
	}
	if (db_mail_list(req->db, id, 0, &rows, &n) < 0) {
		report_release(&r);
		return http_reply_error(resp, 500, "store error reading mail");
	}
	a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, api_mail_obj(&rows[i]));
	mail_rows_free(rows, n);
	o = json_pack("{s:I,s:o}", "series", (json_int_t)id, "mails", a);
	{
		char *policy = NULL, *irt = NULL;

		if (db_mail_policy_get(req->db, id, &policy, &irt) == 0)
			json_object_set_new(o, "reply", policy ?
			    json_string(policy) : json_null());
		free(policy);
		free(irt);
	}
	if (r.comparison_id && !report_is_live(&r)) {
		struct report_mail rm = { 0 };
		struct buf body = BUF_INIT(0);
		char *pub = app.settings.mail.public_url ?
		    xasprintf("%s", app.settings.mail.public_url) :
		    xasprintf("http://%s:%d/", app.settings.daemon.listen,
		    app.settings.daemon.port);

		rm.public_url = pub;
		rm.greet = r.author;
		rm.thread_url = r.source;
		report_mail_body(&r, &rm, &body);
		json_object_set_new(o, "preview", json_string(body.data ?
		    body.data : ""));
		buf_release(&body);
		free(pub);
	}
	report_release(&r);
	return http_reply_json(resp, 200, o);
}

const struct route api_mail_routes[] = {
	{ "GET", "/api/v1/mail/{id}", api_mail_get, 0, 0 },
	{ "GET", "/api/v1/series/{id}/mail", api_mail_series, 0, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
