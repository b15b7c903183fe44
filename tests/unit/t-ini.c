/*
 * Unit tests for lib/ini.c: each case is a text and the transcript of what
 * the tokenizer handed to its callbacks (headers, keys, error sentences),
 * so a change in grammar, line numbers or messages shows as a diff.
 */
#include <stdio.h>
#include <string.h>

#include "lib/ini.h"
#include "tests/unit/tap.h"

struct rec {
	char	 out[4096];
	const char *refuse;	/* a section the header callback refuses */
	const char *refuse_key;	/* a key the key callback refuses */
};

static int
rec_section(void *ctx, const struct ini_item *it)
{
	struct rec *r = ctx;
	size_t n = strlen(r->out);

	snprintf(r->out + n, sizeof(r->out) - n, "[%s:%d %s %s]", it->file,
	    it->line, it->section, it->sub ? it->sub : "-");
	return r->refuse && !strcmp(r->refuse, it->section) ? -1 : 0;
}

static int
rec_key(void *ctx, const struct ini_item *it)
{
	struct rec *r = ctx;
	size_t n = strlen(r->out);

	snprintf(r->out + n, sizeof(r->out) - n, "(%d %s%s%s %s=<%s>)",
	    it->line, it->section, it->sub ? "." : "",
	    it->sub ? it->sub : "", it->key, it->value);
	return r->refuse_key && !strcmp(r->refuse_key, it->key) ? -1 : 0;
}

static void
rec_error(void *ctx, const char *sentence)
{
	struct rec *r = ctx;
	size_t n = strlen(r->out);

	snprintf(r->out + n, sizeof(r->out) - n, "{%s}", sentence);
}

