// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "log_format.h"
#include "losses.h"
#include "uring_record.h"

int losses_init(struct losses *l, unsigned ncpus)
{
	memset(l, 0, sizeof(*l));
	l->ncpus = ncpus;
	l->count = calloc((size_t)LOSS_KINDS * ncpus * EV_TYPE_LIMIT, sizeof(*l->count));
	return l->count ? 0 : -ENOMEM;
}

void losses_free(struct losses *l)
{
	free(l->count);
	l->count = NULL;
}

int losses_read(struct losses *l, int loss_map_fd, const struct user_losses *ul,
		const struct user_losses *ul2)
{
	uint64_t *values = calloc(l->ncpus, sizeof(*values));
	int err = 0;

	if (!values)
		return -ENOMEM;
	memset(l->total, 0, sizeof(l->total));
	for (unsigned kind = 1; kind < UR_LOSS_KINDS_BPF; kind++) {
		for (unsigned type = 0; type < EV_TYPE_LIMIT; type++) {
			__u32 slot = kind * EV_TYPE_LIMIT + type;

			/* PERCPU_ARRAY: one u64 per possible CPU */
			if (bpf_map_lookup_elem(loss_map_fd, &slot, values)) {
				err = -errno;
				continue;
			}
			for (unsigned c = 0; c < l->ncpus; c++) {
				*losses_at(l, kind, c, type) = values[c];
				l->total[kind] += values[c];
			}
		}
	}
	for (unsigned c = 0; c < l->ncpus; c++) {
		for (unsigned type = 0; type < EV_TYPE_LIMIT; type++) {
			uint64_t v = c < ul->ncpus ? user_loss(ul, c, type) : 0;

			if (ul2 && c < ul2->ncpus)
				v += user_loss(ul2, c, type);
			*losses_at(l, EV_LOSS_USER_QUEUE, c, type) = v;
			l->total[EV_LOSS_USER_QUEUE] += v;
		}
	}
	free(values);
	return err;
}

struct frame *losses_frame(const struct losses *l)
{
	size_t rows = 0;
	struct frame *f;

	for (unsigned kind = 1; kind < LOSS_KINDS; kind++)
		for (unsigned c = 0; c < l->ncpus; c++) {
			rows++;
			for (unsigned t = 1; t < EV_TYPE_LIMIT; t++)
				rows += *losses_at(l, kind, c, t) != 0;
		}
	f = frame_new(LOG_FRAME_LOSS, LOG_STREAM_GLOBAL, rows * sizeof(struct log_loss_row));
	if (!f)
		return NULL;
	for (unsigned c = 0; c < l->ncpus; c++) {
		for (unsigned kind = 1; kind < LOSS_KINDS; kind++) {
			struct log_loss_row row = { .cpu = c, .kind = (uint16_t)kind };

			for (unsigned t = 0; t < EV_TYPE_LIMIT; t++)
				row.count += *losses_at(l, kind, c, t);
			frame_add_bytes(f, &row, sizeof(row), 1);
			for (unsigned t = 1; t < EV_TYPE_LIMIT; t++) {
				uint64_t v = *losses_at(l, kind, c, t);

				if (!v)
					continue;
				row.event_type = (uint16_t)t;
				row.count = v;
				frame_add_bytes(f, &row, sizeof(row), 1);
			}
		}
	}
	return f;
}

uint64_t losses_pending_at_stop(int cpu_state_fd, unsigned ncpus,
				void (*add)(void *arg, unsigned cpu, const struct ev_lost *rec),
				void *arg)
{
	struct ur_cpu_state *st = calloc(ncpus, sizeof(*st));
	__u32 zero = 0;
	uint64_t total = 0;

	if (!st)
		return 0;
	if (bpf_map_lookup_elem(cpu_state_fd, &zero, st)) {
		free(st);
		return 0;
	}
	for (unsigned c = 0; c < ncpus; c++) {
		uint64_t n = st[c].pending;

		while (n) {
			struct ev_lost rec = {
				.ts = st[c].first_ts,
				.type = EV_LOST,
				.flags = EVF_LOSS_AT_STOP,
				.last_ts = st[c].last_ts,
			};

			rec.count = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
			n -= rec.count;
			total += rec.count;
			add(arg, c, &rec);
		}
	}
	free(st);
	return total;
}
