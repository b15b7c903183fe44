/*
 * tracks: the nightly work as the faces ask for it (see tracks.h): a
 * [track] section as a struct track_conf, a manual run queued, and a
 * regression's report.txt.  The work itself is the track threads'
 * (track.c); the API (api_track.c) and the pages (ui_track.c) come
 * here, never to the threads or to each other.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/app.h"
#include "daemon/config.h"
#include "daemon/db_track.h"
#include "daemon/tracks.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

/* The track threads' wake-up (tracks_set_kick), or NULL. */
static void (*tracks_kick_fn)(void);

void
tracks_set_kick(void (*fn)(void))
{
	tracks_kick_fn = fn;
}

static void
tracks_kick(void)
{
	if (tracks_kick_fn)
		tracks_kick_fn();
}

/* ---- configuration ----------------------------------------------------- */

void
tracks_conf_release(struct track_conf *tc)
{
	free(tc->name);
	free(tc->tree);
	free(tc->branch);
	free(tc->matrix);
	memset(tc, 0, sizeof(*tc));
}

int
tracks_conf_get(const char *name, struct track_conf *tc)
{
	const struct settings_track *t = settings_track(&app.settings, name);

	memset(tc, 0, sizeof(*tc));
	if (!t)
		return -1;
	tc->name = xstrdup(name);
	tc->tree = xstrdup(t->tree ? t->tree : "");
	tc->branch = xstrdup(t->branch);
	tc->matrix = t->matrix ? xstrdup(t->matrix) : NULL;
	tc->at_min = t->at ? config_parse_at(t->at) : -1;
	tc->every_sec = t->every ? config_parse_every(t->every) : 0;
	tc->boots = t->boots;
	tc->max_boots = t->max_boots;
	tc->priority = t->priority;
	tc->first_parent = t->first_parent;
	return 0;
}

/* ---- runs and regressions ---------------------------------------------- */

int
tracks_run_now(struct db *db, const char *name, long long *id, int *existing)
{
	struct track_conf tc;
	long long since;
	int rc;

	if (tracks_conf_get(name, &tc) != 0)
		return 1;
	db_track_since(db, name, time(NULL), &since);
	rc = db_track_run_new(db, name, "manual", tc.boots, time(NULL), id,
	    existing);
	tracks_conf_release(&tc);
	if (rc == 0)
		tracks_kick();
	return rc;
}

void
tracks_report(struct buf *b, const struct track_regression *g,
    const struct bisect_step *steps, size_t n)
{
	size_t i;

	buf_addf(b, "Greeting,\n\nkperfci's nightly runs of tree %s (track %s) "
	    "found a %+.1f%% regression of %s.%s (%s%s%s) [95%% CI %+.1f%% .. "
	    "%+.1f%%] between run %lld (%.12s) and run %lld (%.12s).\n\n",
	    g->tree, g->track, g->pct_change, g->workload, g->metric,
	    g->params, *g->params ? ", " : "", g->better < 0 ?
	    "lower is better" : "higher is better", g->ci_lo, g->ci_hi,
	    g->good_run, g->good_commit, g->bad_run, g->bad_commit);
	if (g->first_bad) {
		buf_addf(b, "commit: %s (\"%s\")\nauthor: %s\n", g->first_bad,
		    g->subject ? g->subject : "", g->author ? g->author : "");
		if (g->link)
			buf_addf(b, "link:   %s\n", g->link);
	} else if (g->suspects && !strcmp(g->state, "unconfirmed")) {
		buf_addf(b, "the bisect ended on %s, but it is not named: it "
		    "did not reproduce in boots of its own\n", g->suspects);
	} else if (g->suspects) {
		buf_addf(b, "the first bad commit is one of (they did not build "
		    "or boot): %s\n", g->suspects);
	} else {
		buf_addf(b, "bisect: %s%s%s\n", g->state, g->error ? ": " : "",
		    g->error ? g->error : "");
	}
	if (g->verified)
		buf_addf(b, "verified: %s\n", g->verified);
	buf_addf(b, "\nin testcase: %s\non test machine: the kperfci agent "
	    "pool (see the runs' jobs)\nwith following parameters: %s\n\n",
	    g->workload, *g->params ? g->params : "(defaults)");
	buf_addf(b, "bisect steps (%%change of the step from the last good, "
	    "and of the first bad from the step, 95%% CI):\n\n");
	for (i = 0; i < n; i++)
		buf_addf(b, "  %.12s  %-5s  %2d boots  %+6.1f%% [%+.1f%%, "
		    "%+.1f%%]  %+6.1f%% [%+.1f%%, %+.1f%%]  %s\n",
		    steps[i].commit_id, steps[i].verdict ? steps[i].verdict :
		    steps[i].state, steps[i].boots, steps[i].pct_vs_good,
		    steps[i].ci_good_lo, steps[i].ci_good_hi,
		    steps[i].pct_vs_bad, steps[i].ci_bad_lo, steps[i].ci_bad_hi,
		    steps[i].reason ? steps[i].reason : "");
	buf_addf(b, "\nTo reproduce:\n\n  git checkout %s\n  kperfci build "
	    "--tree TREE --commit %s --cache DIR\n  kperfci-load --matrix "
	    "MATRIX    # in a guest booted with that kernel; compare with "
	    "its parent\n\nIf you fix the issue, kindly add following tag\n"
	    "| Reported-by: kperfci nightly\n| Closes: /regressions/%lld\n",
	    g->first_bad ? g->first_bad : g->bad_commit,
	    g->first_bad ? g->first_bad : g->bad_commit, g->id);
}
