/* rel: machine-relative counts and sizes (see rel.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/load/rel.h"
#include "agents/load/util.h"

#define REL_PAGE	4096ULL
#define REL_MAX_MUL	1000000L

enum rel_unit { REL_CPUS, REL_NODE, REL_SOCKET, REL_CORES, REL_MEM,
	REL_NODEMEM };

static const struct {
	const char	*name;
	enum rel_unit	 unit;
	int		 size;	/* a memory unit */
} rel_units[] = {
	{ "cpus", REL_CPUS, 0 },
	{ "node", REL_NODE, 0 },
	{ "socket", REL_SOCKET, 0 },
	{ "cores", REL_CORES, 0 },
	{ "mem", REL_MEM, 1 },
	{ "node", REL_NODEMEM, 1 },
};

/*
 * Splits "UNIT", "UNIT/D", "UNIT*K" or "P%UNIT" into its parts.  op is
 * '\0', '/', '*' or '%'; num the number beside the unit.  size selects the
 * unit table (counts or sizes).  0 when s has that form, -1 otherwise
 * (nothing logged).
 */
static int
rel_split(const char *s, int size, enum rel_unit *unit, char *op, double *num)
{
	const char *pct = strchr(s, '%'), *name = s, *rest;
	char numbuf[32];
	size_t i, len;

	*op = '\0';
	*num = 1;
	if (pct) {
		if (!size || (size_t)(pct - s) >= sizeof(numbuf) || pct == s)
			return -1;
		memcpy(numbuf, s, pct - s);
		numbuf[pct - s] = '\0';
		if (load_parse_double(numbuf, num) < 0 || !isdigit((unsigned char)numbuf[0]))
			return -1;
		*op = '%';
		name = pct + 1;
	}
	for (i = 0; i < sizeof(rel_units) / sizeof(rel_units[0]); i++) {
		if (rel_units[i].size != size)
			continue;
		len = strlen(rel_units[i].name);
		if (strncmp(name, rel_units[i].name, len))
			continue;
		rest = name + len;
		*unit = rel_units[i].unit;
		if (!*rest)
			return 0;
		if (*op || (*rest != '/' && *rest != '*') || (size && *rest == '*'))
			return -1;
		*op = *rest;
		if (!isdigit((unsigned char)rest[1]) ||
		    load_parse_double(rest + 1, num) < 0)
			return -1;
		return 0;
	}
	return -1;
}

int
rel_is_relative(const char *s)
{
	enum rel_unit u;
	double num;
	char op;

	return s && (rel_split(s, 0, &u, &op, &num) == 0 ||
	    rel_split(s, 1, &u, &op, &num) == 0);
}

static long
rel_unit_cpus(const struct load_topo *t, enum rel_unit u)
{
	int i, first = -1;
	long n = 0;

	switch (u) {
	case REL_CPUS:
		return t->ncpus;
	case REL_CORES:
		return t->ncores;
	case REL_NODE:
		for (i = 0; i < t->nnodes; i++)
			if (t->nodes[i].ncpus > 0)
				return t->nodes[i].ncpus;
		return 0;
	case REL_SOCKET:
		for (i = 0; i < t->ncpus; i++)
			if (first < 0 || t->cpus[i].socket < first)
				first = t->cpus[i].socket;
		for (i = 0; i < t->ncpus; i++)
			n += t->cpus[i].socket == first;
		return n;
	default:
		return 0;
	}
}