static const struct {
	const char *name;
	const char *text;
	size_t	 len;		/* 0: strlen(text) */
	int	 stop;
	const char *refuse, *refuse_key;
	int	 rc;
	const char *want;
} cases[] = {
	{ "empty text", "", 0, 0, NULL, NULL, 0, "" },
	{ "comments and blank lines", "# a\n; b\n\n   \t\n  # c\n", 0, 0,
	    NULL, NULL, 0, "" },
	{ "header and keys", "[a]\nx = 1\ny=2\n  z  =  3 4  \n", 0, 0, NULL,
	    NULL, 0, "[f:1 a -](2 a x=<1>)(3 a y=<2>)(4 a z=<3 4>)" },
	{ "subsection, spaces inside brackets",
	    "[ tree  \"linux 6.12\" ]\nurl = /srv\n", 0, 0, NULL, NULL, 0,
	    "[f:1 tree linux 6.12](2 tree.linux 6.12 url=</srv>)" },
	{ "subsection with ] and =", "[run \"a]=b\"]\nk = v\n", 0, 0, NULL,
	    NULL, 0, "[f:1 run a]=b](2 run.a]=b k=<v>)" },
	{ "no newline at the end", "[a]\nk = v", 0, 0, NULL, NULL, 0,
	    "[f:1 a -](2 a k=<v>)" },
	{ "CRLF line ends", "[a]\r\nk = v\r\n\r\n", 0, 0, NULL, NULL, 0,
	    "[f:1 a -](2 a k=<v>)" },
	{ "value keeps inner = and #", "[a]\nappend = root=/dev/sda # x\n",
	    0, 0, NULL, NULL, 0, "[f:1 a -](2 a append=<root=/dev/sda # x>)" },
	{ "empty value", "[a]\nk =\nl = \"\"\n", 0, 0, NULL, NULL, 0,
	    "[f:1 a -](2 a k=<>)(3 a l=<>)" },
	{ "quotes keep spaces at the ends", "[a]\nk = \"  two  \"\n", 0, 0,
	    NULL, NULL, 0, "[f:1 a -](2 a k=<  two  >)" },
	{ "only outer quotes removed", "[a]\nk = \"x\" \"y\"\n", 0, 0, NULL,
	    NULL, 0, "[f:1 a -](2 a k=<x\" \"y>)" },
	{ "quote inside a value is text", "[a]\nk = x=\"a b\"\n", 0, 0, NULL,
	    NULL, 0, "[f:1 a -](2 a k=<x=\"a b\">)" },
	{ "names with - and _", "[q-1_x]\nstate-dir_2 = d\n", 0, 0, NULL,
	    NULL, 0, "[f:1 q-1_x -](2 q-1_x state-dir_2=<d>)" },

	/* ---- every syntax error ---- */
	{ "NUL byte, with its line", "[a]\nk = v\nx\0y\n", 12, 0, NULL, NULL,
	    -1, "{f:3: contains a NUL byte}" },
	{ "NUL byte on line 1 stops before any callback", "\0[a]\n", 5, 0,
	    NULL, NULL, -1, "{f:1: contains a NUL byte}" },
	{ "header without ]", "[daemon\n", 0, 0, NULL, NULL, -1,
	    "{f:1: malformed section header \"[daemon\" (want [name] or "
	    "[name \"sub\"])}" },
	{ "text after ]", "[a] x\n", 0, 0, NULL, NULL, -1,
	    "{f:1: malformed section header \"[a] x\" (want [name] or "
	    "[name \"sub\"])}" },
	{ "unquoted subsection", "[run a]\n", 0, 0, NULL, NULL, -1,
	    "{f:1: malformed section header \"[run a]\" (want [name] or "
	    "[name \"sub\"])}" },
	{ "unterminated subsection", "[run \"a]\n", 0, 0, NULL, NULL, -1,
	    "{f:1: malformed section header \"[run \"a]\" (want [name] or "
	    "[name \"sub\"])}" },
	{ "empty subsection", "[run \"\"]\n", 0, 0, NULL, NULL, -1,
	    "{f:1: malformed section header \"[run \"\"]\" (want [name] or "
	    "[name \"sub\"])}" },
	{ "empty section name", "[]\n[ \"x\"]\n", 0, 0, NULL, NULL, -1,
	    "{f:1: malformed section header \"[]\" (want [name] or "
	    "[name \"sub\"])}{f:2: malformed section header \"[ \"x\"]\" "
	    "(want [name] or [name \"sub\"])}" },
	{ "bad character in a section name", "[a.b]\n", 0, 0, NULL, NULL,
	    -1, "{f:1: malformed section header \"[a.b]\" (want [name] or "
	    "[name \"sub\"])}" },
	{ "no equals sign", "[a]\njust words\n", 0, 0, NULL, NULL, -1,
	    "[f:1 a -]{f:2: expected key = value, got \"just words\"}" },
	{ "no key before =", "[a]\n= 3\n", 0, 0, NULL, NULL, -1,
	    "[f:1 a -]{f:2: expected key = value, got \"= 3\"}" },
	{ "bad key", "[a]\nmy key = 3\nk.x = 1\n", 0, 0, NULL, NULL, -1,
	    "[f:1 a -]{f:2: bad key \"my key\" (use letters, digits, - and _)}"
	    "{f:3: bad key \"k.x\" (use letters, digits, - and _)}" },
	{ "key outside a section", "\n# c\nport = 1\n", 0, 0, NULL, NULL, -1,
	    "{f:3: key \"port\" outside a section}" },
	{ "a quote opened and not closed", "[a]\nk = \"x\nl = \"\n", 0, 0,
	    NULL, NULL, -1, "[f:1 a -]{f:2: the value of \"k\" opens a quote "
	    "it does not close}{f:3: the value of \"l\" opens a quote it does "
	    "not close}" },
	{ "long lines are quoted in part",
	    "[a]\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", 0, 0, NULL,
	    NULL, -1, "[f:1 a -]{f:2: expected key = value, got \""
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxx\"}" },

	/* ---- recovery, refusals and stop ---- */
	{ "all errors reported, parsing goes on", "[a]\nx\n[b\ny = 1\n[c]\n"
	    "z = 2\n", 0, 0, NULL, NULL, -1, "[f:1 a -]{f:2: expected key = "
	    "value, got \"x\"}{f:3: malformed section header \"[b\" (want "
	    "[name] or [name \"sub\"])}[f:5 c -](6 c z=<2>)" },
	{ "stop at the first error", "[a]\nx\ny\n", 0, 1, NULL, NULL, -1,
	    "[f:1 a -]{f:2: expected key = value, got \"x\"}" },
	{ "keys under a refused header are skipped", "[no]\nk = 1\n[a]\n"
	    "l = 2\n", 0, 0, "no", NULL, -1, "[f:1 no -][f:3 a -](4 a l=<2>)" },
	{ "a refused header stops a stop parse", "[no]\nk = 1\n[a]\n", 0, 1,
	    "no", NULL, -1, "[f:1 no -]" },
	{ "a refused key fails the parse and goes on", "[a]\nbad = 1\n"
	    "ok = 2\n", 0, 0, NULL, "bad", -1,
	    "[f:1 a -](2 a bad=<1>)(3 a ok=<2>)" },
	{ "a refused key stops a stop parse", "[a]\nbad = 1\nok = 2\n", 0, 1,
	    NULL, "bad", -1, "[f:1 a -](2 a bad=<1>)" },
	{ "len bounds the text", "[a]\nk = 1\nl = 2\n", 10, 0, NULL, NULL, 0,
	    "[f:1 a -](2 a k=<1>)" },
};

static void
test_cases(void)
{
	const struct ini_ops ops[2] = {
		{ rec_section, rec_key, rec_error, 0 },
		{ rec_section, rec_key, rec_error, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rec r = { "", cases[i].refuse, cases[i].refuse_key };
		size_t len = cases[i].len ? cases[i].len :
		    strlen(cases[i].text);
		int rc = ini_parse(&ops[cases[i].stop], &r, "f",
		    cases[i].text, len);

		is_int(rc, cases[i].rc, "%s: rc", cases[i].name);
		is_str(r.out, cases[i].want, "%s: callbacks", cases[i].name);
	}
}

/* No header callback: every header is accepted; no error callback: the
   return code still says what happened. */
static void
test_optional_callbacks(void)
{
	const struct ini_ops ops = { NULL, rec_key, NULL, 0 };
	struct rec r = { "", NULL, NULL };

	is_int(ini_parse(&ops, &r, "f", "[a \"s\"]\nk = v\n", 14), 0,
	    "no section callback: parses");
	is_str(r.out, "(2 a.s k=<v>)", "keys still delivered");
	r.out[0] = '\0';
	is_int(ini_parse(&ops, &r, "f", "[a\nk = v\n", 9), -1,
	    "no error callback: a syntax error still fails");
	is_str(r.out, "", "and its section's keys are skipped");
}

int
main(void)
{
	test_cases();
	test_optional_callbacks();
	return tap_done();
}
