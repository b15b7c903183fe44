/*
 * lava: a kperfci job as a LAVA job definition, and LAVA's job log and
 * job state read back (lava.h).  The LAVA bridge agent boots a job's
 * kernel and the kperfci initramfs (the qemu backend's, agents/qemu.c)
 * through a lab's dispatcher and reads the guest's marker lines and
 * samples out of the job log's "target" entries: the results port
 * (ttyS1) is the console on the lab's device (the test device dictionary
 * muxes both onto it).
 *
 * The log is one JSON object a line, {"dt", "lvl", "msg"}: lvl "target"
 * is the device's console (LAVA escapes '"' in it as \"), lvl "results"
 * a test case whose msg is an object; the case "job" of definition
 * "lava" ends a job and carries error_type (Infrastructure,
 * Configuration, Job, Test, Bug) when it failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "agents/lava.h"
#include "lib/xalloc.h"

void
lava_log_init(struct lava_log *l)
{
	memset(l, 0, sizeof(*l));
	l->console = (struct buf)BUF_INIT(LAVA_MAX_LOG);
	l->job_result = -1;
}

void
lava_log_release(struct lava_log *l)
{
	buf_release(&l->console);
	free(l->error_type);
	free(l->error_msg);
	memset(l, 0, sizeof(*l));
}

static char *
dup_str(const json_t *j, size_t max)
{
	const char *s = json_string_value(j);

	return s ? xstrndup(s, strnlen(s, max)) : NULL;
}

/* A target line into the console: \" back to ", control bytes but tab
   to '?'. */
static void
lava_console_add(struct lava_log *l, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' && s[1] == '"')
			continue;
		buf_addch(&l->console, (c < 0x20 && c != '\t') || c == 0x7f ?
		    '?' : c);
	}
	buf_addch(&l->console, '\n');
}

static void
lava_log_entry(struct lava_log *l, const json_t *e)
{
	const char *lvl = json_string_value(json_object_get(e, "lvl"));
	const json_t *msg = json_object_get(e, "msg");

	if (lvl == NULL) {
		l->junk++;
		return;
	}
	if (!strcmp(lvl, "target") && json_is_string(msg)) {
		const char *s = json_string_value(msg);

		lava_console_add(l, s);
		if (strstr(s, "Kernel panic"))
			l->panic = 1;
		if (strstr(s, "KPERFCI READY"))
			l->ready = 1;
	} else if (!strcmp(lvl, "results") && json_is_object(msg)) {
		const char *c = json_string_value(json_object_get(msg, "case"));
		const char *d = json_string_value(json_object_get(msg,
		    "definition"));
		const char *r = json_string_value(json_object_get(msg,
		    "result"));

		if (!c || !d || !r || strcmp(c, "job") || strcmp(d, "lava"))
			return;
		l->job_result = !strcmp(r, "pass");
		free(l->error_type);
		free(l->error_msg);
		l->error_type = dup_str(json_object_get(msg, "error_type"), 64);
		l->error_msg = dup_str(json_object_get(msg, "error_msg"), 1024);
	}
}

void
lava_log_parse(struct lava_log *l, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	if (len > LAVA_MAX_LOG)
		end = text + LAVA_MAX_LOG;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		json_t *e;

		l->lines++;
		/* the server's logs/ answer is YAML: "- {...}" lines */
		if (n > 2 && p[0] == '-' && p[1] == ' ') {
			p += 2;
			n -= 2;
		}
		e = n ? json_loadb(p, n, JSON_REJECT_DUPLICATES, NULL) : NULL;
		if (json_is_object(e))
			lava_log_entry(l, e);
		else if (n)
			l->junk++;
		json_decref(e);
		p += n + (nl ? 1 : 0);
	}
}

enum lava_outcome
lava_log_outcome(const struct lava_log *l)
{
	if (l->panic)
		return LAVA_BOOT_FAILED;
	if (l->error_type && (!strcmp(l->error_type, "Infrastructure") ||
	    !strcmp(l->error_type, "Configuration") ||
	    !strcmp(l->error_type, "Canceled")) && !strstr(l->console.data ?
	    l->console.data : "", "KPERFCI END"))
		return LAVA_RETRY;
	if (l->ready)
		return LAVA_RAN;
	if (l->job_result >= 0)
		return LAVA_BOOT_FAILED;	/* the job ended, no guest */
	return LAVA_UNKNOWN;
}

