/*
 * build: cached, incremental, sandboxed kernel builds (see build.h for the
 * layout and the threading rules).
 *
 * Why hard links plus fresh files: make decides what to rebuild from mtimes.
 * A patched tree made of hard links to the exported base keeps every
 * unchanged file's old mtime; the files the series changed are written anew
 * (new inode, new mtime) after the base's objects were copied with their
 * mtimes preserved, so kbuild recompiles exactly what the series touched.
 * Hard links make the copy of 85k files take seconds and no space.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/build.h"
#include "core/sandbox.h"
#include "core/tree.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/sha256.h"
#include "lib/strvec.h"
#include "lib/xalloc.h"

#define BUILD_LOG_MAX	(64u << 20)	/* how much of a log we read back */
/* A build whose log passes BUILD_LOG_LIMIT is stopped (a kernel build
   at V=0 writes a few MiB); a finished build's log is kept to its first
   and last BUILD_LOG_KEEP / 2 bytes, so what is stored and served stays
   small whatever a hostile Makefile prints. */
#define BUILD_LOG_LIMIT	(64LL << 20)
#define BUILD_LOG_KEEP	(8LL << 20)
/* Largest artifact copied out of a build (bzImage, System.map, config). */
#define BUILD_ARTIFACT_MAX (256LL << 20)
/* Largest private /tmp of a build (tmpfs: memory). */
#define BUILD_TMP_MAX	(1LL << 30)

static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t build_cond = PTHREAD_COND_INITIALIZER;
static int build_slots = 1, build_busy, build_gc_running;
/* Keys being built by some thread right now (guarded by build_lock). */
#define BUILD_MAX_ACTIVE 64
static char build_active[BUILD_MAX_ACTIVE][65];
/* Exports and the "done" check-and-claim of one key are serialised. */
static pthread_mutex_t build_export_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const build_env[] = {
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"HOME=/tmp",
	"LANG=C.UTF-8",
	"LC_ALL=C.UTF-8",
	/* Reproducible kernels: the same commit and config give the same
	   bzImage, so "differ" in a comparison means the code differs. */
	"KBUILD_BUILD_TIMESTAMP=Mon Nov 18 00:00:00 UTC 2024",
	"KBUILD_BUILD_USER=kperfci",
	"KBUILD_BUILD_HOST=kperfci",
	"KBUILD_BUILD_VERSION=1",
	NULL
};

const char *
build_state_name(enum build_state s)
{
	switch (s) {
	case BUILD_QUEUED:
		return "queued";
	case BUILD_CONFIGURING:
		return "configuring";
	case BUILD_BUILDING:
		return "building";
	case BUILD_DONE:
		return "done";
	case BUILD_FAILED:
		return "failed";
	}
	return "?";
}

void
build_set_slots(int n)
{
	pthread_mutex_lock(&build_lock);
	build_slots = n > 0 ? n : 1;
	pthread_cond_broadcast(&build_cond);
	pthread_mutex_unlock(&build_lock);
}

static void
build_slot_get(void)
{
	pthread_mutex_lock(&build_lock);
	while (build_busy >= build_slots || build_gc_running)
		pthread_cond_wait(&build_cond, &build_lock);
	build_busy++;
	pthread_mutex_unlock(&build_lock);
}

/* Marks key as being built, waiting while another thread builds it. */
static void
build_key_claim(const char *key)
{
	pthread_mutex_lock(&build_lock);
	for (;;) {
		int busy = 0, free_i = -1;

		for (int i = 0; i < BUILD_MAX_ACTIVE; i++) {
			if (!strcmp(build_active[i], key))
				busy = 1;
			else if (!build_active[i][0] && free_i < 0)
				free_i = i;
		}
		if (!busy && free_i >= 0) {
			memcpy(build_active[free_i], key, 65);
			break;
		}
		pthread_cond_wait(&build_cond, &build_lock);
	}
	pthread_mutex_unlock(&build_lock);
}

static void
build_key_release(const char *key)
{
	pthread_mutex_lock(&build_lock);
	for (int i = 0; i < BUILD_MAX_ACTIVE; i++)
		if (!strcmp(build_active[i], key))
			build_active[i][0] = '\0';
	pthread_cond_broadcast(&build_cond);
	pthread_mutex_unlock(&build_lock);
}

static void
build_slot_put(void)
{
	pthread_mutex_lock(&build_lock);
	build_busy--;
	pthread_cond_broadcast(&build_cond);
	pthread_mutex_unlock(&build_lock);
}

static int
build_is_target(const char *config)
{
	/* A make target is a bare word ("tinyconfig"); a file has a '/'. */
	if (!*config || strchr(config, '/'))
		return 0;
	for (const char *c = config; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
		    *c == '_' || *c == '.'))
			return 0;
	return 1;
}

int
build_config_hash(const char *config, const char *const *fragments, size_t n,
    char out[65], struct buf *err)
{
	struct sha256 h;
	unsigned char d[32];
	struct buf f = BUF_INIT(16u << 20);
	int rc = -1;

	sha256_init(&h);
	if (build_is_target(config)) {
		sha256_update(&h, "target\0", 7);
		sha256_update(&h, config, strlen(config) + 1);
	} else {
		if (buf_read_file(&f, config) == -1) {
			buf_addf(err, "base config %s: %s", config,
			    f.overflow ? "too large" : strerror(errno));
			goto out;
		}
		sha256_update(&h, "file\0", 5);
		sha256_update(&h, f.data, f.len);
		buf_release(&f);
	}
	for (size_t i = 0; i < n; i++) {
		if (buf_read_file(&f, fragments[i]) == -1) {
			buf_addf(err, "config fragment %s: %s", fragments[i],
			    f.overflow ? "too large" : strerror(errno));
			goto out;
		}
		sha256_update(&h, "fragment\0", 9);
		sha256_update(&h, f.data, f.len);
		buf_release(&f);
	}
	sha256_final(&h, d);
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
	rc = 0;
out:
	buf_release(&f);
	return rc;
}

int
build_compiler_id(struct buf *out)
{
	const char *argv[] = { "gcc", "--version", NULL };
	struct run r = { 0 };
	struct buf b = BUF_INIT(64 << 10);
	char *nl;
	int rc = -1;

	r.argv = argv;
	r.timeout_sec = 30;
	if (run_capture(&r, &b) != 0 || !b.len) {
		error("gcc --version: %s", run_status(&r));
		goto out;
	}
	if ((nl = strchr(b.data, '\n')))
		*nl = '\0';
	buf_addstr(out, b.data);
	rc = 0;
out:
	buf_release(&b);
	return rc;
}

