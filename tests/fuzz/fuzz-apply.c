/*
 * fuzz-apply: a patch from a mail is outside input.  tree_apply takes the
 * diff (libgit2's parser, then git apply -3 on refusal), the author's date
 * (its zone is parsed here) and trims the mail signature.  The input is
 * "DATE\nDIFF"; the repository is made once, in a temporary directory.
 * Nothing may crash, and a failure must come with a sentence.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/series.h"
#include "core/tree.h"
#include "lib/buf.h"
#include "lib/run.h"
#include "lib/xalloc.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char repo[] = "/tmp/fuzz-apply.XXXXXX";

static void
fuzz_cleanup(void)
{
	const char *rm[] = { "rm", "-rf", repo, NULL };
	struct run r = { 0 };

	r.argv = rm;
	run_cmd(&r);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *sh[] = { "sh", "-ec", "git init -q -b master && "
	    "seq 1 30 > f && mkdir -p mm && printf 'a\\nb\\nc\\n' > mm/g.c && "
	    "git add -A && git -c user.name=f -c user.email=f@x commit -qm base",
	    NULL };
	struct run r = { 0 };

	if (!mkdtemp(repo))
		abort();
	r.argv = sh;
	r.dir = repo;
	if (run_cmd(&r) != 0)
		abort();
	atexit(fuzz_cleanup);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT(1 << 20);
	struct tree_applied a;
	struct patch p;
	char *text = xstrndup((const char *)data, size);
	char *nl = strchr(text, '\n');

	memset(&p, 0, sizeof(p));
	p.counter = p.total = 1;
	p.subject = "fuzz";
	p.author = "F";
	p.email = "f@x";
	p.message = "fuzz\n";
	p.date_epoch = 1700000000;
	if (nl) {
		*nl = '\0';
		p.date = text;
		p.diff = nl + 1;
	} else
		p.diff = text;
	if (tree_apply(repo, "master", &p, 1, NULL, &a, &err) == 0)
		tree_applied_release(&a);
	else if (!err.len)
		abort();
	buf_release(&err);
	free(text);
	return 0;
}
