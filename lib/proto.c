/*
 * proto: message tables and checks for the agent <-> daemon protocol
 * (see proto.h).  Both sides call these on everything they receive.
 */
#include <stdio.h>
#include <string.h>

#include "lib/proto.h"
#include "lib/xalloc.h"

const struct proto_field proto_topology[] = {
	{ PROTO_SOCKETS,	PROTO_T_INT,	1, 4096 },
	{ PROTO_NODES,		PROTO_T_INT,	1, 4096 },
	{ PROTO_CPUS,		PROTO_T_INT,	1, 1 << 20 },
	{ PROTO_CORES,		PROTO_T_INT,	0, 1 << 20 },
	{ PROTO_THREADS,	PROTO_T_INT,	0, 64 },
	{ PROTO_CPU_MODEL,	PROTO_T_STR,	1, 256 },
	{ PROTO_MEMORY_MB,	PROTO_T_INT,	1, 1L << 40 },
	{ PROTO_NODE_CPUS,	PROTO_T_ARR,	0, 4096 },
	{ NULL }
};

const struct proto_field proto_register_req[] = {
	{ PROTO_AGENT,		PROTO_T_STR,	1, PROTO_MAX_NAME },
	{ PROTO_BACKEND,	PROTO_T_STR,	1, 16 },
	{ PROTO_KERNEL_RELEASE,	PROTO_T_STR,	0, 256 },
	{ PROTO_TOPOLOGY,	PROTO_T_OBJ,	1, 0 },
	{ NULL }
};

const struct proto_field proto_register_resp[] = {
	{ PROTO_AGENT,		PROTO_T_STR,	1, PROTO_MAX_NAME },
	{ PROTO_CLASS,		PROTO_T_STR,	1, 128 },
	{ NULL }
};

const struct proto_field proto_lease_req[] = {
	{ PROTO_AGENT,		PROTO_T_STR,	1, PROTO_MAX_NAME },
	{ NULL }
};

const struct proto_field proto_kernel[] = {
	{ PROTO_ID,		PROTO_T_INT,	1, 1L << 53 },
	{ PROTO_SHA256,		PROTO_T_STR,	1, 64 },
	{ PROTO_SIZE,		PROTO_T_INT,	1, PROTO_MAX_KERNEL },
	{ PROTO_URL,		PROTO_T_STR,	1, 256 },
	{ NULL }
};

const struct proto_field proto_job[] = {
	{ PROTO_ID,		PROTO_T_INT,	1, 1L << 53 },
	{ PROTO_ATTEMPT,	PROTO_T_INT,	1, 1 << 20 },
	{ PROTO_KERNEL,		PROTO_T_OBJ,	1, 0 },
	{ PROTO_MATRIX,		PROTO_T_STR,	1, PROTO_MAX_MATRIX },
	{ PROTO_CMDLINE,	PROTO_T_STR,	0, 1024 },
	{ PROTO_LEASE_SECONDS,	PROTO_T_INT,	1, 7 * 86400 },
	{ PROTO_PROBES,		PROTO_T_ARR,	0, PROTO_MAX_PROBES },
	{ NULL }
};

const struct proto_field proto_heartbeat_req[] = {
	{ PROTO_AGENT,		PROTO_T_STR,	1, PROTO_MAX_NAME },
	{ PROTO_ATTEMPT,	PROTO_T_INT,	1, 1 << 20 },
	{ PROTO_PROGRESS,	PROTO_T_STR,	0, 256 },
	{ NULL }
};

const struct proto_field proto_release_req[] = {
	{ PROTO_AGENT,		PROTO_T_STR,	1, PROTO_MAX_NAME },
	{ PROTO_ATTEMPT,	PROTO_T_INT,	1, 1 << 20 },
	{ PROTO_REASON,		PROTO_T_STR,	1, 512 },
	{ NULL }
};

