/* SPDX-License-Identifier: MIT */
/* main.c - placeholder until pp-analyze lands. */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "pp-analyze: not built yet\n");
	return 2;
}
