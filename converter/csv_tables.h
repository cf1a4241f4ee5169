/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The tables of --format=csv (output_csv.c), each written to DIR/NAME.csv:
 * their names for --tables (options.c), their files (convert.c, tests).
 */
#ifndef RINGSIDE_CSV_TABLES_H
#define RINGSIDE_CSV_TABLES_H

#include <stddef.h>

enum csv_table_id {
	CSV_REQUESTS, CSV_SYSCALLS, CSV_EVENTS, CSV_LOSSES, CSV_LOSS_COUNTERS,
	CSV_TASKS, CSV_RINGS, CSV_COUNTERS, CSV_FILES, CSV_NTABLES
};

#define CSV_ALL_TABLES ((1u << CSV_NTABLES) - 1)

extern const char *const csv_table_names[CSV_NTABLES];

/* DIR/NAME.csv, the file of table t (malloc'd; NULL: out of memory). */
char *csv_table_path(const char *dir, enum csv_table_id t);

/* The tables named in list ("requests,syscalls"), or'ed into *mask as
 * 1u << enum csv_table_id; -1 at the first unknown or empty name, with
 * *bad_len bytes of it at *bad. */
int csv_tables_parse(const char *list, unsigned *mask, const char **bad, size_t *bad_len);

#endif