const struct proto_field proto_upload_req[] = {
	{ PROTO_AGENT,		PROTO_T_STR,	1, PROTO_MAX_NAME },
	{ PROTO_ATTEMPT,	PROTO_T_INT,	1, 1 << 20 },
	{ PROTO_STATUS,		PROTO_T_STR,	1, 32 },
	{ PROTO_REASON,		PROTO_T_STR,	0, PROTO_MAX_TEXT },
	{ PROTO_TOPOLOGY,	PROTO_T_OBJ,	0, 0 },
	{ PROTO_SAMPLES,	PROTO_T_ARR,	1, PROTO_MAX_SAMPLES },
	{ PROTO_PROFILES,	PROTO_T_ARR,	0, PROTO_MAX_PROFILES },
	{ PROTO_CONSOLE,	PROTO_T_STR,	0, PROTO_MAX_CONSOLE },
	{ PROTO_BOOT_SECONDS,	PROTO_T_NUM,	0, 0 },
	{ PROTO_PROBE_HITS,	PROTO_T_ARR,	0, PROTO_MAX_PROBES },
	{ PROTO_ENVIRONMENT,	PROTO_T_OBJ,	0, 0 },
	{ NULL }
};

const struct proto_field proto_sample[] = {
	{ PROTO_S_WORKLOAD,	PROTO_T_STR,	1, PROTO_MAX_NAME },
	{ PROTO_S_PARAMS,	PROTO_T_STR,	1, 512 },
	{ PROTO_S_ITERATION,	PROTO_T_INT,	1, 1 << 20 },
	{ PROTO_S_METRIC,	PROTO_T_STR,	1, PROTO_MAX_NAME },
	{ PROTO_S_VALUE,	PROTO_T_NUM,	1, 0 },
	{ PROTO_S_UNIT,		PROTO_T_STR,	1, PROTO_MAX_NAME },
	{ PROTO_S_BETTER,	PROTO_T_STR,	1, 16 },
	{ NULL }
};

const struct proto_field proto_probe_hit[] = {
	{ PROTO_P_FUNCTION,	PROTO_T_STR,	1, PROTO_MAX_SYMBOL },
	{ PROTO_P_HITS,		PROTO_T_INT,	0, 1LL << 53 },
	{ PROTO_P_ERROR,	PROTO_T_STR,	0, 256 },
	{ NULL }
};

/* What the guest ran with: every value a short string. */
const struct proto_field proto_environment[] = {
	{ "thp_enabled",	PROTO_T_STR,	0, 256 },
	{ "thp_defrag",		PROTO_T_STR,	0, 256 },
	{ "mthp",		PROTO_T_STR,	0, 1024 },
	{ "cmdline",		PROTO_T_STR,	0, 1024 },
	{ "accel",		PROTO_T_STR,	0, 256 },
	{ "kernel_release",	PROTO_T_STR,	0, 256 },
	{ NULL }
};

static const char *
type_name(enum proto_type t)
{
	switch (t) {
	case PROTO_T_STR:	return "a string";
	case PROTO_T_INT:	return "a non-negative integer";
	case PROTO_T_NUM:	return "a number";
	case PROTO_T_BOOL:	return "a boolean";
	case PROTO_T_OBJ:	return "an object";
	case PROTO_T_ARR:	return "an array";
	}
	return "?";
}

static int
check_one(const json_t *v, const struct proto_field *f, const char *where,
    struct buf *err)
{
	const char *pre = where ? where : "";

	switch (f->type) {
	case PROTO_T_STR:
		if (!json_is_string(v))
			break;
		if (f->max && json_string_length(v) > f->max) {
			buf_addf(err, "%s%s: longer than %zu bytes", pre,
			    f->name, f->max);
			return -1;
		}
		if (strlen(json_string_value(v)) != json_string_length(v)) {
			buf_addf(err, "%s%s: contains a NUL byte", pre, f->name);
			return -1;
		}
		return 0;
	case PROTO_T_INT:
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			break;
		if (f->max && (unsigned long long)json_integer_value(v) >
		    (unsigned long long)f->max) {
			buf_addf(err, "%s%s: larger than %zu", pre, f->name,
			    f->max);
			return -1;
		}
		return 0;
	case PROTO_T_NUM:
		if (!json_is_number(v))
			break;
		return 0;
	case PROTO_T_BOOL:
		if (!json_is_boolean(v))
			break;
		return 0;
	case PROTO_T_OBJ:
		if (!json_is_object(v))
			break;
		return 0;
	case PROTO_T_ARR:
		if (!json_is_array(v))
			break;
		if (f->max && json_array_size(v) > f->max) {
			buf_addf(err, "%s%s: more than %zu items", pre, f->name,
			    f->max);
			return -1;
		}
		return 0;
	}
	buf_addf(err, "%s%s: expected %s", pre, f->name, type_name(f->type));
	return -1;
}