static int
rel_count_parse(const struct load_topo *t, const char *s, long *out)
{
	enum rel_unit u;
	double num;
	long v, base;
	char op;

	if (!s || !*s)
		return load_err("empty count (want N, cpus, node, socket, cores, UNIT/D or UNIT*K)");
	if (isdigit((unsigned char)*s) || *s == '-') {
		if (load_parse_long(s, &v) < 0)
			return load_err("bad count \"%.64s\" (want N, cpus, node, socket, cores, UNIT/D or UNIT*K)", s);
		*out = v;
		return 0;
	}
	if (rel_split(s, 0, &u, &op, &num) < 0)
		return load_err("bad count \"%.64s\" (want N, cpus, node, socket, cores, UNIT/D or UNIT*K)", s);
	if (op && (num != floor(num) || num < 1 || num > REL_MAX_MUL))
		return load_err("count \"%.64s\": the number after %c must be a whole number in 1..%ld",
		    s, op, REL_MAX_MUL);
	if (!t) {
		*out = 1;
		return 0;
	}
	base = rel_unit_cpus(t, u);
	if (base < 1)
		return load_err("count \"%.64s\": this machine has no CPU in that unit", s);
	if (op == '/')
		v = base / (long)num;
	else if (op == '*')
		v = base * (long)num;
	else
		v = base;
	*out = v < 1 ? 1 : v;
	return 0;
}

int
rel_count_check(const char *s)
{
	long v;

	return rel_count_parse(NULL, s, &v);
}

int
rel_count(const struct load_topo *t, const char *s, long *out)
{
	if (!t && rel_is_relative(s))
		return load_err("count \"%.64s\" is relative to the machine: no topology to resolve it", s);
	return rel_count_parse(t, s, out);
}

static unsigned long long
rel_mem_bytes(const struct load_topo *t, enum rel_unit u)
{
	int i;

	if (u == REL_MEM)
		return (unsigned long long)t->mem_kb * 1024;
	for (i = 0; i < t->nnodes; i++)
		if (t->nodes[i].mem_kb > 0)
			return (unsigned long long)t->nodes[i].mem_kb * 1024;
	return t->nnodes ? (unsigned long long)t->mem_kb * 1024 / t->nnodes : 0;
}

static int
rel_size_parse(const struct load_topo *t, const char *s,
    unsigned long long *out)
{
	enum rel_unit u;
	double num, v;
	unsigned long long base;
	char op;

	if (!s || !*s)
		return load_err("empty size (want 4096, 64K, 128M, 1G, P%%mem, P%%node, mem/D or node/D)");
	if (rel_split(s, 1, &u, &op, &num) < 0) {
		if (load_parse_size(s, out) < 0)
			return load_err("bad size \"%.64s\" (want 4096, 64K, 128M, 1G, P%%mem, P%%node, mem/D or node/D)", s);
		return 0;
	}
	if (op == '%' && !(num > 0 && num <= 100))
		return load_err("size \"%.64s\": the percentage must be in (0, 100]", s);
	if (op == '/' && (num != floor(num) || num < 1 || num > (double)(1ULL << 30)))
		return load_err("size \"%.64s\": the divisor must be a whole number >= 1", s);
	if (!t) {
		*out = REL_PAGE;
		return 0;
	}
	base = rel_mem_bytes(t, u);
	if (!base)
		return load_err("size \"%.64s\": this machine's memory is unknown", s);
	v = op == '%' ? base * num / 100 : op == '/' ? base / num : (double)base;
	*out = (unsigned long long)v / REL_PAGE * REL_PAGE;
	if (*out < REL_PAGE)
		*out = REL_PAGE;
	return 0;
}

int
rel_size_check(const char *s)
{
	unsigned long long v;

	return rel_size_parse(NULL, s, &v);
}

int
rel_size(const struct load_topo *t, const char *s, unsigned long long *out)
{
	if (!t && rel_is_relative(s))
		return load_err("size \"%.64s\" is relative to the machine: no topology to resolve it", s);
	return rel_size_parse(t, s, out);
}

void
rel_size_format(unsigned long long b, char *buf, size_t cap)
{
	if (b && b % (1ULL << 30) == 0)
		snprintf(buf, cap, "%lluG", b >> 30);
	else if (b && b % (1ULL << 20) == 0)
		snprintf(buf, cap, "%lluM", b >> 20);
	else if (b && b % (1ULL << 10) == 0)
		snprintf(buf, cap, "%lluK", b >> 10);
	else
		snprintf(buf, cap, "%llu", b);
}
