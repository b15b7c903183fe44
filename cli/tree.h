/*
 * cli/tree: `kperfci tree import` and `kperfci build`, the commands that
 * work on trees and kernel builds directly (no daemon needed), used by the
 * README's demo, tests/kernel-lib.sh and the build benchmark.
 *
 * Both take argv with argv[0] the command word ("import", "build").
 */
#ifndef KPERFCI_CLI_TREE_H
#define KPERFCI_CLI_TREE_H

/* kperfci tree import --tarball FILE --name NAME [--dir DIR] */
int	cmd_tree_import(int argc, char **argv);
/* kperfci tree apply --tree REPO --mbox FILE [--base REV] [--branch B]
   [--ref REF]: picks the series in the mbox, chooses its base like the
   daemon, applies it; prints "<patched commit> <base commit>". */
int	cmd_tree_apply(int argc, char **argv);
/* kperfci tree SUBCOMMAND ...: dispatches to cmd_tree_import */
int	cmd_tree(int argc, char **argv);
/* kperfci build --tree REPO --commit REV [--base REV] --cache DIR
   [--config TARGET|FILE] [--fragment FILE]... [--jobs N] [--timeout S] */
int	cmd_build(int argc, char **argv);

#endif
