/*
 * fuzz-ini: the "[section] key = value" tokenizer (lib/ini.c) that reads
 * kperfci.conf, agent.conf and every workload matrix, on arbitrary bytes.
 * Beyond memory errors it traps when what reaches a callback breaks the
 * grammar ini.h promises: names of letters, digits, '-' and '_', a
 * non-empty subsection without '"', values without a newline, line numbers
 * that never go back and stay inside the text, error sentences that start
 * with "file:line: ", and a stopping parse that sees no more than a full
 * one.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/ini.h"

struct fz {
	int	 lines;		/* lines in the input */
	int	 last;		/* last line seen by a callback */
	int	 calls;
	int	 errors;
	int	 refuse;	/* refuse every header whose name starts with r */
};

static void
fz_name(const char *s)
{
	if (!*s)
		__builtin_trap();
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			__builtin_trap();
}

static void
fz_item(struct fz *f, const struct ini_item *it)
{
	if (strcmp(it->file, "fz.conf") || it->line < f->last ||
	    it->line < 1 || it->line > f->lines)
		__builtin_trap();
	f->last = it->line;
	f->calls++;
	fz_name(it->section);
	if (it->sub && (!*it->sub || strchr(it->sub, '"') ||
	    strchr(it->sub, '\n')))
		__builtin_trap();
}

static int
fz_section(void *ctx, const struct ini_item *it)
{
	struct fz *f = ctx;

	fz_item(f, it);
	if (it->key || it->value)
		__builtin_trap();
	return f->refuse && it->section[0] == 'r' ? -1 : 0;
}

static int
fz_key(void *ctx, const struct ini_item *it)
{
	struct fz *f = ctx;

	fz_item(f, it);
	fz_name(it->key);
	if (!it->value || strchr(it->value, '\n'))
		__builtin_trap();
	return 0;
}

static void
fz_error(void *ctx, const char *sentence)
{
	struct fz *f = ctx;

	f->errors++;
	if (strncmp(sentence, "fz.conf:", 8) || !strstr(sentence, ": "))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct ini_ops all = { fz_section, fz_key, fz_error, 0 };
	const struct ini_ops stop = { fz_section, fz_key, fz_error, 1 };
	struct fz a = { 1, 0, 0, 0, 0 }, b;
	const char *text = (const char *)data;
	size_t i;
	int rc;

	for (i = 0; i < size; i++)
		a.lines += text[i] == '\n';
	a.refuse = size && (data[0] & 1);
	b = a;
	rc = ini_parse(&all, &a, "fz.conf", text, size);
	if ((rc == 0) != (a.errors == 0 && !a.refuse) && !a.refuse)
		__builtin_trap();
	if (ini_parse(&stop, &b, "fz.conf", text, size) != rc ||
	    b.calls > a.calls || b.errors > 1 || b.errors > a.errors)
		__builtin_trap();
	return 0;
}