int
proto_check(const json_t *obj, const struct proto_field *fields,
    const char *where, struct buf *err)
{
	const char *pre = where ? where : "", *key;
	const struct proto_field *f;
	json_t *v;

	if (!json_is_object(obj)) {
		buf_addf(err, "%s: expected a JSON object",
		    *pre ? pre : "body");
		return -1;
	}
	for (f = fields; f->name; f++) {
		v = json_object_get(obj, f->name);
		if (v == NULL) {
			if (f->required) {
				buf_addf(err, "%s%s: missing", pre, f->name);
				return -1;
			}
			continue;
		}
		if (check_one(v, f, where, err) == -1)
			return -1;
	}
	json_object_foreach((json_t *)obj, key, v) {
		for (f = fields; f->name; f++)
			if (strcmp(f->name, key) == 0)
				break;
		if (f->name == NULL) {
			/* The key came from outside: print it bounded. */
			buf_addf(err, "%s%.64s: unknown field", pre, key);
			return -1;
		}
	}
	return 0;
}

static int
check_topology(const json_t *t, const char *where, struct buf *err)
{
	json_t *nc = json_object_get(t, PROTO_NODE_CPUS);
	size_t i;

	if (proto_check(t, proto_topology, where, err) == -1)
		return -1;
	if (json_integer_value(json_object_get(t, PROTO_SOCKETS)) < 1 ||
	    json_integer_value(json_object_get(t, PROTO_NODES)) < 1 ||
	    json_integer_value(json_object_get(t, PROTO_CPUS)) < 1) {
		buf_addf(err, "%ssockets/nodes/cpus: must be at least 1",
		    where);
		return -1;
	}
	for (i = 0; nc && i < json_array_size(nc); i++) {
		json_t *s = json_array_get(nc, i);

		if (!json_is_string(s) || json_string_length(s) > 4096 ||
		    strspn(json_string_value(s), "0123456789,-") !=
		    json_string_length(s)) {
			buf_addf(err, "%snode_cpus[%zu]: expected a CPU list "
			    "like \"0-3,8\"", where, i);
			return -1;
		}
	}
	return 0;
}

int
proto_valid_symbol(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > PROTO_MAX_SYMBOL || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_") == n;
}

/* A job's probes: unique C identifiers. */
static int
check_probes(const json_t *a, struct buf *err)
{
	size_t i, k;

	for (i = 0; a && i < json_array_size(a); i++) {
		const json_t *v = json_array_get(a, i);

		if (!json_is_string(v) || strlen(json_string_value(v)) !=
		    json_string_length(v) ||
		    !proto_valid_symbol(json_string_value(v))) {
			buf_addf(err, "probes[%zu]: expected a C identifier "
			    "of at most %d bytes", i, PROTO_MAX_SYMBOL);
			return -1;
		}
		for (k = 0; k < i; k++)
			if (json_equal(v, json_array_get(a, k))) {
				buf_addf(err, "probes[%zu]: %s is listed twice",
				    i, json_string_value(v));
				return -1;
			}
	}
	return 0;
}

