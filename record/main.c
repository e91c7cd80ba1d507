/* SPDX-License-Identifier: MIT */
/* main.c - placeholder until pp-record lands. */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "pp-record: not built yet\n");
	return 2;
}
