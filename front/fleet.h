/* SPDX-License-Identifier: MIT */
/*
 * fleet.h - `pp fleet`: one analyzer over many captures on a Dask cluster.
 * Not here: the work itself (analyze/python/fleet.py, the pp.fleet module).
 */
#ifndef PP_FRONT_FLEET_H
#define PP_FRONT_FLEET_H

/**
 * front_fleet_main() - `pp fleet ARGS...`: its help here, the rest in python3
 * @argc, @argv: the words after "fleet"
 * @bindir: where pp is (its pp-analyze is the fleet's)
 * Return: an exit status (help, or python3 could not be run); else it does not return.
 */
int front_fleet_main(int argc, const char **argv, const char *bindir);

#endif
