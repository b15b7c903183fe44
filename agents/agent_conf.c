/*
 * agent_conf: agent.conf, in the same "[section] key = value" syntax as
 * kperfci.conf (both read by lib/ini.c), with its own small table: the
 * agent does not link the daemon.  An unknown key is an error naming
 * file:line.  A key of two sections ([qemu] and [lava] sockets, the
 * timeouts) sets one field: the backend reads the one it has.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agents/agent.h"
#include "lib/ini.h"
#include "lib/sha256.h"
#include "lib/xalloc.h"

enum ctype { C_STR, C_INT, C_BACKEND };

struct ckey {
	const char	*section;
	const char	*key;
	enum ctype	 type;
	size_t		 off;
	long		 min, max;
};

#define S(f) offsetof(struct agent_conf, f)
static const struct ckey keys[] = {
	{ "agent", "name",		C_STR, S(name) },
	{ "agent", "server",		C_STR, S(server) },
	{ "agent", "token",		C_STR, S(token) },
	{ "agent", "state-dir",		C_STR, S(state_dir) },
	{ "agent", "backend",		C_BACKEND, S(backend) },
	{ "agent", "load-bin",		C_STR, S(load_bin) },
	{ "agent", "poll-seconds",	C_INT, S(poll_seconds), 1, 3600 },
	{ "agent", "backoff-max",	C_INT, S(backoff_max), 1, 3600 },
	{ "agent", "heartbeat-seconds",	C_INT, S(heartbeat_seconds), 1, 3600 },
	{ "agent", "keep",		C_INT, S(keep), 1, 10000 },
	{ "qemu", "binary",		C_STR, S(qemu_bin) },
	{ "qemu", "busybox",		C_STR, S(busybox) },
	{ "qemu", "sockets",		C_INT, S(sockets), 1, 8 },
	{ "qemu", "cores-per-socket",	C_INT, S(cores_per_socket), 1, 64 },
	{ "qemu", "memory-per-node",	C_INT, S(mem_per_node_mb), 64, 65536 },
	{ "qemu", "accel",		C_STR, S(accel) },
	{ "qemu", "boot-timeout",	C_INT, S(boot_timeout), 5, 3600 },
	{ "qemu", "job-timeout",	C_INT, S(job_timeout), 10, 86400 },
	{ "qemu", "kvm-probe-timeout",	C_INT, S(kvm_probe_timeout), 1, 600 },
	{ "qemu", "icount",		C_STR, S(icount) },
	{ "qemu", "mttcg",		C_STR, S(mttcg) },
	{ "kexec", "binary",		C_STR, S(kexec_bin) },
	{ "kexec", "exec",		C_STR, S(kexec_exec) },
	{ "kexec", "reboot",		C_STR, S(reboot_cmd) },
	{ "kexec", "initrd",		C_STR, S(kexec_initrd) },
	{ "kexec", "append",		C_STR, S(kexec_append) },
	{ "kexec", "job-timeout",	C_INT, S(job_timeout), 10, 86400 },
	{ "kexec", "console-log",	C_STR, S(console_log) },
	{ "kexec", "pstore",		C_STR, S(pstore_dir) },
	/* lava: the device describes its machine with the qemu keys */
	{ "lava", "lava-run",		C_STR, S(lava_run) },
	{ "lava", "device",		C_STR, S(lava_device) },
	{ "lava", "device-type",	C_STR, S(lava_device_type) },
	{ "lava", "cpu-model",		C_STR, S(lava_cpu_model) },
	{ "lava", "sockets",		C_INT, S(sockets), 1, 8 },
	{ "lava", "cores-per-socket",	C_INT, S(cores_per_socket), 1, 64 },
	{ "lava", "memory-per-node",	C_INT, S(mem_per_node_mb), 64, 65536 },
	{ "lava", "boot-timeout",	C_INT, S(boot_timeout), 5, 3600 },
	{ "lava", "job-timeout",	C_INT, S(job_timeout), 60, 86400 },
	/* lava's server mode */
	{ "lava", "url",		C_STR, S(lava_url) },
	{ "lava", "token-file",		C_STR, S(lava_token_file) },
	{ "lava", "token-sha256",	C_STR, S(lava_token_sha256) },
	{ "lava", "files-dir",		C_STR, S(lava_files_dir) },
	{ "lava", "files-url",		C_STR, S(lava_files_url) },
	{ "lava", "queue-timeout",	C_INT, S(lava_queue_timeout), 60,
	    7 * 86400 },
};
#undef S

