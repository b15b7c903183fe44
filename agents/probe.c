/*
 * probe: the agent's half of "was the changed code exercised?".  A job may
 * carry the kernel functions its series changes (proto.h: probes).  After
 * the measured passes, so that they are not perturbed, the guest registers
 * one kprobe event per function (tracefs kprobe_events
 * "p:kperfci/fN SYMBOL"), enables them, runs the matrix once more with one
 * iteration and no warm-up, without the lock-profile runs whose target
 * another run measures (probe_matrix), and prints each event's hit
 * count from kprobe_profile; qemu.c's /init does that, this file prepares
 * its inputs and turns what came back into the upload's probe_hits.
 *
 * A function kprobes refuse (absent from kallsyms because it was inlined,
 * a name defined more than once, a function on the kprobe blacklist) is
 * reported with an error rather than 0 hits: "not counted" must never read
 * as "never ran".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "lib/buf.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

/* "  iterations = 3" -> "iterations" (the key of a key = value line). */
static int
line_key_is(const char *line, size_t n, const char *key)
{
	size_t k = strlen(key), i = 0;

	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (n - i < k || strncmp(line + i, key, k) != 0)
		return 0;
	i += k;
	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return i < n && line[i] == '=';
}

/* The value of a key = value line, trimmed, into buf (cap > 0). */
static void
line_value(const char *line, size_t n, char *buf, size_t cap)
{
	const char *eq = memchr(line, '=', n), *e = line + n;
	size_t len;

	buf[0] = '\0';
	if (!eq)
		return;
	for (eq++; eq < e && (*eq == ' ' || *eq == '\t'); eq++)
		;
	while (e > eq && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	len = (size_t)(e - eq) < cap - 1 ? (size_t)(e - eq) : cap - 1;
	memcpy(buf, eq, len);
	buf[len] = '\0';
}

/* One section of a matrix: its text, and for a [run] its workload and a
   lock-profile's target. */
struct section {
	const char	*text;
	size_t		 len;
	int		 run;
	char		 workload[64];
	char		 target[64];
};

static size_t
sections_split(const char *matrix, struct section **out)
{
	struct section *v = NULL;
	size_t n = 0, cap = 0;
	const char *p = matrix;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *t = p + strspn(p, " \t");

		if (n == 0 || *t == '[') {
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				v = xrealloc(v, cap * sizeof(*v));
			}
			memset(&v[n], 0, sizeof(v[n]));
			v[n].text = p;
			v[n].run = strncmp(t, "[run", 4) == 0;
			n++;
		}
		if (line_key_is(p, len, "workload"))
			line_value(p, len, v[n - 1].workload,
			    sizeof(v[n - 1].workload));
		else if (line_key_is(p, len, "target"))
			line_value(p, len, v[n - 1].target,
			    sizeof(v[n - 1].target));
		p += len + (nl ? 1 : 0);
		v[n - 1].len = (size_t)(p - v[n - 1].text);
	}
	*out = v;
	return n;
}

/*
 * A lock-profile run adds nothing to the count when the pass already runs
 * its target workload: it runs the same code under a profiler.  Each such
 * run on a real machine costs its target's set-up again (the list-lru
 * suite's: an ext2 file system and a thousand files), so it is left out;
 * one whose target no other run measures stays.
 */
static int
section_redundant(const struct section *v, size_t n, size_t i)
{
	size_t j;

	if (!v[i].run || strcmp(v[i].workload, "lock-profile") != 0 ||
	    !v[i].target[0])
		return 0;
	for (j = 0; j < n; j++)
		if (v[j].run && strcmp(v[j].workload, v[i].target) == 0)
			return 1;
	return 0;
}

char *
probe_matrix(const char *matrix)
{
	struct buf out = BUF_INIT(0);
	struct section *v;
	size_t n = sections_split(matrix, &v), i;

	for (i = 0; i < n; i++) {
		const char *p = v[i].text, *end = v[i].text + v[i].len;

		if (section_redundant(v, n, i))
			continue;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
			const char *t = p + strspn(p, " \t");

			if (line_key_is(p, len, "iterations") ||
			    line_key_is(p, len, "warmup")) {
				/* dropped: every run gets its own below */
			} else {
				buf_add(&out, p, len);
				buf_addch(&out, '\n');
				if (strncmp(t, "[run", 4) == 0)
					buf_addstr(&out,
					    "iterations = 1\nwarmup = 0\n");
			}
			p += len + (nl ? 1 : 0);
		}
	}
	free(v);
	return buf_detach(&out, NULL);
}

