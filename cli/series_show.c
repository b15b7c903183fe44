/*
 * series_show: `kperfci series show` -- runs the daemon's intake path
 * (lore fetch, mbox split, MIME decode, series pick) offline, in this
 * process, and prints what kperfcid would test.
 *
 *	kperfci series show --mbox FILE|- [--msgid ID] [--version N] [--json]
 *	    [--messages]
 *	kperfci series show --url URL --allow BASE [--allow BASE...] [...]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/term.h"
#include "core/claims.h"
#include "core/lore.h"
#include "core/mime.h"
#include "core/series.h"
#include "lib/xalloc.h"

int	cmd_series_show(int argc, char **argv);
int	cmd_series_claims(int argc, char **argv);

/* `series claims`: the quantitative claims of the picked series. */
static void
series_claims_print(const struct series *s, int json)
{
	struct claims cs = { 0 };

	claims_extract_series(&cs, s);
	if (json) {
		json_t *j = claims_to_json(&cs);
		char *txt = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		term_printf("%s\n", txt);
		free(txt);
		json_decref(j);
	} else {
		if (!cs.n)
			term_printf("no quantitative claims\n");
		for (size_t i = 0; i < cs.n; i++) {
			const struct claim *c = &cs.v[i];

			term_printf("%s: %s [%s]\n    %s", c->where,
			    claim_kind_name(c->kind), c->rule, c->text);
			if (c->has_before && c->has_after)
				term_printf("\n    before %g%s, after %g%s",
				    c->before, c->unit, c->after, c->unit);
			else if (c->has_before)
				term_printf("\n    value %g%s", c->before,
				    c->unit);
			if (c->has_change)
				term_printf("%s%+.1f%%%s%s", c->has_before ?
				    ", change " : "\n    change ",
				    c->change_pct, c->dir ? " " : "",
				    c->dir ? claim_dir_name(c->dir) : "");
			if (c->words[0])
				term_printf("\n    metric words: %s", c->words);
			term_printf("\n");
		}
	}
	claims_release(&cs);
}

static void
series_show_text(const struct series *s, int messages)
{
	size_t i, j;

	term_printf("v%d, %zu patch%s", s->version, s->npatches,
	    s->npatches == 1 ? "" : "es");
	if (s->nversions > 1) {
		term_printf(" (thread has");
		for (i = 0; i < s->nversions; i++)
			term_printf(" v%d", s->versions[i]);
		term_printf(")");
	}
	if (s->partial_reroll)
		term_printf(", partial reroll");
	term_printf("\n");
	if (s->cover_subject)
		term_printf("cover: %s\n", s->cover_subject);
	term_printf("author: %s <%s>\n", s->author ? s->author : "",
	    s->email ? s->email : "");
	if (s->base_commit)
		term_printf("base-commit: %s\n", s->base_commit);
	if (s->change_id)
		term_printf("change-id: %s\n", s->change_id);
	for (i = 0; i < s->npatches; i++) {
		const struct patch *p = &s->patches[i];

		term_printf("[%d/%d] %s\n", p->counter, p->total, p->subject);
		term_printf("      %s <%s>, %s, <%s>", p->author, p->email,
		    p->date, p->msgid);
		if (p->from_version != s->version)
			term_printf(", from v%d", p->from_version);
		term_printf("\n");
		for (j = 0; j < p->ntrailers; j++)
			term_printf("      %s: %s\n", p->trailers[j].name,
			    p->trailers[j].value);
		if (messages)
			term_printf("----- message\n%s----- diff\n%s-----\n",
			    p->message, p->diff);
	}
	for (i = 0; i < s->ncover_trailers; i++)
		term_printf("cover letter trailer (not applied): %s: %s\n",
		    s->cover_trailers[i].name, s->cover_trailers[i].value);
	for (i = 0; i < s->nignored_trailers; i++)
		term_printf("ignored (sender is not the trailer's person): "
		    "%s: %s\n",
		    s->ignored_trailers[i].name, s->ignored_trailers[i].value);
}

static void
series_show_usage(void)
{
	term_eprintf("usage: kperfci series show (--mbox FILE | --url URL "
	    "--allow BASE...) [--msgid ID] [--version N] [--json] [--messages]\n");
}

static int series_cmd(int argc, char **argv, int claims);

int
cmd_series_show(int argc, char **argv)
{
	return series_cmd(argc, argv, 0);
}

int
cmd_series_claims(int argc, char **argv)
{
	return series_cmd(argc, argv, 1);
}

/* What the command line of `kperfci series show|claims` asked for. */
struct series_show_args {
	const char *mboxpath, *url, *msgid;
	const char **allow;
	size_t	 nallow;
	int	 version, json, messages;
};

