/*
 * config_default: the text of etc/kperfci.conf, linked into the binary at
 * build time so kperfcid runs with no file at all (`make run`).  The
 * Makefile makes this object depend on etc/kperfci.conf.
 */
#include "daemon/config.h"

#ifndef KPERFCI_SRCDIR
#define KPERFCI_SRCDIR "."
#endif

__asm__(
"	.section .rodata\n"
"	.global config_default_text\n"
"	.type config_default_text, @object\n"
"config_default_text:\n"
"	.incbin \"" KPERFCI_SRCDIR "/etc/kperfci.conf\"\n"
"	.byte 0\n"
"	.size config_default_text, . - config_default_text\n"
"	.previous\n");