char *
probe_list(const json_t *probes)
{
	struct buf out = BUF_INIT(0);
	size_t i;

	for (i = 0; i < json_array_size(probes) && i < PROTO_MAX_PROBES; i++) {
		const char *s = json_string_value(json_array_get(probes, i));

		/* The job was checked, but this text reaches a shell
		   redirection in the guest: check again. */
		if (s && proto_valid_symbol(s))
			buf_addf(&out, "%s\n", s);
		else
			buf_addstr(&out, "-\n");
	}
	return buf_detach(&out, NULL);
}

void
probe_upload(const json_t *probes, const struct agent_results *r,
    const char *accel, json_t *upload)
{
	json_t *hits = json_array(), *env;
	char key[16];
	size_t i;

	for (i = 0; i < json_array_size(probes) && i < PROTO_MAX_PROBES; i++) {
		const char *s = json_string_value(json_array_get(probes, i));
		json_t *o, *h;

		if (!s || !proto_valid_symbol(s))
			continue;
		o = json_object();
		json_object_set_new(o, PROTO_P_FUNCTION, json_string(s));
		snprintf(key, sizeof(key), "%zu", i);
		if (json_object_get(r->probe_errs, key))
			json_object_set_new(o, PROTO_P_ERROR, json_string(
			    "the kernel refused the kprobe (not in kallsyms, "
			    "defined more than once, or blacklisted)"));
		else if ((h = json_object_get(r->probe_hits, key)))
			json_object_set(o, PROTO_P_HITS, h);
		else
			json_object_set_new(o, PROTO_P_ERROR, json_string(
			    r->probes_done ? "no count in kprobe_profile" :
			    "the probe pass did not finish"));
		json_array_append_new(hits, o);
	}
	if (json_array_size(hits))
		json_object_set_new(upload, PROTO_PROBE_HITS, hits);
	else
		json_decref(hits);
	env = json_deep_copy(r->environment);
	if (accel && *accel)
		json_object_set_new(env, "accel", json_stringn(accel,
		    strnlen(accel, 200)));
	json_object_set_new(upload, PROTO_ENVIRONMENT, env);
}

/* The first line of path, printable ASCII only, or NULL. */
static json_t *
probe_read_line(const char *path, size_t max)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return NULL;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	n = strnlen(line, max);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e)
			line[i] = '?';
	return json_stringn(line, n);
}

void
probe_native_environment(const char *root, json_t *upload)
{
	static const char *const files[][2] = {
		{ "thp_enabled", "/sys/kernel/mm/transparent_hugepage/enabled" },
		{ "thp_defrag", "/sys/kernel/mm/transparent_hugepage/defrag" },
		{ "cmdline", "/proc/cmdline" },
		{ "kernel_release", "/proc/sys/kernel/osrelease" },
		{ NULL, NULL } };
	static const int sizes[] = { 4, 8, 16, 32, 64, 128, 256, 512, 1024,
	    2048 };
	json_t *env = json_object(), *v;
	struct buf m = BUF_INIT(1024);
	char path[512];

	for (size_t i = 0; files[i][0]; i++) {
		snprintf(path, sizeof(path), "%s%s", root, files[i][1]);
		if ((v = probe_read_line(path, 256)))
			json_object_set_new(env, files[i][0], v);
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const char *t, *e;

		snprintf(path, sizeof(path), "%s/sys/kernel/mm/transparent_"
		    "hugepage/hugepages-%dkB/enabled", root, sizes[i]);
		if (!(v = probe_read_line(path, 200)))
			continue;
		/* "always inherit [madvise] never" -> "madvise" */
		t = strchr(json_string_value(v), '[');
		e = t ? strchr(t, ']') : NULL;
		if (t && e)
			buf_addf(&m, "%s%dkB:%.*s", m.len ? " " : "", sizes[i],
			    (int)(e - t - 1), t + 1);
		json_decref(v);
	}
	json_object_set_new(env, "mthp", json_string(m.len ? m.data :
	    "none"));
	json_object_set_new(env, "accel", json_string("native (kexec): no "
	    "changed-function counting on this backend yet"));
	json_object_set_new(upload, PROTO_ENVIRONMENT, env);
	buf_release(&m);
}
