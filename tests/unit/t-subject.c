/* Unit tests for subject_parse (core/series.c), table-driven. */
#include <string.h>

#include "core/series.h"
#include "tests/unit/tap.h"

static const struct {
	const char *in;
	int	 reply, patch, rfc, resend, rev, rev_inf, counter, expected, cnt_inf;
	const char *subject;
} cases[] = {
	{ "[PATCH] mm: x", 0, 1, 0, 0, 1, 1, 1, 1, 1, "mm: x" },
	{ "[PATCH v3 2/5] mm: x", 0, 1, 0, 0, 3, 0, 2, 5, 0, "mm: x" },
	{ "[PATCHv3 02/05] mm: x", 0, 1, 0, 0, 3, 0, 2, 5, 0, "mm: x" },
	{ "[RFC PATCH v2 0/4] cover", 0, 1, 1, 0, 2, 0, 0, 4, 0, "cover" },
	{ "[PATCH RESEND 1/2] x", 0, 1, 0, 1, 1, 1, 1, 2, 0, "x" },
	{ "[RESEND][PATCH v4 1/1] x", 0, 1, 0, 1, 4, 0, 1, 1, 0, "x" },
	{ "[PATCH net-next v2 3/7] net: y", 0, 1, 0, 0, 2, 0, 3, 7, 0, "net: y" },
	{ "[PATCH 1/3,] z", 0, 1, 0, 0, 1, 1, 1, 3, 0, "z" },
	{ "  [PATCH   v2   1/2]   spaced   out ", 0, 1, 0, 0, 2, 0, 1, 2, 0, "spaced out" },
	{ "Re: [PATCH v2 1/2] x", 1, 0, 0, 0, 1, 1, 1, 1, 1, "Re: [PATCH v2 1/2] x" },
	{ "RE: x", 1, 0, 0, 0, 1, 1, 1, 1, 1, "RE: x" },
	{ "Aw: [PATCH] x", 1, 0, 0, 0, 1, 1, 1, 1, 1, "Aw: [PATCH] x" },
	{ "Fwd: [PATCH] x", 1, 0, 0, 0, 1, 1, 1, 1, 1, "Fwd: [PATCH] x" },
	{ "SV: [PATCH] x", 1, 0, 0, 0, 1, 1, 1, 1, 1, "SV: [PATCH] x" },
	{ "mm: not a patch", 0, 0, 0, 0, 1, 1, 1, 1, 1, "mm: not a patch" },
	{ "[PATCH v99999999999 1/2] huge", 0, 1, 0, 0, 1, 1, 1, 2, 0, "huge" },
	{ "[PATCH 12345/2] too many digits", 0, 1, 0, 0, 1, 1, 1, 1, 1, "too many digits" },
	{ "[PATCH", 0, 0, 0, 0, 1, 1, 1, 1, 1, "[PATCH" },
	{ "", 0, 0, 0, 0, 1, 1, 1, 1, 1, "" },
};

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct subject s;
		const char *n = cases[i].in;

		subject_parse(n, &s);
		is_int(s.reply, cases[i].reply, "'%s': reply", n);
		is_int(s.patch, cases[i].patch, "'%s': patch", n);
		is_int(s.rfc, cases[i].rfc, "'%s': rfc", n);
		is_int(s.resend, cases[i].resend, "'%s': resend", n);
		is_int(s.revision, cases[i].rev, "'%s': revision", n);
		is_int(s.revision_inferred, cases[i].rev_inf, "'%s': revision inferred", n);
		is_int(s.counter, cases[i].counter, "'%s': counter", n);
		is_int(s.expected, cases[i].expected, "'%s': expected", n);
		is_int(s.counters_inferred, cases[i].cnt_inf, "'%s': counters inferred", n);
		is_str(s.subject, cases[i].subject, "'%s': subject", n);
		subject_release(&s);
	}
	{
		struct subject s;
		subject_parse(NULL, &s);
		is_str(s.subject, "", "NULL subject is empty");
		subject_release(&s);
	}
	return tap_done();
}
