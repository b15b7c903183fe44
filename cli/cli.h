/*
 * cli: the subcommands of the kperfci client.  Each is
 * `int cmd_NAME(int argc, char **argv)` with argv[0] the last word of its
 * name, returning the exit status; each is one line of the dispatch table
 * in kperfci.c.
 */
#ifndef KPERFCI_CLI_H
#define KPERFCI_CLI_H

int	cmd_submit(int argc, char **argv);
int	cmd_status(int argc, char **argv);
int	cmd_cancel(int argc, char **argv);	/* cli/manage.c */
int	cmd_rerun(int argc, char **argv);

#endif