static int
check_probe_hits(const json_t *a, struct buf *err)
{
	char where[48];
	size_t i;

	for (i = 0; a && i < json_array_size(a); i++) {
		const json_t *o = json_array_get(a, i);

		snprintf(where, sizeof(where), "probe_hits[%zu].", i);
		if (proto_check(o, proto_probe_hit, where, err) == -1)
			return -1;
		if (!proto_valid_symbol(json_string_value(json_object_get(o,
		    PROTO_P_FUNCTION)))) {
			buf_addf(err, "%sfunction: expected a C identifier",
			    where);
			return -1;
		}
		if (!json_object_get(o, PROTO_P_HITS) ==
		    !json_object_get(o, PROTO_P_ERROR)) {
			buf_addf(err, "probe_hits[%zu]: expected either hits "
			    "or error", i);
			return -1;
		}
	}
	return 0;
}

int
proto_valid_name(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= PROTO_MAX_NAME && s[0] != '.' && s[0] != '-' &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == n;
}

int
proto_valid_sha256(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

int
proto_valid_cmdline(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\'' ||
		    *s == '\\')
			return 0;
	return 1;
}

static int
check_name(const json_t *o, const char *field, struct buf *err)
{
	const char *s = json_string_value(json_object_get(o, field));

	if (s && !proto_valid_name(s)) {
		buf_addf(err, "%s: must be 1-64 of [A-Za-z0-9._-], not "
		    "starting with '.' or '-'", field);
		return -1;
	}
	return 0;
}

int
proto_check_register(const json_t *o, struct buf *err)
{
	if (proto_check(o, proto_register_req, NULL, err) == -1 ||
	    check_name(o, PROTO_AGENT, err) == -1)
		return -1;
	return check_topology(json_object_get(o, PROTO_TOPOLOGY),
	    PROTO_TOPOLOGY ".", err);
}

int
proto_check_job(const json_t *o, struct buf *err)
{
	const json_t *k;
	const char *s;

	if (proto_check(o, proto_job, NULL, err) == -1)
		return -1;
	k = json_object_get(o, PROTO_KERNEL);
	if (proto_check(k, proto_kernel, PROTO_KERNEL ".", err) == -1)
		return -1;
	if (!proto_valid_sha256(json_string_value(json_object_get(k,
	    PROTO_SHA256)))) {
		buf_addstr(err, "kernel.sha256: expected 64 lowercase hex "
		    "digits");
		return -1;
	}
	s = json_string_value(json_object_get(k, PROTO_URL));
	if (s[0] != '/' || strstr(s, "..") || strchr(s, '?')) {
		buf_addstr(err, "kernel.url: expected an absolute path on "
		    "the server");
		return -1;
	}
	s = json_string_value(json_object_get(o, PROTO_CMDLINE));
	if (s && !proto_valid_cmdline(s)) {
		buf_addstr(err, "cmdline: only printable ASCII without "
		    "quotes or backslashes");
		return -1;
	}
	if (json_integer_value(json_object_get(o, PROTO_ATTEMPT)) < 1 ||
	    json_integer_value(json_object_get(o, PROTO_ID)) < 1) {
		buf_addstr(err, "id/attempt: must be at least 1");
		return -1;
	}
	return check_probes(json_object_get(o, PROTO_PROBES), err);
}

int
proto_check_heartbeat(const json_t *o, struct buf *err)
{
	if (proto_check(o, proto_heartbeat_req, NULL, err) == -1)
		return -1;
	return check_name(o, PROTO_AGENT, err);
}

/* 1 if s is printable ASCII (what a metric, unit or workload name may
   hold: an upload's names end up in pages, reports and mail). */
static int
proto_printable(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return 0;
	return 1;
}

int
proto_check_release(const json_t *o, struct buf *err)
{
	if (proto_check(o, proto_release_req, NULL, err) == -1)
		return -1;
	if (json_integer_value(json_object_get(o, PROTO_ATTEMPT)) < 1) {
		buf_addstr(err, "attempt: must be at least 1");
		return -1;
	}
	/* the reason goes into the job's page and the daemon's log */
	if (!proto_printable(json_string_value(json_object_get(o,
	    PROTO_REASON)))) {
		buf_addstr(err, "reason: only printable ASCII");
		return -1;
	}
	return check_name(o, PROTO_AGENT, err);
}

/* A name in a lock profile: a string of 1..PROTO_MAX_PROFILE_NAME
   printable bytes. */