/* Reads the options into *a.  0, or 2 after a usage error (printed). */
static int
series_show_parse(int argc, char **argv, struct series_show_args *a)
{
	static const struct option opts[] = {
		{ "mbox", required_argument, NULL, 'm' },
		{ "url", required_argument, NULL, 'u' },
		{ "allow", required_argument, NULL, 'a' },
		{ "msgid", required_argument, NULL, 'i' },
		{ "version", required_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'j' },
		{ "messages", no_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm': a->mboxpath = optarg; break;
		case 'u': a->url = optarg; break;
		case 'a':
			a->allow = xrealloc(a->allow, (a->nallow + 1) *
			    sizeof(*a->allow));
			a->allow[a->nallow++] = optarg;
			break;
		case 'i': a->msgid = optarg; break;
		case 'v':
			a->version = (int)strtol(optarg, &end, 10);
			if (*end || a->version <= 0) {
				term_eprintf("kperfci: --version wants a "
				    "positive number, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'j': a->json = 1; break;
		case 'M': a->messages = 1; break;
		default:
			term_eprintf("kperfci: series show: unknown option or "
			    "missing value: %s\n", argv[optind - 1]);
			series_show_usage();
			return 2;
		}
	}
	if (optind != argc || !!a->mboxpath == !!a->url ||
	    (a->url && !a->nallow)) {
		series_show_usage();
		return 2;
	}
	return 0;
}

/* The thread's mbox: the file ("-" is standard input), or fetched from
   the allowed lore URL (whose message and revision become the defaults).
   0, or -1 (printed). */
static int
series_show_read(struct series_show_args *a, struct lore_url *lu,
    struct buf *data, struct buf *err)
{
	if (a->mboxpath) {
		if ((strcmp(a->mboxpath, "-") == 0 ? buf_read_fd(data, 0) :
		    buf_read_file(data, a->mboxpath)) < 0) {
			if (data->overflow)
				term_eprintf("kperfci: %s: larger than %u MiB\n",
				    a->mboxpath, LORE_MAX_BYTES >> 20);
			else
				term_eprintf("kperfci: %s: %s\n", a->mboxpath,
				    strerror(errno));
			return -1;
		}
		return 0;
	}
	if (lore_parse_url(a->url, a->allow, a->nallow, lu, err) < 0 ||
	    lore_fetch_thread_allow(lu->base, lu->list, lu->msgid, a->allow,
	    a->nallow, data, err) < 0) {
		term_eprintf("kperfci: %s\n", err->data);
		return -1;
	}
	if (!a->msgid)
		a->msgid = lu->msgid;
	if (!a->version)
		a->version = lu->version;
	return 0;
}

static void
series_show_skipped(size_t pos, const char *why, void *arg)
{
	term_eprintf("kperfci: warning: message %zu: %s\n", pos,
	    term_clean(why));
}

/* Decodes the messages of the mbox into msgs (a message that does not
   parse is skipped with a warning).  0, or -1 (printed). */
static int
series_show_messages(const struct buf *data, struct msg_list *msgs,
    struct buf *err)
{
	if (msg_parse_mbox(data->data ? data->data : "", data->len, msgs,
	    series_show_skipped, NULL, err) < 0) {
		term_eprintf("kperfci: %s\n", term_clean(err->data));
		return -1;
	}
	if (msgs->truncated)
		term_eprintf("kperfci: warning: %zu message(s) cut off, skipped\n",
		    msgs->truncated);
	return 0;
}

/* The series as JSON, with each patch's message and diff when asked. */
static void
series_show_json(const struct series *s, int messages)
{
	json_t *j = series_to_json(s);
	char *txt = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	if (messages) {
		for (size_t i = 0; i < s->npatches; i++) {
			json_t *p = json_array_get(json_object_get(j, "patches"), i);
			json_object_set_new(p, "message", json_string(s->patches[i].message));
			json_object_set_new(p, "diff", json_string(s->patches[i].diff));
			if (s->patches[i].notes)
				json_object_set_new(p, "notes",
				    json_string(s->patches[i].notes));
		}
		free(txt);
		txt = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	}
	printf("%s\n", txt);
	free(txt);
	json_decref(j);
}

static int
series_cmd(int argc, char **argv, int claims)
{
	struct series_show_args a = { 0 };
	struct buf data = BUF_INIT(LORE_MAX_BYTES), err = BUF_INIT(4096);
	struct lore_url lu = { 0 };
	struct msg_list msgs = { 0 };
	struct series s = { 0 };
	int rc;

	if ((rc = series_show_parse(argc, argv, &a)) != 0)
		goto out;
	rc = 1;
	if (series_show_read(&a, &lu, &data, &err) != 0 ||
	    series_show_messages(&data, &msgs, &err) != 0)
		goto out;
	buf_release(&data);	/* the decoded messages are all that is read */
	buf_reset(&err);
	if (series_pick(msgs.v, msgs.n, a.msgid, a.version, &s, &err) < 0) {
		term_eprintf("kperfci: %s\n", term_clean(err.data));
		goto out;
	}
	if (claims)
		series_claims_print(&s, a.json);
	else if (a.json)
		series_show_json(&s, a.messages);
	else
		series_show_text(&s, a.messages);
	rc = 0;
out:
	series_release(&s);
	msg_list_release(&msgs);
	lore_url_release(&lu);
	buf_release(&data);
	buf_release(&err);
	free(a.allow);
	return rc;
}
