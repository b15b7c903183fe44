/* placeholder main, replaced by its module */
#include <stdio.h>
int
main(void)
{
	fprintf(stderr, "not yet\n");
	return 1;
}
