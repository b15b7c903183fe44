/*
 * run: the one way to start a subprocess (make, git, qemu, kexec, perf,
 * bwrap), in the spirit of git's child_process.
 *
 * argv is an array, never a shell string.  The child gets its own process
 * group; when timeout_sec passes, the whole group gets SIGTERM, then SIGKILL
 * two seconds later.  Output goes to log_path (stdout and stderr, appended)
 * or, with run_capture, into a bounded buffer.
 */
#ifndef KPERFCI_RUN_H
#define KPERFCI_RUN_H

#include <sys/types.h>

#include "lib/buf.h"

struct run {
	const char *const *argv;	/* borrowed, NULL-terminated */
	const char *const *env;		/* borrowed "K=V" list added to the
					   environment, or NULL */
	int	 clear_env;		/* start from an empty environment */
	const char *dir;		/* working directory, or NULL */
	const char *log_path;		/* stdout+stderr appended here */
	const char *stdin_path;		/* stdin from here, else /dev/null */
	int	 timeout_sec;		/* 0: none */
	volatile int *cancel;		/* if set and non-zero: kill and stop */

	/* results */
	pid_t	 pid;
	int	 exit_code;		/* -1 when killed by a signal */
	int	 term_sig;
	int	 timed_out;
	int	 cancelled;
};

/*
 * Runs the command to completion.  Returns 0 when it exited with status 0,
 * -1 otherwise (details in the struct; errno set if it could not start).
 */
int	run_cmd(struct run *);
/* Same, with stdout captured into out (stderr to log_path or /dev/null). */
int	run_capture(struct run *, struct buf *out);
/* One line describing how it ended: "exit 2", "killed by signal 9",
   "timed out after 60 s".  Static storage per thread. */
const char *run_status(const struct run *);

#endif