static int
proto_profile_name(const json_t *o, const char *field, const char *where,
    struct buf *err)
{
	const char *s = json_string_value(json_object_get(o, field));

	if (!s || !*s || strlen(s) > PROTO_MAX_PROFILE_NAME ||
	    !proto_printable(s)) {
		buf_addf(err, "%s%s: expected 1..%d printable characters",
		    where, field, PROTO_MAX_PROFILE_NAME);
		return -1;
	}
	return 0;
}

/*
 * The locks of one lock-profile line: at most PROTO_MAX_PROFILE_LOCKS,
 * each with at most PROTO_MAX_PROFILE_CALLERS callers, names checked;
 * *names counts the entries of the whole upload.
 */
static int
proto_check_profile_locks(const json_t *o, const char *where, size_t *names,
    struct buf *err)
{
	const json_t *locks = json_object_get(o, "locks"), *l, *callers;
	char w[96];
	size_t i, k;

	if (!locks)
		return 0;
	if (!json_is_array(locks) ||
	    json_array_size(locks) > PROTO_MAX_PROFILE_LOCKS) {
		buf_addf(err, "%slocks: expected an array of at most %d locks",
		    where, PROTO_MAX_PROFILE_LOCKS);
		return -1;
	}
	json_array_foreach(locks, i, l) {
		snprintf(w, sizeof(w), "%slocks[%zu].", where, i);
		if (!json_is_object(l) ||
		    proto_profile_name(l, "lock", w, err) < 0 ||
		    proto_profile_name(l, "symbol", w, err) < 0) {
			if (!err->len)
				buf_addf(err, "%s expected an object", w);
			return -1;
		}
		callers = json_object_get(l, "callers");
		if (callers && (!json_is_array(callers) ||
		    json_array_size(callers) > PROTO_MAX_PROFILE_CALLERS)) {
			buf_addf(err, "%scallers: expected an array of at most "
			    "%d callers", w, PROTO_MAX_PROFILE_CALLERS);
			return -1;
		}
		*names += 1 + json_array_size(callers);
		if (*names > PROTO_MAX_PROFILE_NAMES) {
			buf_addf(err, "%s: more than %d lock and caller entries "
			    "in the upload's profiles", w,
			    PROTO_MAX_PROFILE_NAMES);
			return -1;
		}
		for (k = 0; k < json_array_size(callers); k++) {
			char cw[128];

			snprintf(cw, sizeof(cw), "%scallers[%zu].", w, k);
			if (!json_is_object(json_array_get(callers, k)) ||
			    proto_profile_name(json_array_get(callers, k),
			    "symbol", cw, err) < 0) {
				if (!err->len)
					buf_addf(err, "%s expected an object",
					    cw);
				return -1;
			}
		}
	}
	return 0;
}

/* Distinct rows (workload, params, metric) of the samples: at most
   PROTO_MAX_ROWS. */
static int
proto_check_rows(const json_t *samples, struct buf *err)
{
	json_t *seen = json_object();
	const json_t *o;
	char *key;
	size_t i;
	int rc = 0;

	json_array_foreach(samples, i, o) {
		if (json_is_string(json_object_get(o, PROTO_S_TYPE)))
			continue;		/* a profile, not a row */
		key = xasprintf("%s\x1f%s\x1f%s", json_string_value(
		    json_object_get(o, PROTO_S_WORKLOAD)), json_string_value(
		    json_object_get(o, PROTO_S_PARAMS)), json_string_value(
		    json_object_get(o, PROTO_S_METRIC)));
		json_object_set_new(seen, key, json_true());
		free(key);
		if (json_object_size(seen) > PROTO_MAX_ROWS) {
			buf_addf(err, "samples[%zu]: more than %d distinct "
			    "workload/params/metric rows in one upload", i,
			    PROTO_MAX_ROWS);
			rc = -1;
			break;
		}
	}
	json_decref(seen);
	return rc;
}

