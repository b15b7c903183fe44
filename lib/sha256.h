/*
 * sha256: digests for kernel artifacts and agent tokens.  A small
 * self-contained implementation (FIPS 180-4) so that the agent, the daemon
 * and the CLI agree without pulling a crypto library into every binary.
 */
#ifndef KPERFCI_SHA256_H
#define KPERFCI_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char block[64];
	size_t	 fill;
};

void	sha256_init(struct sha256 *);
void	sha256_update(struct sha256 *, const void *, size_t);
void	sha256_final(struct sha256 *, unsigned char out[32]);
/* out: 64 lowercase hex digits and a NUL. */
void	sha256_hex(const void *, size_t, char out[65]);
int	sha256_file(const char *path, char out[65]);

#endif
