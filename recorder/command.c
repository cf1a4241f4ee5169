// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command.h"

#define PRIV_ERR_BASE 100000

static int parse_id(const char *s, unsigned long *out)
{
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || *end || *out > INT_MAX ? -1 : 0;
}

/* In the child: become the user who ran sudo.  0 or -errno. */
static int drop_privileges(void)
{
	unsigned long uid, gid;
	struct passwd *pw;

	if (parse_id(getenv("SUDO_UID"), &uid) || parse_id(getenv("SUDO_GID"), &gid))
		return -EINVAL;
	pw = getpwuid((uid_t)uid);
	if (pw ? initgroups(pw->pw_name, (gid_t)gid) : setgroups(0, NULL))
		return -errno;
	if (setgid((gid_t)gid) || setuid((uid_t)uid))
		return -errno;
	/* Make sure there is no way back. */
	if (uid != 0 && setuid(0) == 0)
		return -EPERM;
	return 0;
}

static void __attribute__((noreturn)) child(char *const argv[], bool as_root, int go_rd,
					    int err_wr, pid_t parent)
{
	sigset_t all;
	char go;
	int err = 0;
	ssize_t n;

	/* The recorder's signal setup is not the command's business. */
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGXFSZ, SIG_DFL);
	/* Do not run the command at all if the recorder dies before release. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	/* Privilege errors are told apart from exec errors by an offset. */
	if (!as_root && geteuid() == 0 && getenv("SUDO_UID")) {
		err = drop_privileges();
		if (err)
			err -= PRIV_ERR_BASE;
	}
	do {
		n = read(go_rd, &go, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);	/* the recorder gave up */
	if (!err) {
		/* Outliving the recorder is the command's business. */
		prctl(PR_SET_PDEATHSIG, 0);
		execvp(argv[0], argv);
		err = -errno;
	}
	while (write(err_wr, &err, sizeof(err)) < 0 && errno == EINTR)
		;
	_exit(127);
}

int command_spawn(struct command *c, char *const argv[], bool as_root, char *err,
		  size_t errlen)
{
	int go[2], ex[2];
	pid_t parent = getpid();

	memset(c, 0, sizeof(*c));
	c->go_fd = c->err_fd = -1;
	if (!as_root && geteuid() == 0 && getenv("SUDO_UID"))
		snprintf(c->user, sizeof(c->user), "uid %s", getenv("SUDO_UID"));
	else
		snprintf(c->user, sizeof(c->user), "uid %d", (int)geteuid());
	if (pipe2(go, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(ex, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return -1;
	}
	if (c->pid == 0) {
		close(go[1]);
		close(ex[0]);
		child(argv, as_root, go[0], ex[1], parent);
	}
	close(go[0]);
	close(ex[1]);
	c->go_fd = go[1];
	c->err_fd = ex[0];
	return 0;
}

int command_release(struct command *c, char *err, size_t errlen)
{
	char go = 'g';
	int child_err = 0;
	ssize_t n;

	if (write(c->go_fd, &go, 1) != 1) {
		snprintf(err, errlen, "cannot start the command: %s", strerror(errno));
		return -EIO;
	}
	close(c->go_fd);
	c->go_fd = -1;
	/* EOF (exec closed the pipe) means it runs; an int means it did not. */
	do {
		n = read(c->err_fd, &child_err, sizeof(child_err));
	} while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == (ssize_t)sizeof(child_err) && child_err) {
		if (child_err == -PRIV_ERR_BASE - EINVAL) {
			snprintf(err, errlen, "SUDO_UID/SUDO_GID are not valid ids; "
				 "use --run-as-root to run the command as root");
			return -EINVAL;
		}
		if (child_err < -PRIV_ERR_BASE) {
			snprintf(err, errlen, "cannot become %s: %s", c->user,
				 strerror(-(child_err + PRIV_ERR_BASE)));
			return child_err + PRIV_ERR_BASE;
		}
		snprintf(err, errlen, "%s", strerror(-child_err));
		return child_err;
	}
	return 0;
}

void command_abort(struct command *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);	/* the child sees EOF and exits */
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (c->pid > 0 && !c->exited) {
		while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
			;
		c->exited = true;
	}
}

bool command_poll(struct command *c)
{
	pid_t r;

	if (c->exited || c->pid <= 0)
		return c->exited;
	r = waitpid(c->pid, &c->status, WNOHANG);
	if (r == c->pid)
		c->exited = true;
	return c->exited;
}

int command_exit_code(const struct command *c)
{
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return 1;
}