int
proto_check_sample(const json_t *o, const char *where, struct buf *err)
{
	const char *t, *better;

	if (!json_is_object(o)) {
		buf_addf(err, "%s: expected an object", where);
		return -1;
	}
	t = json_string_value(json_object_get(o, PROTO_S_TYPE));
	if (t && strcmp(t, "lock-profile") == 0) {
		/* A profile's inner shape belongs to kperfci-load; we only
		   insist that it says which workload it profiled. */
		const json_t *pa = json_object_get(o, PROTO_S_PARAMS);

		if (!json_is_string(json_object_get(o, PROTO_S_WORKLOAD))) {
			buf_addf(err, "%sworkload: missing", where);
			return -1;
		}
		/* its workload and params name rows on the page, in
		   report.txt and in mail, as a sample's do */
		if (!proto_printable(json_string_value(json_object_get(o,
		    PROTO_S_WORKLOAD)))) {
			buf_addf(err, "%sworkload: only printable ASCII", where);
			return -1;
		}
		if (pa && (!json_is_string(pa) ||
		    !proto_printable(json_string_value(pa)))) {
			buf_addf(err, "%sparams: only printable ASCII", where);
			return -1;
		}
		return 0;
	}
	if (proto_check(o, proto_sample, where, err) == -1)
		return -1;
	{
		static const char *const names[] = { PROTO_S_WORKLOAD,
		    PROTO_S_PARAMS, PROTO_S_METRIC, PROTO_S_UNIT, NULL };

		for (const char *const *n = names; *n; n++)
			if (!proto_printable(json_string_value(
			    json_object_get(o, *n)))) {
				buf_addf(err, "%s%s: only printable ASCII",
				    where, *n);
				return -1;
			}
	}
	better = json_string_value(json_object_get(o, PROTO_S_BETTER));
	if (strcmp(better, "higher") != 0 && strcmp(better, "lower") != 0) {
		buf_addf(err, "%sbetter: expected \"higher\" or \"lower\"",
		    where);
		return -1;
	}
	return 0;
}

int
proto_check_upload(const json_t *o, struct buf *err)
{
	const json_t *a;
	const char *st;
	char where[64];
	size_t i, names = 0;

	if (proto_check(o, proto_upload_req, NULL, err) == -1 ||
	    check_name(o, PROTO_AGENT, err) == -1)
		return -1;
	st = json_string_value(json_object_get(o, PROTO_STATUS));
	if (strcmp(st, PROTO_ST_DONE) != 0 &&
	    strcmp(st, PROTO_ST_BOOT_FAILED) != 0 &&
	    strcmp(st, PROTO_ST_FAILED) != 0) {
		buf_addstr(err, "status: expected \"done\", \"boot-failed\" "
		    "or \"failed\"");
		return -1;
	}
	if (json_integer_value(json_object_get(o, PROTO_ATTEMPT)) < 1) {
		buf_addstr(err, "attempt: must be at least 1");
		return -1;
	}
	if ((a = json_object_get(o, PROTO_TOPOLOGY)) &&
	    check_topology(a, PROTO_TOPOLOGY ".", err) == -1)
		return -1;
	a = json_object_get(o, PROTO_SAMPLES);
	for (i = 0; i < json_array_size(a); i++) {
		snprintf(where, sizeof(where), "samples[%zu].", i);
		if (proto_check_sample(json_array_get(a, i), where, err) == -1 ||
		    proto_check_profile_locks(json_array_get(a, i), where,
		    &names, err) == -1)
			return -1;
	}
	if (proto_check_rows(a, err) == -1)
		return -1;
	a = json_object_get(o, PROTO_PROFILES);
	for (i = 0; a && i < json_array_size(a); i++) {
		snprintf(where, sizeof(where), "profiles[%zu].", i);
		if (proto_check_sample(json_array_get(a, i), where, err) == -1 ||
		    proto_check_profile_locks(json_array_get(a, i), where,
		    &names, err) == -1)
			return -1;
	}
	if ((a = json_object_get(o, PROTO_ENVIRONMENT)) &&
	    proto_check(a, proto_environment, PROTO_ENVIRONMENT ".", err) == -1)
		return -1;
	return check_probe_hits(json_object_get(o, PROTO_PROBE_HITS), err);
}
