/* SPDX-License-Identifier: MIT */
/*
 * replay-main.c - a fuzz target without libFuzzer: each file argument is one input.
 *
 * Linked with a target's LLVMFuzzerTestOneInput() (make builds
 * $(O)/tests/fuzz-replay-TARGET with any compiler and sanitizer), so the
 * inputs of tests/fuzz/regress/ run in the ordinary and the ASan test
 * suites (t209), and a crash can be debugged without the fuzzer.  With
 * FZ_SAVE=FILE the capture fuzz-pipeline and fuzz-python build from the
 * last input is also written to FILE (capfuzz.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		FILE *fp = fopen(argv[i], "rb");
		uint8_t *data = NULL;
		size_t len = 0, cap = 0, n;

		if (!fp) {
			perror(argv[i]);
			return 1;
		}
		do {
			if (len == cap && !(data = realloc(data, cap = cap * 2 + 65536))) {
				perror("realloc");
				return 1;
			}
			n = fread(data + len, 1, cap - len, fp);
			len += n;
		} while (n);
		fclose(fp);
		LLVMFuzzerTestOneInput(data, len);
		free(data);
		fprintf(stderr, "ok %s\n", argv[i]);
	}
	return 0;
}
