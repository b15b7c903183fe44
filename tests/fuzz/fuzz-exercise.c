/*
 * fuzz-exercise: what core/exercise.c reads from outside -- a series'
 * diff and patched source (from the patch), the patched build's System.map
 * (made by the patch's build), the guest's console log (splats) and the
 * agents' probe hits (exercise_state_of over uploaded attempts).  The
 * input is split at NULs: diff, source, System.map, console, attempts
 * JSON.  Runs from the repository root (etc/ is read for suites).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/exercise.h"
#include "lib/buf.h"
#include "lib/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct part {
	const char	*p;
	size_t		 n;
};

static int
read_src(const char *path, struct buf *out, void *arg)
{
	const struct part *src = arg;

	(void)path;
	buf_add(out, src->p, src->n);
	return 0;
}

static void
split(const uint8_t *data, size_t size, struct part *parts, size_t np)
{
	const char *s = (const char *)data, *end = s + size;

	for (size_t i = 0; i < np; i++) {
		const char *nul = memchr(s, 0, (size_t)(end - s));

		parts[i].p = s;
		parts[i].n = nul ? (size_t)(nul - s) : (size_t)(end - s);
		s = nul ? nul + 1 : end;
	}
}

static void
check_plan(const struct exercise_plan *p)
{
	const json_t *f;
	size_t i;

	if (!json_is_object(p->changes) || !json_is_array(p->probes) ||
	    json_array_size(p->probes) > PROTO_MAX_PROBES)
		abort();
	json_array_foreach(p->probes, i, f)
		if (!proto_valid_symbol(json_string_value(f)))
			abort();
	json_array_foreach(json_object_get(p->changes, "functions"), i, f)
		if (!json_is_string(json_object_get(f, "status")))
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct part pt[5];
	struct buf err = BUF_INIT(4096);
	struct exercise_plan plan;
	json_t *attempts;
	char first[128];
	size_t lines = 1;
	int n;

	split(data, size, pt, 5);
	n = exercise_splats(pt[3].p, pt[3].n, first, sizeof(first));
	for (size_t i = 0; i < pt[3].n; i++)
		lines += pt[3].p[i] == '\n';
	if (n < 0 || (size_t)n > lines || strlen(first) >= sizeof(first) ||
	    (n == 0 && first[0]))
		abort();
	for (size_t i = 0; first[i]; i++)
		if ((unsigned char)first[i] < 0x20 ||
		    (unsigned char)first[i] > 0x7e)
			abort();
	attempts = json_loadb(pt[4].p, pt[4].n, 0, NULL);
	if (exercise_plan_diff(pt[0].p, pt[0].n, read_src, &pt[1],
	    pt[2].n ? pt[2].p : NULL, pt[2].n, NULL, "etc", &plan,
	    &err) == 0) {
		check_plan(&plan);
		(void)exercise_state_of(plan.changes, attempts);
		exercise_plan_release(&plan);
	} else if (err.len == 0)
		abort();
	(void)exercise_state_of(attempts, attempts);
	json_decref(attempts);
	buf_release(&err);
	return 0;
}
