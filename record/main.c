/* SPDX-License-Identifier: MIT */
/*
 * main.c - pp-record's entry point: program name, log level, then cmd_record().
 */
#include "common/log.h"
#include "record.h"

int main(int argc, char **argv)
{
	pp_progname = "pp-record";
	return cmd_record(argc, (const char **)argv);
}
