/*
 * run: subprocesses with argv arrays, process groups and timeouts.
 *
 * The parent polls the child with waitpid(WNOHANG) at 20 ms intervals while
 * it reads captured output; this keeps the code free of SIGCHLD handlers,
 * which would interfere with libmicrohttpd and libcurl threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/run.h"

extern char **environ;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
child_exec(struct run *r, int outfd)
{
	int fd;

	setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	fd = open(r->stdin_path ? r->stdin_path : "/dev/null", O_RDONLY);
	if (fd == -1 || dup2(fd, 0) == -1)
		_exit(126);
	if (r->log_path) {
		fd = open(r->log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd == -1)
			_exit(126);
	} else
		fd = open("/dev/null", O_WRONLY);
	if (outfd != -1) {
		if (dup2(outfd, 1) == -1)
			_exit(126);
	} else if (dup2(fd, 1) == -1)
		_exit(126);
	if (dup2(fd, 2) == -1)
		_exit(126);
	if (r->dir && chdir(r->dir) == -1) {
		dprintf(2, "run: chdir %s: %s\n", r->dir, strerror(errno));
		_exit(126);
	}
	if (r->clear_env)
		clearenv();
	if (r->env)
		for (const char *const *e = r->env; *e; e++)
			putenv((char *)*e);
	execvp(r->argv[0], (char *const *)r->argv);
	dprintf(2, "run: exec %s: %s\n", r->argv[0], strerror(errno));
	_exit(127);
}

static int
run_internal(struct run *r, struct buf *out)
{
	int pipefd[2] = { -1, -1 }, status = 0, killed = 0, done = 0;
	double start = now(), kill_at = 0;
	pid_t pid;

	r->exit_code = -1;
	r->term_sig = 0;
	r->timed_out = 0;
	r->cancelled = 0;
	if (out && pipe2(pipefd, O_CLOEXEC) == -1)
		return -1;
	fflush(NULL);
	if ((pid = fork()) == -1) {
		if (out) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return -1;
	}
	if (pid == 0) {
		if (out)
			close(pipefd[0]);
		child_exec(r, out ? pipefd[1] : -1);
	}
	r->pid = pid;
	setpgid(pid, pid);
	if (out)
		close(pipefd[1]);

	while (!done) {
		if (out && pipefd[0] != -1) {
			struct pollfd p = { pipefd[0], POLLIN, 0 };
			char tmp[16384];
			ssize_t n;

			if (poll(&p, 1, 20) > 0) {
				n = read(pipefd[0], tmp, sizeof(tmp));
				if (n > 0) {
					/* Keep reading past overflow so the
					   child never blocks on a full pipe. */
					if (!out->overflow)
						buf_add(out, tmp, (size_t)n);
				} else if (n == 0 || errno != EINTR) {
					close(pipefd[0]);
					pipefd[0] = -1;
				}
			}
		} else
			usleep(20000);

		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid && (!out || pipefd[0] == -1))
			done = 1;
		else if (w == pid) {
			/* Child is gone; drain what is left in the pipe. */
			char tmp[16384];
			ssize_t n;

			fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
			while ((n = read(pipefd[0], tmp, sizeof(tmp))) > 0)
				if (!out->overflow)
					buf_add(out, tmp, (size_t)n);
			close(pipefd[0]);
			pipefd[0] = -1;
			done = 1;
		}
		if (done)
			break;

		int want_kill = 0;
		if (r->timeout_sec > 0 && now() - start > r->timeout_sec) {
			r->timed_out = 1;
			want_kill = 1;
		}
		if (r->cancel && *r->cancel) {
			r->cancelled = 1;
			want_kill = 1;
		}
		if (want_kill && !killed) {
			kill(-pid, SIGTERM);
			killed = 1;
			kill_at = now() + 2;
		} else if (killed == 1 && now() > kill_at) {
			kill(-pid, SIGKILL);
			killed = 2;
		}
	}
	if (killed)
		kill(-pid, SIGKILL);	/* stragglers in the group */
	if (WIFEXITED(status))
		r->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		r->term_sig = WTERMSIG(status);
	return (r->exit_code == 0 && !r->timed_out && !r->cancelled) ? 0 : -1;
}

int
run_cmd(struct run *r)
{
	return run_internal(r, NULL);
}

int
run_capture(struct run *r, struct buf *out)
{
	return run_internal(r, out);
}

const char *
run_status(const struct run *r)
{
	static __thread char s[128];

	if (r->timed_out)
		snprintf(s, sizeof(s), "timed out after %d s", r->timeout_sec);
	else if (r->cancelled)
		snprintf(s, sizeof(s), "cancelled");
	else if (r->term_sig)
		snprintf(s, sizeof(s), "killed by signal %d", r->term_sig);
	else
		snprintf(s, sizeof(s), "exit %d", r->exit_code);
	return s;
}
