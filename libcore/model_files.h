/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The files of a recording (EV_FILE records, format 3.1): the request
 * model (model.c) hands each record here and asks which file a
 * completion's file id names.  A file is named once; what a file is
 * (type, anonymous, deleted) and how its path reads are decided here, the
 * rules in uring-convert(1), FILES.  Memory grows with the distinct files
 * of the recording.
 */
#ifndef RINGSIDE_MODEL_FILES_H
#define RINGSIDE_MODEL_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "output.h"

struct model_files;

struct model_files *model_files_new(void);
void model_files_free(struct model_files *fs);
/*
 * An EV_FILE record: the file it describes from now on under its id, the
 * one already known when the identity is the same (the recorder names a
 * file again after forgetting it).  NULL only when out of memory.
 */
const struct model_file *model_files_record(struct model_files *fs, const struct ev_file *e);
/* The file id currently names, NULL when no record named it. */
const struct model_file *model_files_get(struct model_files *fs, uint64_t file_id);

/*
 * The path field of an EV_FILE record as a path: its ncomp names (leaf
 * first, NUL-terminated) joined root first, "/" when none; ".../" first
 * when flags has EV_PATH_TRUNCATED, no leading "/" with
 * EV_PATH_DETACHED.  Always NUL-terminates buf; returns its length.
 */
size_t file_path_join(char *buf, size_t len, const char *raw, size_t rawlen,
		      unsigned ncomp, uint16_t flags);

#endif