void
lava_state_parse(struct lava_job_state *s, const char *text, size_t len)
{
	json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	const char *st = json_string_value(json_object_get(j, "state"));
	const char *h = json_string_value(json_object_get(j, "health"));

	memset(s, 0, sizeof(*s));
	s->state = LAVA_ST_BAD;
	if (st == NULL || !json_is_object(j))
		goto out;
	if (!strcmp(st, "Submitted") || !strcmp(st, "Scheduling") ||
	    !strcmp(st, "Scheduled"))
		s->state = LAVA_ST_QUEUED;
	else if (!strcmp(st, "Running") || !strcmp(st, "Canceling"))
		s->state = LAVA_ST_RUNNING;
	else if (!strcmp(st, "Finished"))
		s->state = LAVA_ST_FINISHED;
	if (h && strlen(h) < sizeof(s->health) && strspn(h,
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") ==
	    strlen(h))
		snprintf(s->health, sizeof(s->health), "%s", h);
	s->failure = dup_str(json_object_get(j, "failure_comment"), 1024);
out:
	json_decref(j);
}

void
lava_state_release(struct lava_job_state *s)
{
	free(s->failure);
	s->failure = NULL;
}

long long
lava_submit_parse(const char *text, size_t len)
{
	json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	json_t *ids = json_object_get(j, "job_ids");
	json_t *id = json_array_get(ids, 0);
	long long n = -1;

	if (json_is_array(ids) && json_array_size(ids) == 1 &&
	    json_is_integer(id) && json_integer_value(id) > 0)
		n = json_integer_value(id);
	json_decref(j);
	return n;
}

void
lava_message_parse(const char *text, size_t len, char *out, size_t n)
{
	json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	const char *m = json_string_value(json_object_get(j, "message"));
	size_t i = 0;

	if (n == 0)
		goto out;
	for (; m && *m && i + 1 < n; m++)
		out[i++] = (unsigned char)*m >= 0x20 && (unsigned char)*m <
		    0x7f ? *m : '?';
	out[i] = '\0';
out:
	json_decref(j);
}

static int
lava_name_ok(const char *s)
{
	return s && *s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_.-") == strlen(s);
}

/* A YAML single-quoted scalar ('' for '); control bytes refused. */
static int
yaml_quote(struct buf *out, const char *s)
{
	buf_addch(out, '\'');
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20)
			return -1;
		if (*s == '\'')
			buf_addch(out, '\'');
		buf_addch(out, *s);
	}
	buf_addch(out, '\'');
	return 0;
}

int
lava_job_yaml(struct buf *out, const char *name, const char *device_type,
    const char *kernel_url, const char *initrd_url, const char *append,
    int timeout_min)
{
	struct buf karg = BUF_INIT(0);
	int rc = -1;

	if (!lava_name_ok(name) || !lava_name_ok(device_type) ||
	    strchr(append, '"') || timeout_min < 1)
		goto out;
	buf_addf(&karg, "-kernel {kernel} -append \"%s\"", append);
	buf_addf(out, "job_name: %s\ndevice_type: %s\nvisibility: public\n"
	    "priority: medium\ntimeouts:\n  job: {minutes: %d}\n"
	    "  action: {minutes: %d}\ncontext:\n  arch: x86_64\nactions:\n"
	    "- deploy:\n    to: tmpfs\n    timeout: {minutes: 5}\n"
	    "    images:\n      kernel:\n        image_arg: ", name,
	    device_type, timeout_min + 10, timeout_min + 5);
	if (yaml_quote(out, karg.data) == -1)
		goto out;
	buf_addstr(out, "\n        url: ");
	if (yaml_quote(out, kernel_url) == -1)
		goto out;
	buf_addstr(out, "\n      ramdisk:\n        image_arg: '-initrd "
	    "{ramdisk}'\n        url: ");
	if (yaml_quote(out, initrd_url) == -1)
		goto out;
	buf_addf(out, "\n- boot:\n    method: qemu\n    media: tmpfs\n"
	    "    timeout: {minutes: %d}\n    prompts: ['KPERFCI END']\n",
	    timeout_min);
	rc = 0;
out:
	buf_release(&karg);
	return rc;
}

int
lava_file_url(struct buf *out, const char *path)
{
	const char *p;

	if (path[0] != '/' || strspn(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789/._+-") != strlen(path))
		return -1;
	for (p = path; p; p = strchr(p + 1, '/')) {
		size_t n = strcspn(p + 1, "/");

		if ((n == 1 && p[1] == '.') || (n == 2 && !strncmp(p + 1, "..",
		    2)))
			return -1;
	}
	buf_addf(out, "file://%s", path);
	return 0;
}

void
lava_job_name(long long id, int attempt, char *out, size_t n)
{
	snprintf(out, n, "kperfci-%lld.%d", id, attempt);
}
