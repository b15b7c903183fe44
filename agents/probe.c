/*
 * probe: the agent's half of "was the changed code exercised?".  A job may
 * carry the kernel functions its series changes (proto.h: probes).  After
 * the measured passes, so that they are not perturbed, the guest registers
 * one kprobe event per function (tracefs kprobe_events
 * "p:kperfci/fN SYMBOL"), enables them, runs the matrix once more with one
 * iteration and no warm-up (probe_matrix), and prints each event's hit
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

char *
probe_matrix(const char *matrix)
{
	struct buf out = BUF_INIT(0);
	const char *p = matrix;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *t = p + strspn(p, " \t");

		if (line_key_is(p, n, "iterations") ||
		    line_key_is(p, n, "warmup")) {
			/* dropped: every run gets its own below */
		} else {
			buf_add(&out, p, n);
			buf_addch(&out, '\n');
			if (strncmp(t, "[run", 4) == 0)
				buf_addstr(&out, "iterations = 1\nwarmup = 0\n");
		}
		p += n + (nl ? 1 : 0);
	}
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
