/* SPDX-License-Identifier: MIT */
/*
 * pp-main.c - placeholder for the `pp` front end (live mode lands later).
 */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "pp: live mode is not built yet; use pp-record and pp-analyze\n");
	return 2;
}
