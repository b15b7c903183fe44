/*
 * testsh.h: shell steps for unit tests that build fixture git repositories
 * (t-tree, t-build).  Fixture scripts are the test's own text, never input.
 *
 *	testsh_run(dir, script, fixed_dates)  sh -ec script in dir with a
 *		fixed git identity (and fixed dates when asked); 0 or -1
 *	testsh_capture(dir, script)  its stdout, trailing newlines dropped;
 *		malloc'd
 */
#ifndef KPERFCI_TESTSH_H
#define KPERFCI_TESTSH_H

#include "lib/buf.h"
#include "lib/run.h"

static inline int
testsh_run(const char *dir, const char *script, int fixed_dates)
{
	const char *argv[] = { "sh", "-ec", script, NULL };
	/* The dates come last: without fixed_dates the list ends before
	   them. */
	const char *env[] = { "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
	    "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org",
	    fixed_dates ? "GIT_AUTHOR_DATE=1700000000 +0000" : NULL,
	    "GIT_COMMITTER_DATE=1700000000 +0000", NULL };
	struct run r = { 0 };

	r.argv = argv;
	r.env = env;
	r.dir = dir;
	r.log_path = "/dev/stderr";
	return run_cmd(&r);
}

static inline char *
testsh_capture(const char *dir, const char *script)
{
	const char *argv[] = { "sh", "-ec", script, NULL };
	struct run r = { 0 };
	struct buf b = BUF_INIT(1 << 20);

	r.argv = argv;
	r.dir = dir;
	run_capture(&r, &b);
	while (b.len && b.data[b.len - 1] == '\n')
		b.data[--b.len] = '\0';
	return buf_detach(&b, NULL);
}

#endif