void
build_key(const char *commit, const char *config_hash, const char *compiler,
    char out[65])
{
	struct buf b = BUF_INIT(0);

	buf_addf(&b, "kperfci-build-1\n%s\n%s\n%s\n", commit, config_hash,
	    compiler);
	sha256_hex(b.data, b.len, out);
	buf_release(&b);
}

int
build_spec_key(const struct build_spec *spec, char out[65], struct buf *err)
{
	struct buf comp = BUF_INIT(4096);
	char chash[65];
	int rc = -1;

	if (build_config_hash(spec->config, spec->fragments, spec->nfragments,
	    chash, err) != 0)
		goto out;
	if (build_compiler_id(&comp) != 0) {
		buf_addf(err, "cannot run gcc --version");
		goto out;
	}
	build_key(spec->commit, chash, comp.data, out);
	rc = 0;
out:
	buf_release(&comp);
	return rc;
}

int
build_count_steps(const char *log, size_t len)
{
	static const char *const tags[] = { "  CC ", "  AS ", "  LD ", "  AR ",
	    "  HOSTCC ", "  OBJCOPY ", NULL };
	const char *p = log, *end = log + len;
	int n = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		for (int i = 0; tags[i]; i++) {
			size_t tl = strlen(tags[i]);

			if (l > tl && !memcmp(p, tags[i], tl)) {
				n++;
				break;
			}
		}
		p += l + 1;
	}
	return n;
}

void
build_first_error(const char *log, size_t len, struct buf *out)
{
	const char *p = log, *end = log + len, *make_err = NULL;
	size_t make_len = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = xstrndup(p, l);

		if (strstr(line, ": error: ") || strstr(line, ": fatal error: ") ||
		    strstr(line, "undefined reference to")) {
			buf_addf(out, "%.500s", line);
			free(line);
			return;
		}
		if (!make_err && strstr(line, "*** ")) {
			make_err = p;
			make_len = l;
		}
		free(line);
		p += l + 1;
	}
	if (make_err)
		buf_addf(out, "%.*s", (int)(make_len > 500 ? 500 : make_len),
		    make_err);
}

void
build_log_tail(const char *log, size_t len, int nlines, struct buf *out)
{
	size_t i = len;

	if (i && log[i - 1] == '\n')
		i--;
	while (i > 0 && nlines > 0) {
		i--;
		if (log[i] == '\n')
			nlines--;
	}
	if (i < len && log[i] == '\n')
		i++;
	buf_add(out, log + i, len - i);
}

static int
build_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static int
build_run_simple(const char *const *argv, const char *log_path, int timeout)
{
	struct run r = { 0 };

	r.argv = argv;
	r.log_path = log_path;
	r.timeout_sec = timeout;
	if (run_cmd(&r) != 0)
		return error("%s: %s", argv[0], run_status(&r));
	return 0;
}

static void
build_rm_rf(const char *path)
{
	const char *argv[] = { "rm", "-rf", "--", path, NULL };

	build_run_simple(argv, NULL, 600);
}

static double
build_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long long build_gc_du(const char *path, int own);

/*
 * Size records, so the cache's garbage collection need not walk every
 * tree (a kernel tree is ~90k files; eight of them take seconds):
 * <cache>/b/<key>/size holds the build's own bytes, written when it is
 * done; <cache>/src/<commit>.size the export's.
 */
static void
build_size_write(const char *path, long long v)
{
	char s[32];
	int n = snprintf(s, sizeof(s), "%lld\n", v);

	buf_write_file(path, s, (size_t)n);
}

static long long
build_size_read(const char *path)
{
	struct buf b = BUF_INIT(64);
	long long v = -1;

	if (buf_read_file(&b, path) == 0 && b.data && b.len)
		v = atoll(b.data);
	buf_release(&b);
	return v;
}

/* Exports commit to <cache>/src/<commit> once (tmp dir + rename). */
static int
build_export(const char *cache, const char *repo, const char *commit,
    struct buf *err)
{
	char *dst = xasprintf("%s/src/%s", cache, commit);
	char *tmp = xasprintf("%s/src/.tmp-%s-%d", cache, commit, (int)getpid());
	char *srcdir = xasprintf("%s/src", cache);
	int rc = -1;

