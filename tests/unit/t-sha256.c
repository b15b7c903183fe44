/* Unit tests for lib/sha256.c against FIPS 180-4 / NIST test vectors. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "lib/sha256.h"
#include "tests/unit/tap.h"

static const struct {
	const char *in;
	const char *want;
} vectors[] = {
	{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
};

int
main(void)
{
	char out[65], path[] = "/tmp/t-sha256.XXXXXX";
	char *million = malloc(1000000);
	FILE *f;
	int fd;

	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		sha256_hex(vectors[i].in, strlen(vectors[i].in), out);
		is_str(out, vectors[i].want, "vector %zu", i);
	}
	memset(million, 'a', 1000000);
	sha256_hex(million, 1000000, out);
	is_str(out, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	    "one million 'a'");

	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fwrite(million, 1, 1000000, f);
	fclose(f);
	ok(sha256_file(path, out) == 0, "sha256_file reads the file");
	is_str(out, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	    "sha256_file digest");
	unlink(path);
	ok(sha256_file("/nonexistent", out) == -1, "missing file fails");
	free(million);
	return tap_done();
}