static void
set_str(char **p, const char *v)
{
	free(*p);
	*p = xstrdup(v);
}

void
agent_conf_defaults(struct agent_conf *c)
{
	memset(c, 0, sizeof(*c));
	set_str(&c->name, "agent");
	set_str(&c->server, "http://127.0.0.1:8080");
	set_str(&c->state_dir, "/var/lib/kperfci-agent");
	c->backend = AGENT_QEMU;
	set_str(&c->load_bin, KPERFCI_SRCDIR "/bin/kperfci-load");
	c->poll_seconds = 5;
	c->backoff_max = 60;
	c->heartbeat_seconds = 10;
	c->keep = 8;
	set_str(&c->qemu_bin, "qemu-system-x86_64");
	set_str(&c->busybox, "/bin/busybox");
	c->sockets = 2;
	c->cores_per_socket = 2;
	c->mem_per_node_mb = 1024;
	set_str(&c->accel, "auto");
	set_str(&c->icount, "");
	set_str(&c->mttcg, "auto");
	c->boot_timeout = 120;
	c->job_timeout = 3600;
	c->kvm_probe_timeout = 20;
	set_str(&c->kexec_bin, "kexec");
	set_str(&c->kexec_exec, "systemctl kexec");
	set_str(&c->reboot_cmd, "systemctl reboot");
	set_str(&c->pstore_dir, "/sys/fs/pstore");
	set_str(&c->lava_run, "lava-run");
	set_str(&c->lava_device, "");
	set_str(&c->lava_device_type, "qemu");
	set_str(&c->lava_cpu_model, "");
	set_str(&c->lava_url, "");
	set_str(&c->lava_token_file, "");
	set_str(&c->lava_token_sha256, "");
	set_str(&c->lava_files_dir, "");
	set_str(&c->lava_files_url, "");
	c->lava_queue_timeout = 3600;
}

const char *
agent_backend_name(enum agent_backend b)
{
	switch (b) {
	case AGENT_QEMU:	return "qemu";
	case AGENT_KEXEC:	return "kexec";
	case AGENT_LAVA:	return "lava";
	}
	return "?";
}

void
agent_conf_release(struct agent_conf *c)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].type == C_STR) {
			char **p = (char **)((char *)c + keys[i].off);

			free(*p);
			*p = NULL;
		}
	free(c->lava_token);
	c->lava_token = NULL;
}

static int
set_key(struct agent_conf *c, const char *section, const char *key,
    const char *val, const char *name, int line, struct buf *err)
{
	const struct ckey *k = NULL;
	char *end;
	long n;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].section, section) == 0 &&
		    strcmp(keys[i].key, key) == 0)
			k = &keys[i];
	if (k == NULL) {
		buf_addf(err, "%s:%d: unknown key '%s' in [%s]\n", name, line,
		    key, section);
		return -1;
	}
	switch (k->type) {
	case C_STR:
		set_str((char **)((char *)c + k->off), val);
		break;
	case C_INT:
		n = strtol(val, &end, 10);
		if (*val == '\0' || *end || n < k->min || n > k->max) {
			buf_addf(err, "%s:%d: %s: expected an integer %ld..%ld, "
			    "got '%s'\n", name, line, key, k->min, k->max, val);
			return -1;
		}
		*(int *)((char *)c + k->off) = (int)n;
		break;
	case C_BACKEND:
		if (strcmp(val, "qemu") == 0)
			c->backend = AGENT_QEMU;
		else if (strcmp(val, "kexec") == 0)
			c->backend = AGENT_KEXEC;
		else if (strcmp(val, "lava") == 0)
			c->backend = AGENT_LAVA;
		else {
			buf_addf(err, "%s:%d: backend: expected qemu, kexec or "
			    "lava, got '%s'\n", name, line, val);
			return -1;
		}
		break;
	}
	return 0;
}