	pthread_mutex_lock(&build_export_lock);
	if (build_exists(dst)) {
		rc = 0;
		goto out;
	}
	mkdir(srcdir, 0755);
	build_rm_rf(tmp);
	if (tree_export(repo, commit, tmp, err) != 0)
		goto out;
	if (rename(tmp, dst) == -1) {
		buf_addf(err, "rename %s: %s", tmp, strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = xasprintf("%s.size", dst);
	build_size_write(tmp, build_gc_du(dst, 0));
	rc = 0;
out:
	if (rc != 0)
		build_rm_rf(tmp);
	pthread_mutex_unlock(&build_export_lock);
	free(dst);
	free(tmp);
	free(srcdir);
	return rc;
}

struct build_monitor {
	pthread_t thread;
	const struct build_opts *opts;
	const char *log_path;
	const char *out_dir;		/* kbuild, whose size is bounded */
	long long out_max;
	int	 expected;
	int	 steps;
	volatile int stop;
	volatile int kill;		/* the build's cancel flag */
	volatile int over;		/* killed for output_max */
	volatile int log_over;		/* killed for BUILD_LOG_LIMIT */
	long long out_size;
};

static long long
build_limit(long long v, long long dflt)
{
	return v > 0 ? v : dflt;
}

/* nftw has no user argument; the monitor thread is the only walker. */
static __thread long long build_du_sum;

static int
build_du_one(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)path;
	(void)flag;
	(void)ftw;
	build_du_sum += (long long)st->st_blocks * 512;
	return 0;
}

/* Bytes a directory takes on disk (hard links counted once per name:
   a build cannot hide what it wrote by linking it). */
static long long
build_du(const char *path)
{
	build_du_sum = 0;
	nftw(path, build_du_one, 16, FTW_PHYS | FTW_MOUNT);
	return build_du_sum;
}

/* Keeps a log over BUILD_LOG_KEEP to its head and tail, with a line
   saying how much was cut between them.  Errors are ignored: the log is
   evidence, not a result. */
static void
build_log_trim(const char *log)
{
	long long half = BUILD_LOG_KEEP / 2, cut;
	struct stat st;
	char *tmp, *chunk;
	FILE *in, *out;
	size_t n;

	if (stat(log, &st) != 0 || st.st_size <= BUILD_LOG_KEEP)
		return;
	cut = st.st_size - 2 * half;
	tmp = xasprintf("%s.trim", log);
	in = fopen(log, "r");
	out = fopen(tmp, "w");
	chunk = xmalloc(1 << 16);
	if (!in || !out)
		goto out;
	for (long long left = half; left > 0 && (n = fread(chunk, 1,
	    left < (1 << 16) ? (size_t)left : (1 << 16), in)) > 0; left -= n)
		fwrite(chunk, 1, n, out);
	fprintf(out, "\n[kperfci: %lld bytes of this log cut here; it is "
	    "kept to its first and last %lld MiB]\n", cut, half >> 20);
	if (fseeko(in, st.st_size - half, SEEK_SET) == 0)
		while ((n = fread(chunk, 1, 1 << 16, in)) > 0)
			fwrite(chunk, 1, n, out);
	if (fclose(out) != 0 || rename(tmp, log) != 0)
		unlink(tmp);
	out = NULL;
out:
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	free(chunk);
	free(tmp);
}

/* Reads the log about once a second and reports building N%; every two
   seconds checks the output against its limit, and passes the daemon's
   stop on to the build. */
static void *
build_monitor_main(void *arg)
{
	struct build_monitor *m = arg;

	for (unsigned tick = 0; !m->stop; tick++) {
		struct buf b = BUF_INIT(BUILD_LOG_MAX);
		struct stat st;
		int pct = -1;

		if (buf_read_file(&b, m->log_path) == 0 || b.overflow)
			m->steps = build_count_steps(b.data ? b.data : "",
			    b.len);
		buf_release(&b);
		if (m->expected > 0) {
			pct = 100 * m->steps / m->expected;
			if (pct > 99)
				pct = 99;
		}
		if (m->opts->progress)
			m->opts->progress(m->opts->arg, BUILD_BUILDING, pct);
		if (tick % 2 == 0 && m->out_dir) {
			m->out_size = build_du(m->out_dir);
			if (stat(m->log_path, &st) == 0)
				m->out_size += st.st_size;
			if (m->out_size > m->out_max) {
				m->over = 1;
				m->kill = 1;
			}
			if (stat(m->log_path, &st) == 0 &&
			    st.st_size > BUILD_LOG_LIMIT) {
				m->log_over = 1;
				m->kill = 1;
			}
		}
		for (int i = 0; i < 10 && !m->stop; i++) {
			if (m->opts->cancel && *m->opts->cancel)
				m->kill = 1;
			usleep(100000);
		}
	}
	return NULL;
}

static int
build_read_int(const char *path)
{
	struct buf b = BUF_INIT(64);
	int v = 0;

	if (buf_read_file(&b, path) == 0 && b.data)
		v = atoi(b.data);
	buf_release(&b);
	return v;
}

static void
build_write_int(const char *path, int v)
{
	char s[32];
	int n = snprintf(s, sizeof(s), "%d\n", v);

	buf_write_file(path, s, (size_t)n);
}

/* Runs one step inside the sandbox (or plainly when opts->sandbox is 0);
   cancel: the flag that stops it (opts->cancel, or the monitor's). */
static int
build_step(const struct build_opts *opts, const char *const *cmd,
    const char *readonly, const char *writable, const char *dir,
    const char *log_path, int timeout, volatile int *cancel, struct buf *why)
{
	const char *const w[] = { writable }, *const ro[] = { readonly };
	struct strvec hidden = STRVEC_INIT;
	struct sandbox sb = { w, 1, ro, 1, dir, 0, NULL, 0, 0, 0, 0, 0 };
	const char **argv = NULL;
	struct run r = { 0 };
	int rc = -1;

	if (opts->sandbox) {
		long long out = build_limit(opts->output_max,
		    BUILD_DEFAULT_OUTPUT);

		/* every path asked for: past the sandbox's limit it refuses
		   the build rather than show a path it was told to hide */
		strvec_push(&hidden, opts->cache_dir);
		for (size_t i = 0; i < opts->nhide; i++)
			strvec_push(&hidden, opts->hide[i]);
		sb.hidden = strvec_argv(&hidden);
		sb.nhidden = hidden.n;
		sb.nproc = build_limit(opts->pids_max, BUILD_DEFAULT_PIDS);
		sb.as = build_limit(opts->mem_max, BUILD_DEFAULT_MEM);
		sb.fsize = build_limit(opts->file_max, BUILD_DEFAULT_FILE);
		sb.tmp = out < BUILD_TMP_MAX ? out : BUILD_TMP_MAX;
		if (!(argv = sandbox_argv(&sb, cmd))) {
			buf_addf(why, "cannot build the sandbox command");
			return -1;
		}
		r.argv = argv;
	} else {
		r.argv = cmd;
		r.dir = dir;
	}
	r.env = build_env;
	r.clear_env = 1;
	r.log_path = log_path;
	r.timeout_sec = timeout > 0 ? timeout : 1;
	r.cancel = cancel;
	if (run_cmd(&r) != 0) {
		const char *last = cmd[0], *prog = strrchr(cmd[0], '/');

		for (const char *const *c = cmd; *c; c++)
			last = *c;
		/* "make bzImage: exit 2", "merge_config.sh: exit 1" */
		buf_addf(why, "%s%s%s: %s", prog ? prog + 1 : cmd[0],
		    last != cmd[0] && !prog ? " " : "",
		    last != cmd[0] && !prog ? last : "", run_status(&r));
		goto out;
	}
	rc = 0;
out:
	free(argv);
	strvec_clear(&hidden);
	return rc;
}

/*
 * Copies dir/rel to dst without following a symlink anywhere in rel: each
 * directory is opened O_NOFOLLOW below dir, the file too, and it must be a
 * regular file of at most max bytes.  The build wrote dir; this is how a
 * hostile one could otherwise make the daemon copy (and serve) any file
 * the daemon can read.  dst is created anew (O_EXCL after unlink).
 */
static int
build_copy_out(const char *dir, const char *rel, const char *dst,
    long long max, struct buf *why)
{
	char *path = xstrdup(rel), *save = NULL, *c, *next;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int fd = -1, out = -1, rc = -1;
	struct stat st;
	long long left;

	if (dfd == -1) {
		buf_addf(why, "artifact %s: %s: %s", rel, dir, strerror(errno));
		goto out;
	}
	for (c = strtok_r(path, "/", &save); c; c = next) {
		int nfd;

		next = strtok_r(NULL, "/", &save);
		nfd = openat(dfd, c, next ? O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC : O_RDONLY | O_NOFOLLOW |
		    O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (nfd == -1) {
			buf_addf(why, "artifact %s %s after the build%s", rel,
			    errno == ENOENT ? "missing" : "refused",
			    errno == ELOOP || errno == ENOTDIR ? " (a symlink "
			    "out of the build directory)" : "");
			goto out;
		}
		close(dfd);
		dfd = -1;
		if (next)
			dfd = nfd;
		else
			fd = nfd;
	}
	if (fd == -1 || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		buf_addf(why, "artifact %s refused: not a regular file", rel);
		goto out;
	}
	if (st.st_size > max) {
		buf_addf(why, "artifact %s refused: %lld bytes, over %lld",
		    rel, (long long)st.st_size, max);
		goto out;
	}
	unlink(dst);
	if ((out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1) {
		buf_addf(why, "cannot create %s: %s", dst, strerror(errno));
		goto out;
	}
	for (left = max + 1;;) {
		char b[65536];
		ssize_t n = read(fd, b, sizeof(b));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (left -= n) <= 0) {
			buf_addf(why, "artifact %s: %s", rel, n < 0 ?
			    strerror(errno) : "grew past the limit");
			goto out;
		}
		if (n == 0)
			break;
		for (ssize_t o = 0, w; o < n; o += w)
			if ((w = write(out, b + o, (size_t)(n - o))) <= 0) {
				buf_addf(why, "writing %s: %s", dst,
				    strerror(errno));
				goto out;
			}
	}
	if (close(out) == -1) {
		out = -1;
		buf_addf(why, "writing %s: %s", dst, strerror(errno));
		goto out;
	}
	out = -1;
	rc = 0;
out:
	if (out != -1) {
		close(out);
		unlink(dst);
	}
	if (fd != -1)
		close(fd);
	if (dfd != -1)
		close(dfd);
	free(path);
	return rc;
}

static void
build_report(const struct build_opts *opts, enum build_state s, int pct)
{
	if (opts->progress)
		opts->progress(opts->arg, s, pct);
}

/* What the steps of one build_run share. */
struct build_ctx {
	const struct build_spec *spec;
	const struct build_opts *opts;
	struct build_result *res;
	struct buf err, comp, changed, why;
	char	 chash[65];
	char	*done, *linux_dir, *kbuild, *log, *src, *kconf, *steps_file;
	double	 start;
	int	 have_slot, have_key, lockfd, kconfig_changed, expected;
};

/* The base commit the tree is exported from (the commit itself for a
   plain build). */
static const char *
build_ctx_base(const struct build_ctx *x)
{
	return x->spec->base_commit ? x->spec->base_commit : x->spec->commit;
}

/* Seconds left of the build's time limit. */
static int
build_ctx_timeout(const struct build_ctx *x)
{
	return x->opts->timeout_sec - (int)(build_now() - x->start);
}

/* Checks the commit id and the cache directory before anything runs. */
static int
build_check_spec(const struct build_spec *spec, const struct build_opts *opts,
    struct build_result *res)
{
	if (!spec->commit || strlen(spec->commit) != 40 ||
	    strspn(spec->commit, "0123456789abcdef") != 40) {
		snprintf(res->error, sizeof(res->error), "commit \"%.60s\" is "
		    "not a full commit id", spec->commit ? spec->commit : "");
		return -1;
	}
	if (opts->cache_dir[0] != '/') {
		snprintf(res->error, sizeof(res->error), "cache directory %s "
		    "is not absolute", opts->cache_dir);
		return -1;
	}
	return 0;
}

/* Computes the cache key, claims it in this process and takes the
   <key>.lock flock against other processes (reporting queued while
   another holds it). */
static int
build_claim(struct build_ctx *x)
{
	struct build_result *res = x->res;
	const struct build_opts *opts = x->opts;
	char *s = NULL;
	int rc = -1;

	if (build_config_hash(x->spec->config, x->spec->fragments,
	    x->spec->nfragments, x->chash, &x->err) != 0 ||
	    build_compiler_id(&x->comp) != 0) {
		snprintf(res->error, sizeof(res->error), "%s",
		    x->err.len ? x->err.data : "cannot run gcc --version");
		goto out;
	}
	build_key(x->spec->commit, x->chash, x->comp.data, res->key);
	snprintf(res->dir, sizeof(res->dir), "%s/b/%s", opts->cache_dir,
	    res->key);
	x->done = xasprintf("%s/done", res->dir);
	build_key_claim(res->key);
	x->have_key = 1;
	/* Other processes (the CLI, tests sharing a cache) may build the same
	   key: an flock on <key>.lock makes them wait for each other. */
	s = xasprintf("%s/b", opts->cache_dir);
	mkdir(opts->cache_dir, 0755);
	mkdir(s, 0755);
	free(s);
	s = xasprintf("%s.lock", res->dir);
	if ((x->lockfd = open(s, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) == -1) {
		snprintf(res->error, sizeof(res->error), "cannot open %.500s: %s",
		    s, strerror(errno));
		goto out;
	}
	if (flock(x->lockfd, LOCK_EX | LOCK_NB) == -1) {
		build_report(opts, BUILD_QUEUED, -1);
		if (flock(x->lockfd, LOCK_EX) == -1) {
			snprintf(res->error, sizeof(res->error), "flock: %s",
			    strerror(errno));
			goto out;
		}
	}
	rc = 0;
out:
	free(s);
	return rc;
}

/* 1 when the key is already built (a cache hit, reported done), else 0. */
static int
build_cache_hit(struct build_ctx *x)
{
	struct buf d = BUF_INIT(128);
	int hit = 0;

	if (!build_exists(x->done))
		return 0;
	if (buf_read_file(&d, x->done) == 0 && d.len >= 64) {
		/* used now: the cache's LRU order */
		utimensat(AT_FDCWD, x->done, NULL, 0);
		memcpy(x->res->sha256, d.data, 64);
		x->res->cache_hit = 1;
		x->res->seconds = build_now() - x->start;
		build_report(x->opts, BUILD_DONE, 100);
		hit = 1;
	}
	buf_release(&d);
	return hit;
}

/* Waits for a build slot, then makes a fresh build directory whose linux/
   hard-links the exported base tree. */
static int
build_prepare_tree(struct build_ctx *x)
{
	struct build_result *res = x->res;
	const struct build_opts *opts = x->opts;
	const char *cp[] = { "cp", "-al", "--", NULL, NULL, NULL };
	char *s = NULL;
	int rc = -1;

	build_report(opts, BUILD_QUEUED, -1);
	build_slot_get();
	x->have_slot = 1;
	build_report(opts, BUILD_CONFIGURING, -1);

	/* A failed attempt leaves its directory; start over cleanly. */
	build_rm_rf(res->dir);
	if (mkdir(res->dir, 0755) == -1) {
		snprintf(res->error, sizeof(res->error), "mkdir %.500s: %s",
		    res->dir, strerror(errno));
		goto out;
	}
	x->linux_dir = xasprintf("%s/linux", res->dir);
	x->kbuild = xasprintf("%s/kbuild", x->linux_dir);
	x->log = xasprintf("%s/build.log", res->dir);
	x->kconf = xasprintf("%s/kconfig", res->dir);
	x->steps_file = xasprintf("%s/steps-%s", opts->cache_dir, x->chash);

	if (build_export(opts->cache_dir, x->spec->repo, build_ctx_base(x),
	    &x->err) != 0) {
		snprintf(res->error, sizeof(res->error), "export: %s",
		    x->err.data);
		goto out;
	}
	x->src = xasprintf("%s/src/%s", opts->cache_dir, build_ctx_base(x));
	cp[3] = x->src;
	cp[4] = x->linux_dir;
	if (build_run_simple(cp, x->log, 600) != 0) {
		snprintf(res->error, sizeof(res->error), "cannot link "
		    "the source tree (see the log)");
		goto out;
	}
	/* Which export the tree links, for the cache's garbage collection. */
	s = xasprintf("%s/source", res->dir);
	buf_write_file(s, build_ctx_base(x), 40);
	rc = 0;
out:
	free(s);
	return rc;
}

/* Refuses a changed path that could leave the tree or reach kbuild/
   (git never stores these, but the repo is not ours). */
static int
build_path_refused(const char *p)
{
	return p[0] == '/' || !strncmp(p, "../", 3) || strstr(p, "/../") ||
	    !strcmp(p, "kbuild") || !strncmp(p, "kbuild/", 7);
}

/* Writes the files the series changed into linux/ (fresh inodes, fresh
   mtimes); counts the changed .c/.S files and notes Kconfig or Makefile
   changes. */
static int
build_write_changed(struct build_ctx *x, size_t *nchanged)
{
	struct build_result *res = x->res;
	const struct build_spec *spec = x->spec;
	struct buf *changed = &x->changed;

	if (tree_changed_paths(spec->repo, spec->base_commit, spec->commit,
	    changed, &x->err) != 0) {
		snprintf(res->error, sizeof(res->error), "%s", x->err.data);
		return -1;
	}
	for (const char *p = changed->data; p && p < changed->data +
	    changed->len; p += strlen(p) + 1) {
		char *dest;
		size_t l;

		if (build_path_refused(p)) {
			snprintf(res->error, sizeof(res->error),
			    "refusing path \"%.200s\" in the series", p);
			return -1;
		}
		dest = xasprintf("%s/%s", x->linux_dir, p);
		if (tree_write_path(spec->repo, spec->commit, p, dest,
		    &x->err) != 0) {
			free(dest);
			snprintf(res->error, sizeof(res->error), "%s",
			    x->err.data);
			return -1;
		}
		free(dest);
		if (strstr(p, "Kconfig") || strstr(p, "Makefile"))
			x->kconfig_changed = 1;
		l = strlen(p);
		if (l > 2 && (!strcmp(p + l - 2, ".c") ||
		    !strcmp(p + l - 2, ".S")))
			(*nchanged)++;
	}
	return 0;
}

/* A patched build: the series' files over the base tree, and a copy of
   the base's build directory, so only what changed recompiles. */
static int
build_patched_tree(struct build_ctx *x)
{
	struct build_result *res = x->res;
	const struct build_spec *spec = x->spec;
	const char *cp[] = { "cp", "-a", "--reflink=auto", "--", NULL, NULL,
	    NULL };
	char *base_kbuild = NULL, *s = NULL;
	size_t nchanged = 0;
	int rc = -1;

	if (!spec->base_key) {
		snprintf(res->error, sizeof(res->error), "a patched "
		    "build needs its base build");
		goto out;
	}
	if (build_write_changed(x, &nchanged) != 0)
		goto out;
	base_kbuild = xasprintf("%s/b/%s/linux/kbuild", x->opts->cache_dir,
	    spec->base_key);
	s = xasprintf("%s/b/%s/done", x->opts->cache_dir, spec->base_key);
	if (!build_exists(s) || !build_exists(base_kbuild)) {
		snprintf(res->error, sizeof(res->error), "the base "
		    "build %.16s is not done", spec->base_key);
		goto out;
	}
	cp[4] = base_kbuild;
	cp[5] = x->kbuild;
	if (build_run_simple(cp, x->log, 600) != 0) {
		snprintf(res->error, sizeof(res->error),
		    "cannot copy the base build directory");
		goto out;
	}
	/* A few fixed steps (version, link, compress) plus one
	   compile per changed source file. */
	x->expected = (int)nchanged + 12;
	rc = 0;
out:
	free(base_kbuild);
	free(s);
	return rc;
}

/* Makes the build directory: a patched one from its base, a plain one
   empty (expecting as many steps as this config took last time); then
   hands it to the sandbox's user. */
static int
build_prepare_kbuild(struct build_ctx *x)
{
	struct build_result *res = x->res;
	const char *ch[] = { "chown", "-R", SANDBOX_UID_STR ":"
	    SANDBOX_UID_STR, "--", x->kbuild, NULL };

	if (x->spec->base_commit) {
		if (build_patched_tree(x) != 0)
			return -1;
	} else {
		if (mkdir(x->kbuild, 0755) == -1) {
			snprintf(res->error, sizeof(res->error), "mkdir %s: %s",
			    x->kbuild, strerror(errno));
			return -1;
		}
		x->expected = build_read_int(x->steps_file);
	}

	/* The sandboxed build runs as SANDBOX_UID: its output must be its own
	   (a copied base build directory comes with the base's owner). */
	if (x->opts->sandbox && geteuid() == 0 &&
	    build_run_simple(ch, x->log, 600) != 0) {
		snprintf(res->error, sizeof(res->error), "cannot hand "
		    "the build directory to the build user");
		return -1;
	}
	return 0;
}

/* Copies the config fragments into kconfig/ (the exact bytes we hashed,
   readable inside the sandbox), as kconfig/<i>.config. */
static int
build_copy_fragments(struct build_ctx *x, char **frag_copies)
{
	const struct build_spec *spec = x->spec;
	int ok = 1;

	for (size_t i = 0; i < spec->nfragments && ok; i++) {
		struct buf f = BUF_INIT(16u << 20);

		frag_copies[i] = xasprintf("%s/%zu.config", x->kconf, i);
		if (buf_read_file(&f, spec->fragments[i]) != 0 ||
		    buf_write_file(frag_copies[i], f.data ? f.data : "",
		    f.len) != 0) {
			snprintf(x->res->error, sizeof(x->res->error),
			    "config fragment %s: %s", spec->fragments[i],
			    strerror(errno));
			ok = 0;
		}
		buf_release(&f);
	}
	return ok ? 0 : -1;
}

/* The base .config of a plain build: a make target (tinyconfig,
   defconfig) or a file copied into kbuild. */
static int
build_base_config(struct build_ctx *x, const char *dotconfig, int timeout)
{
	const char *base_cfg = x->spec->config;
	const char *mk[] = { "make", "-C", x->linux_dir, "O=kbuild", base_cfg,
	    NULL };
	struct buf f = BUF_INIT(16u << 20);
	int rc = 0;

	if (build_is_target(base_cfg))
		return build_step(x->opts, mk, x->res->dir, x->kbuild,
		    x->linux_dir, x->log, timeout, x->opts->cancel, &x->why);
	if (buf_read_file(&f, base_cfg) != 0 ||
	    buf_write_file(dotconfig, f.data ? f.data : "", f.len) != 0) {
		rc = -1;
		buf_addf(&x->why, "base config %s: %s", base_cfg,
		    strerror(errno));
	}
	buf_release(&f);
	return rc;
}

/* Merges the fragments into the .config with merge_config.sh. */
static int
build_merge_fragments(struct build_ctx *x, const char *dotconfig,
    char *const *frag_copies)
{
	/* merge_config.sh makes its temporary files in the current
	   directory: run it in the writable kbuild. */
	char *script = xasprintf("%s/scripts/kconfig/merge_config.sh",
	    x->linux_dir);
	const char **merge = xcalloc(x->spec->nfragments + 8, sizeof(*merge));
	size_t k = 0;
	int rc;

	merge[k++] = script;
	merge[k++] = "-m";
	merge[k++] = "-O";
	merge[k++] = x->kbuild;
	merge[k++] = dotconfig;
	for (size_t i = 0; i < x->spec->nfragments; i++)
		merge[k++] = frag_copies[i];
	merge[k] = NULL;
	rc = build_step(x->opts, merge, x->res->dir, x->kbuild, x->kbuild,
	    x->log, build_ctx_timeout(x), x->opts->cancel, &x->why);
	free(merge);
	free(script);
	return rc;
}

/* Configures the kernel: fragments, base config, merge, olddefconfig.
   A patched build whose series touched no Kconfig or Makefile keeps its
   base's configuration.  -1 is a build failure (why says what). */
static int
build_configure(struct build_ctx *x)
{
	const struct build_spec *spec = x->spec;
	const char *mk[] = { "make", "-C", x->linux_dir, "O=kbuild",
	    "olddefconfig", NULL };
	char **frag_copies;
	char *dotconfig;
	int timeout, rc = -1;

	mkdir(x->kconf, 0755);
	if (spec->base_commit && !x->kconfig_changed)
		return 0;
	frag_copies = xcalloc(spec->nfragments + 1, sizeof(char *));
	dotconfig = xasprintf("%s/.config", x->kbuild);
	/* the base config's limit, taken before the fragments are copied */
	timeout = build_ctx_timeout(x);
	if (build_copy_fragments(x, frag_copies) != 0)
		goto out;
	if (!spec->base_commit &&
	    build_base_config(x, dotconfig, timeout) != 0)
		goto out;
	if (spec->nfragments && !spec->base_commit &&
	    build_merge_fragments(x, dotconfig, frag_copies) != 0)
		goto out;
	if (build_step(x->opts, mk, x->res->dir, x->kbuild, x->linux_dir,
	    x->log, build_ctx_timeout(x), x->opts->cancel, &x->why) != 0)
		goto out;
	rc = 0;
out:
	for (size_t i = 0; i < spec->nfragments; i++)
		free(frag_copies[i]);
	free(frag_copies);
	free(dotconfig);
	return rc;
}

/* Runs make for the target with the monitor thread reporting progress and
   bounding the output.  -1 is a build failure (why says what). */
static int
build_make(struct build_ctx *x)
{
	const struct build_opts *opts = x->opts;
	const char *target = opts->target ? opts->target : "bzImage";
	char jobs[32];
	const char *mk[] = { "make", "-C", x->linux_dir, "O=kbuild", jobs,
	    target, NULL };
	struct build_monitor mon;
	struct stat st;
	int timeout, r;

	memset(&mon, 0, sizeof(mon));
	build_report(opts, BUILD_BUILDING, x->expected > 0 ? 0 : -1);
	snprintf(jobs, sizeof(jobs), "-j%d", opts->jobs > 0 ? opts->jobs : 1);
	timeout = build_ctx_timeout(x);
	mon.opts = opts;
	mon.log_path = x->log;
	mon.expected = x->expected;
	mon.out_dir = x->kbuild;
	mon.out_max = build_limit(opts->output_max, BUILD_DEFAULT_OUTPUT);
	pthread_create(&mon.thread, NULL, build_monitor_main, &mon);
	r = build_step(opts, mk, x->res->dir, x->kbuild, x->linux_dir, x->log,
	    timeout, &mon.kill, &x->why);
	mon.stop = 1;
	pthread_join(mon.thread, NULL);
	/* the monitor looks every two seconds: a burst between two looks
	   is caught here, before anything records the build's size */
	if (r == 0 && stat(x->log, &st) == 0 && st.st_size > BUILD_LOG_LIMIT) {
		mon.log_over = 1;
		r = -1;
	}
	build_log_trim(x->log);
	if (r != 0 && mon.over) {
		buf_reset(&x->why);
		buf_addf(&x->why, "build output over its limit (%lld MiB "
		    "of at most %lld MiB, [build] output_max)",
		    mon.out_size >> 20, mon.out_max >> 20);
	} else if (r != 0 && mon.log_over) {
		buf_reset(&x->why);
		buf_addf(&x->why, "build log over its limit of %lld MiB (the "
		    "build printed far more than a kernel build does)",
		    BUILD_LOG_LIMIT >> 20);
	}
	return r != 0 ? -1 : 0;
}

/* Copies the artifacts out of kbuild, hashes bzImage, records the step
   count and the size, and writes done last (what makes a cache hit).
   -1 is a build failure (why says what). */
static int
build_collect(struct build_ctx *x)
{
	static const char *const arts[][2] = {
		{ "arch/x86/boot/bzImage", "bzImage" },
		{ "System.map", "System.map" },
		{ ".config", "config" },
	};
	struct build_result *res = x->res;
	struct buf b = BUF_INIT(BUILD_LOG_MAX);
	char line[80], *s = NULL;
	int n, rc = -1;

	for (size_t i = 0; i < 3; i++) {
		char *to = xasprintf("%s/%s", res->dir, arts[i][1]);
		int r = build_copy_out(x->kbuild, arts[i][0], to,
		    BUILD_ARTIFACT_MAX, &x->why);

		free(to);
		if (r != 0)
			goto out;
	}
	s = xasprintf("%s/bzImage", res->dir);
	if (sha256_file(s, res->sha256) != 0) {
		buf_addf(&x->why, "cannot hash %s", s);
		goto out;
	}
	buf_read_file(&b, x->log);
	res->cc_lines = build_count_steps(b.data ? b.data : "", b.len);
	if (!x->spec->base_commit)
		build_write_int(x->steps_file, res->cc_lines);
	n = snprintf(line, sizeof(line), "%s\n", res->sha256);
	free(s);
	s = xasprintf("%s/size", res->dir);
	build_size_write(s, build_gc_du(res->dir, 1));
	/* Written last: its presence is what makes a cache hit. */
	if (buf_write_file(x->done, line, (size_t)n) != 0) {
		buf_addf(&x->why, "cannot write %s: %s", x->done,
		    strerror(errno));
		goto out;
	}
	rc = 0;
out:
	buf_release(&b);
	free(s);
	return rc;
}

/* A failed build: the error from why and the log's first error, the
   log's tail, and the failed state reported. */
static void
build_failed(struct build_ctx *x)
{
	struct build_result *res = x->res;
	struct buf b = BUF_INIT(BUILD_LOG_MAX), fe = BUF_INIT(1024),
	    tail = BUF_INIT(0);
	size_t keep = sizeof(res->log_tail) - 1;

	buf_read_file(&b, x->log);
	build_first_error(b.data ? b.data : "", b.len, &fe);
	build_log_tail(b.data ? b.data : "", b.len, 30, &tail);
	/* the end of the tail matters most */
	snprintf(res->log_tail, sizeof(res->log_tail), "%s",
	    tail.len > keep ? tail.data + tail.len - keep :
	    (tail.data ? tail.data : ""));
	snprintf(res->error, sizeof(res->error), "%s%s%s",
	    x->why.len ? x->why.data : "build failed", fe.len ? ": " : "",
	    fe.len ? fe.data : "");
	buf_release(&b);
	buf_release(&fe);
	buf_release(&tail);
	res->seconds = build_now() - x->start;
	build_report(x->opts, BUILD_FAILED, -1);
}

int
build_run(const struct build_spec *spec, const struct build_opts *opts,
    struct build_result *res)
{
	struct build_ctx x = {
		.spec = spec, .opts = opts, .res = res,
		.err = BUF_INIT(8192), .comp = BUF_INIT(4096),
		.changed = BUF_INIT(64u << 20), .why = BUF_INIT(8192),
		.start = build_now(), .lockfd = -1,
	};
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (build_check_spec(spec, opts, res) != 0)
		return -1;
	if (build_claim(&x) != 0)
		goto out;
	if (build_cache_hit(&x)) {
		rc = 0;
		goto out;
	}
	if (build_prepare_tree(&x) != 0 || build_prepare_kbuild(&x) != 0)
		goto out;
	if (build_configure(&x) != 0 || build_make(&x) != 0 ||
	    build_collect(&x) != 0) {
		build_failed(&x);
		goto out;
	}
	res->seconds = build_now() - x.start;
	build_report(opts, BUILD_DONE, 100);
	rc = 0;
out:
	if (x.log)
		build_log_trim(x.log);
	if (x.have_slot)
		build_slot_put();
	if (x.lockfd != -1)
		close(x.lockfd);	/* releases the flock */
	if (x.have_key)
		build_key_release(res->key);
	buf_release(&x.err);
	buf_release(&x.comp);
	buf_release(&x.changed);
	buf_release(&x.why);
	free(x.done);
	free(x.linux_dir);
	free(x.kbuild);
	free(x.log);
	free(x.src);
	free(x.kconf);
	free(x.steps_file);
	return rc;
}

/* ---- cache garbage collection ---------------------------------------- */

struct build_gc_entry {
	char	 key[65];
	char	 source[41];		/* export its tree links, or "" */
	time_t	 used;
	long long bytes;		/* its own bytes */
	int	 has_tree;
};

static __thread int build_gc_own;	/* count only files with one link */

static int
build_gc_du_one(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (!build_gc_own || flag != FTW_F || st->st_nlink == 1)
		build_du_sum += (long long)st->st_blocks * 512;
	return 0;
}

static long long
build_gc_du(const char *path, int own)
{
	build_du_sum = 0;
	build_gc_own = own;
	nftw(path, build_gc_du_one, 16, FTW_PHYS | FTW_MOUNT);
	return build_du_sum;
}

/* Files under path that have other links (a tree still links the export). */
static __thread int build_gc_linked;

static int
build_gc_link_one(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F && st->st_nlink > 1) {
		build_gc_linked = 1;
		return 1;		/* stop the walk */
	}
	return 0;
}

static int
build_gc_is_key(const char *name)
{
	return strlen(name) == 64 && strspn(name, "0123456789abcdef") == 64;
}

static int
build_gc_cmp(const void *a, const void *b)
{
	const struct build_gc_entry *x = a, *y = b;

	return x->used < y->used ? -1 : x->used > y->used;
}

/* Reads <cache>/b into entries (malloc'd); the bytes of src/ in *src. */
static int
build_gc_scan(const char *cache, struct build_gc_entry **out, size_t *n)
{
	char *bdir = xasprintf("%s/b", cache);
	DIR *d = opendir(bdir);
	struct dirent *de;
	size_t alloc = 0;

	*out = NULL;
	*n = 0;
	if (!d) {
		free(bdir);
		return errno == ENOENT ? 0 : error("build: cache %s: %s", cache,
		    strerror(errno));
	}
	while ((de = readdir(d))) {
		struct build_gc_entry *e;
		struct stat st;
		char *p;
		int done;

		if (!build_gc_is_key(de->d_name))
			continue;
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 32;
			*out = xrealloc(*out, alloc * sizeof(**out));
		}
		e = &(*out)[*n];
		memset(e, 0, sizeof(*e));
		memcpy(e->key, de->d_name, 65);
		p = xasprintf("%s/%s/done", bdir, e->key);
		if ((done = stat(p, &st) == 0))
			e->used = st.st_mtime;
		else {
			free(p);
			p = xasprintf("%s/%s", bdir, e->key);
			if (lstat(p, &st) == -1 || !S_ISDIR(st.st_mode)) {
				free(p);
				continue;
			}
			e->used = st.st_mtime;
		}
		free(p);
		p = xasprintf("%s/%s/linux", bdir, e->key);
		e->has_tree = build_exists(p);
		free(p);
		p = xasprintf("%s/%s/source", bdir, e->key);
		{
			struct buf b = BUF_INIT(64);

			if (buf_read_file(&b, p) == 0 && b.len == 40 &&
			    strspn(b.data, "0123456789abcdef") == 40)
				memcpy(e->source, b.data, 41);
			buf_release(&b);
		}
		free(p);
		p = xasprintf("%s/%s/size", bdir, e->key);
		if (!e->has_tree || (e->bytes = build_size_read(p)) < 0) {
			char *dir = xasprintf("%s/%s", bdir, e->key);

			e->bytes = build_gc_du(dir, 1);
			/* a done build made before the records: record it */
			if (e->has_tree && done)
				build_size_write(p, e->bytes);
			free(dir);
		}
		free(p);
		(*n)++;
	}
	closedir(d);
	free(bdir);
	qsort(*out, *n, sizeof(**out), build_gc_cmp);
	return 0;
}

static int
build_gc_kept(const char *key, const char *const *keep, size_t nkeep)
{
	for (size_t i = 0; i < nkeep; i++)
		if (keep[i] && !strcmp(keep[i], key))
			return 1;
	return 0;
}

/* Evicts one build (its flock held).  Returns the bytes it freed. */
static long long
build_gc_evict(const char *cache, struct build_gc_entry *e, int kept)
{
	static const char *const arts[] = { "bzImage", "System.map", "config",
	    "build.log" };
	char *dir = xasprintf("%s/b/%s", cache, e->key);
	long long before = e->bytes;
	DIR *d;
	struct dirent *de;

	if (!kept)
		build_rm_rf(dir);
	else if ((d = opendir(dir))) {
		while ((de = readdir(d))) {
			int art = 0;
			char *p;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			for (size_t i = 0; i < sizeof(arts) / sizeof(arts[0]); i++)
				if (!strcmp(de->d_name, arts[i]))
					art = 1;
			if (art)
				continue;
			p = xasprintf("%s/%s", dir, de->d_name);
			build_rm_rf(p);
			free(p);
		}
		closedir(d);
	}
	e->bytes = kept ? build_gc_du(dir, 1) : 0;
	e->has_tree = 0;
	free(dir);
	return before - e->bytes;
}

/* Removes the exports no remaining tree links; the bytes freed. */
static long long
build_gc_sources(const char *cache, const struct build_gc_entry *e, size_t n,
    int *removed)
{
	char *sdir = xasprintf("%s/src", cache);
	DIR *d = opendir(sdir);
	struct dirent *de;
	long long freed = 0;

	while (d && (de = readdir(d))) {
		int used = 0;
		char *p;

		if (strlen(de->d_name) != 40 ||
		    strspn(de->d_name, "0123456789abcdef") != 40)
			continue;
		for (size_t i = 0; i < n; i++)
			if (e[i].has_tree && (!e[i].source[0] ||
			    !strcmp(e[i].source, de->d_name)))
				used = 1;	/* unknown source: maybe */
		if (used)
			continue;
		p = xasprintf("%s/%s", sdir, de->d_name);
		/* a tree of another process (or of an old daemon) links it */
		build_gc_linked = 0;
		nftw(p, build_gc_link_one, 16, FTW_PHYS | FTW_MOUNT);
		if (!build_gc_linked) {
			char *sz = xasprintf("%s.size", p);
			long long b = build_size_read(sz);

			freed += b >= 0 ? b : build_gc_du(p, 0);
			build_rm_rf(p);
			unlink(sz);
			free(sz);
			(*removed)++;
		}
		free(p);
	}
	if (d)
		closedir(d);
	free(sdir);
	return freed;
}

/* Bytes of every export under src (from their size records). */
static long long
build_gc_src_bytes(const char *src)
{
	DIR *d = opendir(src);
	struct dirent *de;
	long long total = 0;

	while (d && (de = readdir(d))) {
		char *p, *sz;
		long long b;

		if (strlen(de->d_name) != 40 ||
		    strspn(de->d_name, "0123456789abcdef") != 40)
			continue;
		p = xasprintf("%s/%s", src, de->d_name);
		sz = xasprintf("%s.size", p);
		if ((b = build_size_read(sz)) < 0) {
			b = build_gc_du(p, 0);
			build_size_write(sz, b);
		}
		total += b;
		free(p);
		free(sz);
	}
	if (d)
		closedir(d);
	return total;
}

int
build_cache_gc(const char *cache, long long max, const char *const *keep,
    size_t nkeep, struct build_gc_stats *gs)
{
	struct build_gc_entry *e = NULL;
	char *src = xasprintf("%s/src", cache);
	long long total, srcb;
	size_t n = 0;
	int rc = -1;

	memset(gs, 0, sizeof(*gs));
	pthread_mutex_lock(&build_lock);
	while (build_gc_running || build_busy > 0)
		pthread_cond_wait(&build_cond, &build_lock);
	build_gc_running = 1;
	pthread_mutex_unlock(&build_lock);
	pthread_mutex_lock(&build_export_lock);

	if (build_gc_scan(cache, &e, &n) != 0)
		goto out;
	srcb = build_gc_src_bytes(src);
	total = srcb;
	for (size_t i = 0; i < n; i++)
		total += e[i].bytes;
	gs->before = total;
	for (size_t i = 0; i < n && total > max; i++) {
		int kept = build_gc_kept(e[i].key, keep, nkeep), fd;
		char *lock;

		if (kept && !e[i].has_tree)
			continue;		/* only its artifacts are left */
		lock = xasprintf("%s/b/%s.lock", cache, e[i].key);
		fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		free(lock);
		if (fd == -1 || flock(fd, LOCK_EX | LOCK_NB) == -1) {
			gs->busy++;
			if (fd != -1)
				close(fd);
			continue;
		}
		total -= build_gc_evict(cache, &e[i], kept);
		if (kept)
			gs->trees_evicted++;
		else
			gs->builds_removed++;
		close(fd);
		/* A source no tree links any more is freed as well. */
		total -= build_gc_sources(cache, e, n, &gs->sources_removed);
	}
	gs->after = total;
	rc = 0;
out:
	pthread_mutex_unlock(&build_export_lock);
	pthread_mutex_lock(&build_lock);
	build_gc_running = 0;
	pthread_cond_broadcast(&build_cond);
	pthread_mutex_unlock(&build_lock);
	free(e);
	free(src);
	return rc;
}
