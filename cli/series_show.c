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

#include "core/claims.h"
#include "core/lore.h"
#include "core/mbox.h"
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

		printf("%s\n", txt);
		free(txt);
		json_decref(j);
	} else {
		if (!cs.n)
			printf("no quantitative claims\n");
		for (size_t i = 0; i < cs.n; i++) {
			const struct claim *c = &cs.v[i];

			printf("%s: %s [%s]\n    %s", c->where,
			    claim_kind_name(c->kind), c->rule, c->text);
			if (c->has_before && c->has_after)
				printf("\n    before %g%s, after %g%s",
				    c->before, c->unit, c->after, c->unit);
			else if (c->has_before)
				printf("\n    value %g%s", c->before, c->unit);
			if (c->has_change)
				printf("%s%+.1f%%%s%s", c->has_before ?
				    ", change " : "\n    change ",
				    c->change_pct, c->dir ? " " : "",
				    c->dir ? claim_dir_name(c->dir) : "");
			if (c->words[0])
				printf("\n    metric words: %s", c->words);
			printf("\n");
		}
	}
	claims_release(&cs);
}

static void
series_show_text(const struct series *s, int messages)
{
	size_t i, j;

	printf("v%d, %zu patch%s", s->version, s->npatches,
	    s->npatches == 1 ? "" : "es");
	if (s->nversions > 1) {
		printf(" (thread has");
		for (i = 0; i < s->nversions; i++)
			printf(" v%d", s->versions[i]);
		printf(")");
	}
	if (s->partial_reroll)
		printf(", partial reroll");
	printf("\n");
	if (s->cover_subject)
		printf("cover: %s\n", s->cover_subject);
	printf("author: %s <%s>\n", s->author ? s->author : "",
	    s->email ? s->email : "");
	if (s->base_commit)
		printf("base-commit: %s\n", s->base_commit);
	if (s->change_id)
		printf("change-id: %s\n", s->change_id);
	for (i = 0; i < s->npatches; i++) {
		const struct patch *p = &s->patches[i];

		printf("[%d/%d] %s\n", p->counter, p->total, p->subject);
		printf("      %s <%s>, %s, <%s>", p->author, p->email, p->date,
		    p->msgid);
		if (p->from_version != s->version)
			printf(", from v%d", p->from_version);
		printf("\n");
		for (j = 0; j < p->ntrailers; j++)
			printf("      %s: %s\n", p->trailers[j].name,
			    p->trailers[j].value);
		if (messages)
			printf("----- message\n%s----- diff\n%s-----\n",
			    p->message, p->diff);
	}
	for (i = 0; i < s->ncover_trailers; i++)
		printf("cover letter trailer (not applied): %s: %s\n",
		    s->cover_trailers[i].name, s->cover_trailers[i].value);
	for (i = 0; i < s->nignored_trailers; i++)
		printf("ignored (sender is not the trailer's person): %s: %s\n",
		    s->ignored_trailers[i].name, s->ignored_trailers[i].value);
}

static void
series_show_usage(void)
{
	fprintf(stderr, "usage: kperfci series show (--mbox FILE | --url URL "
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

static int
series_cmd(int argc, char **argv, int claims)
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
	const char *mboxpath = NULL, *url = NULL, *msgid = NULL;
	const char **allow = NULL;
	size_t nallow = 0, i;
	int c, version = 0, json = 0, messages = 0, rc = 1;
	struct buf data = BUF_INIT(LORE_MAX_BYTES), err = BUF_INIT(4096);
	struct lore_url lu = { 0 };
	struct mbox mb = { 0 };
	struct msg *msgs = NULL, **ptrs = NULL;
	size_t nmsgs = 0;
	struct series s = { 0 };
	char *end;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm': mboxpath = optarg; break;
		case 'u': url = optarg; break;
		case 'a':
			allow = xrealloc(allow, (nallow + 1) * sizeof(*allow));
			allow[nallow++] = optarg;
			break;
		case 'i': msgid = optarg; break;
		case 'v':
			version = (int)strtol(optarg, &end, 10);
			if (*end || version <= 0) {
				fprintf(stderr, "kperfci: --version wants a "
				    "positive number, not '%s'\n", optarg);
				rc = 2;
				goto out;
			}
			break;
		case 'j': json = 1; break;
		case 'M': messages = 1; break;
		default:
			fprintf(stderr, "kperfci: series show: unknown option or "
			    "missing value: %s\n", argv[optind - 1]);
			series_show_usage();
			rc = 2;
			goto out;
		}
	}
	if (optind != argc || !!mboxpath == !!url || (url && !nallow)) {
		series_show_usage();
		rc = 2;
		goto out;
	}
	if (mboxpath) {
		/* "-" is standard input */
		if ((strcmp(mboxpath, "-") == 0 ? buf_read_fd(&data, 0) :
		    buf_read_file(&data, mboxpath)) < 0) {
			if (data.overflow)
				fprintf(stderr, "kperfci: %s: larger than %u MiB\n",
				    mboxpath, LORE_MAX_BYTES >> 20);
			else
				fprintf(stderr, "kperfci: %s: %s\n", mboxpath,
				    strerror(errno));
			goto out;
		}
	} else {
		if (lore_parse_url(url, allow, nallow, &lu, &err) < 0 ||
		    lore_fetch_thread_allow(lu.base, lu.list, lu.msgid, allow,
		    nallow, &data, &err) < 0) {
			fprintf(stderr, "kperfci: %s\n", err.data);
			goto out;
		}
		if (!msgid)
			msgid = lu.msgid;
		if (!version)
			version = lu.version;
	}
	if (mbox_split(data.data ? data.data : "", data.len, &mb, &err) < 0) {
		fprintf(stderr, "kperfci: %s\n", err.data);
		goto out;
	}
	if (mb.truncated)
		fprintf(stderr, "kperfci: warning: %zu message(s) cut off, skipped\n",
		    mb.truncated);
	msgs = xcalloc(mb.n, sizeof(*msgs));
	ptrs = xcalloc(mb.n, sizeof(*ptrs));
	for (i = 0; i < mb.n; i++) {
		buf_reset(&err);
		if (msg_parse(mb.msgs[i].data, mb.msgs[i].len, &msgs[nmsgs], &err) < 0) {
			fprintf(stderr, "kperfci: warning: message %zu: %s\n",
			    i + 1, err.data);
			continue;
		}
		ptrs[nmsgs] = &msgs[nmsgs];
		nmsgs++;
	}
	buf_reset(&err);
	if (series_pick(ptrs, nmsgs, msgid, version, &s, &err) < 0) {
		fprintf(stderr, "kperfci: %s\n", err.data);
		goto out;
	}
	if (claims) {
		series_claims_print(&s, json);
	} else if (json) {
		json_t *j = series_to_json(&s);
		char *txt = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (messages) {
			for (i = 0; i < s.npatches; i++) {
				json_t *p = json_array_get(json_object_get(j, "patches"), i);
				json_object_set_new(p, "message", json_string(s.patches[i].message));
				json_object_set_new(p, "diff", json_string(s.patches[i].diff));
			}
			free(txt);
			txt = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		}
		printf("%s\n", txt);
		free(txt);
		json_decref(j);
	} else {
		series_show_text(&s, messages);
	}
	rc = 0;
out:
	series_release(&s);
	for (i = 0; i < nmsgs; i++)
		msg_release(&msgs[i]);
	free(msgs);
	free(ptrs);
	mbox_release(&mb);
	lore_url_release(&lu);
	buf_release(&data);
	buf_release(&err);
	free(allow);
	return rc;
}
