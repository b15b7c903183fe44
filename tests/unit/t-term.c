/*
 * t-term: cli/term.c -- what the CLI prints from the server or from mail
 * reaches the terminal without its control bytes.
 */
#include <string.h>

#include "cli/term.h"
#include "tests/unit/tap.h"

int
main(void)
{
	struct buf b = BUF_INIT(0);
	const char *in = "a\033]0;t\007b\tc\nd\x7f" "e\xc2\x9b" "2J\xc3\xa9";

	is_str(term_clean(in), "a?]0;t?b\tc?d?e?2J\xc3\xa9",
	    "one line: ESC, BEL, newline, DEL and C1 CSI become ?, "
	    "tab and other UTF-8 stay");
	term_add(&b, in, strlen(in), 1);
	is_str(b.data, "a?]0;t?b\tc\nd?e?2J\xc3\xa9", "lines: newline kept");
	buf_release(&b);
	is_str(term_clean(NULL), "", "NULL is \"\"");
	{
		const char *first = term_clean("x");

		for (int i = 0; i < TERM_RING - 1; i++)
			term_clean("y");
		is_str(first, "x", "a string lives for TERM_RING calls");
	}
	{
		struct buf t = BUF_INIT(0);

		term_add(&t, "\xc2", 1, 0);
		is_str(t.data, "\xc2", "a lone 0xc2 at the end is kept, "
		    "nothing read past it");
		buf_release(&t);
	}
	return tap_done();
}