/* lib/ini.h callbacks: the table above on what the tokenizer read. */
struct conf_ctx {
	struct agent_conf *c;
	struct buf	*err;
};

static void
conf_ini_error(void *ctx, const char *sentence)
{
	struct conf_ctx *x = ctx;

	buf_addf(x->err, "%s\n", sentence);
}

static int
conf_ini_section(void *ctx, const struct ini_item *it)
{
	struct conf_ctx *x = ctx;

	if (it->sub || (strcmp(it->section, "agent") &&
	    strcmp(it->section, "qemu") && strcmp(it->section, "kexec") &&
	    strcmp(it->section, "lava"))) {
		buf_addf(x->err, "%s:%d: unknown section [%s%s%s%s] (known: "
		    "[agent], [qemu], [kexec], [lava])\n", it->file, it->line,
		    it->section, it->sub ? " \"" : "", it->sub ? it->sub : "",
		    it->sub ? "\"" : "");
		return -1;
	}
	return 0;
}

static int
conf_ini_key(void *ctx, const struct ini_item *it)
{
	struct conf_ctx *x = ctx;

	return set_key(x->c, it->section, it->key, it->value, it->file,
	    it->line, x->err);
}

/* Reads the token of [lava] token-file into c->lava_token, after its
   sha256 was checked against token-sha256 (the config names the token
   without holding it). */
static int
agent_conf_lava_token(struct agent_conf *c, const char *name,
    struct buf *err)
{
	struct buf t = BUF_INIT(4096);
	char have[65];
	size_t n;
	int rc = -1;

	if (c->lava_token_file[0] == '\0' || c->lava_token_sha256[0] ==
	    '\0') {
		buf_addf(err, "%s: [lava] url needs token-file (the REST token "
		    "LAVA gave) and token-sha256 (sha256sum of that file)\n",
		    name);
		goto out;
	}
	if (sha256_file(c->lava_token_file, have) == -1 ||
	    buf_read_file(&t, c->lava_token_file) == -1) {
		buf_addf(err, "%s: [lava] token-file %s: %s\n", name,
		    c->lava_token_file, strerror(errno));
		goto out;
	}
	if (strcasecmp(have, c->lava_token_sha256)) {
		buf_addf(err, "%s: [lava] token-file %s does not match "
		    "token-sha256 (its sha256 is %s)\n", name,
		    c->lava_token_file, have);
		goto out;
	}
	n = strcspn(t.data ? t.data : "", "\r\n");
	if (n == 0 || n > 256 || strspn(t.data, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_-.") != n) {
		buf_addf(err, "%s: [lava] token-file %s: expected one line, a "
		    "LAVA token ([A-Za-z0-9_.-], at most 256)\n", name,
		    c->lava_token_file);
		goto out;
	}
	free(c->lava_token);
	c->lava_token = xstrndup(t.data, n);
	rc = 0;
out:
	buf_release(&t);
	return rc;
}

/* [lava] in server mode: the server's URL and token, and where the lab
   reads the job's files from. */
static int
agent_conf_check_lava_server(struct agent_conf *c, const char *name,
    struct buf *err)
{
	size_t n;
	int rc = 0;

	if (strncmp(c->lava_url, "http://", 7) != 0 &&
	    strncmp(c->lava_url, "https://", 8) != 0) {
		buf_addf(err, "%s: [lava] url: expected the LAVA server's "
		    "http:// or https:// URL\n", name);
		rc = -1;
	}
	n = strlen(c->lava_url);
	while (n > 0 && c->lava_url[n - 1] == '/')
		c->lava_url[--n] = '\0';
	if (!c->lava_files_dir[0] != !c->lava_files_url[0]) {
		buf_addf(err, "%s: [lava] files-dir and files-url go together "
		    "(a directory and the URL the lab reads it at); neither: "
		    "file:// URLs, for a worker on this host\n", name);
		rc = -1;
	} else if (c->lava_files_url[0] && strncmp(c->lava_files_url,
	    "http://", 7) && strncmp(c->lava_files_url, "https://", 8)) {
		buf_addf(err, "%s: [lava] files-url: expected an http:// or "
		    "https:// URL\n", name);
		rc = -1;
	} else if (c->lava_files_dir[0] && c->lava_files_dir[0] != '/') {
		buf_addf(err, "%s: [lava] files-dir: expected an absolute "
		    "path\n", name);
		rc = -1;
	}
	n = strlen(c->lava_files_url);
	while (n > 0 && c->lava_files_url[n - 1] == '/')
		c->lava_files_url[--n] = '\0';
	if (agent_conf_lava_token(c, name, err) == -1)
		rc = -1;
	return rc;
}

/* [lava]: what a LAVA job definition can carry (lava.h), and a device
   dictionary for lava-run or a server to submit to. */
static int
agent_conf_check_lava(struct agent_conf *c, const char *name,
    struct buf *err)
{
	int rc = 0;

