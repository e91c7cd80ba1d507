/* SPDX-License-Identifier: MIT */
/*
 * pp-fleet.h - `pp fleet`: one analyzer over many captures on a Dask cluster.
 * Not here: the work itself (analyze/python/fleet.py, the pp.fleet module).
 */
#ifndef PP_ANALYZE_PP_FLEET_H
#define PP_ANALYZE_PP_FLEET_H

/**
 * pp_fleet_main() - `pp fleet ARGS...`: its help here, the rest in python3
 * @argc, @argv: the words after "fleet"
 * @bindir: where pp is (its pp-analyze is the fleet's)
 * Return: an exit status (help, or python3 could not be run); else it does not return.
 */
int pp_fleet_main(int argc, const char **argv, const char *bindir);

#endif