	if (c->lava_device_type[0] == '\0' ||
	    strspn(c->lava_device_type, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_.-") !=
	    strlen(c->lava_device_type)) {
		buf_addf(err, "%s: [lava] device-type: expected a LAVA device "
		    "type name ([A-Za-z0-9_.-])\n", name);
		rc = -1;
	}
	if (c->backend != AGENT_LAVA)
		return rc;
	if (c->lava_url[0])
		return agent_conf_check_lava_server(c, name, err) == -1 ? -1 :
		    rc;
	if (c->lava_device[0] == '\0') {
		buf_addf(err, "%s: [lava] device: backend = lava needs a device "
		    "dictionary for lava-run (or url, a LAVA server)\n", name);
		rc = -1;
	}
	if (strspn(c->lava_run, " ") == strlen(c->lava_run)) {
		buf_addf(err, "%s: [lava] lava-run: empty\n", name);
		rc = -1;
	}
	return rc;
}

/* The checks that need the whole file: server, accel, mttcg, icount,
   [lava]. */
static int
agent_conf_check(struct agent_conf *c, const char *name, struct buf *err)
{
	size_t n;
	int rc = 0;

	if (strncmp(c->server, "http://", 7) != 0 &&
	    strncmp(c->server, "https://", 8) != 0) {
		buf_addf(err, "%s: server: expected an http:// or https:// URL\n",
		    name);
		return -1;
	}
	n = strlen(c->server);
	while (n > 0 && c->server[n - 1] == '/')
		c->server[--n] = '\0';
	if (strcmp(c->accel, "auto") && strcmp(c->accel, "tcg") &&
	    strcmp(c->accel, "kvm")) {
		buf_addf(err, "%s: accel: expected auto, tcg or kvm\n", name);
		rc = -1;
	}
	if (strcmp(c->mttcg, "auto") && strcmp(c->mttcg, "on") &&
	    strcmp(c->mttcg, "off")) {
		buf_addf(err, "%s: mttcg: expected auto, on or off\n", name);
		rc = -1;
	}
	/* One qemu argument: option syntax only, nothing else. */
	if (strspn(c->icount, "abcdefghijklmnopqrstuvwxyz0123456789=,") !=
	    strlen(c->icount)) {
		buf_addf(err, "%s: icount: expected qemu -icount options such "
		    "as shift=3,sleep=off\n", name);
		rc = -1;
	}
	if (agent_conf_check_lava(c, name, err) == -1)
		rc = -1;
	return rc;
}

static int
agent_conf_parse_len(struct agent_conf *c, const char *name,
    const char *text, size_t len, struct buf *err)
{
	static const struct ini_ops ops = {
		conf_ini_section, conf_ini_key, conf_ini_error, 0,
	};
	struct conf_ctx x = { c, err };

	if (ini_parse(&ops, &x, name, text, len) < 0)
		return -1;
	return agent_conf_check(c, name, err);
}

int
agent_conf_parse(struct agent_conf *c, const char *name, const char *text,
    struct buf *err)
{
	return agent_conf_parse_len(c, name, text, strlen(text), err);
}

int
agent_conf_load(struct agent_conf *c, const char *path, struct buf *err)
{
	struct buf b = BUF_INIT(1 << 20);
	int rc;

	if (buf_read_file(&b, path) == -1) {
		buf_addf(err, "%s: cannot read: %m\n", path);
		buf_release(&b);
		return -1;
	}
	rc = agent_conf_parse_len(c, path, b.data ? b.data : "", b.len, err);
	buf_release(&b);
	return rc;
}
