// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "status.h"

#define STATUS_PERIOD_NS 500000000ull

void fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	unsigned u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
}

static void fmt_rate(char *buf, size_t len, double per_s)
{
	if (per_s >= 1e6)
		snprintf(buf, len, "%.2fM", per_s / 1e6);
	else if (per_s >= 1e3)
		snprintf(buf, len, "%.1fk", per_s / 1e3);
	else
		snprintf(buf, len, "%.0f", per_s);
}

void status_init(struct status *s, bool enabled, uint64_t now_ns)
{
	memset(s, 0, sizeof(*s));
	s->enabled = enabled;
	s->start_ns = s->last_ns = now_ns;
	s->next_ns = now_ns + STATUS_PERIOD_NS;
}

void status_update(struct status *s, uint64_t now_ns, uint64_t events, uint64_t lost,
		   uint64_t bytes)
{
	char rate[32], size[32];
	double dt;

	if (!s->enabled || now_ns < s->next_ns)
		return;
	dt = (double)(now_ns - s->last_ns) / 1e9;
	fmt_rate(rate, sizeof(rate), dt > 0 ? (double)(events - s->last_events) / dt : 0);
	fmt_bytes(size, sizeof(size), bytes);
	fprintf(stderr, "\r\033[K%6.1fs  %s events/s  %" PRIu64 " events  lost %" PRIu64
		"%s  %s written", (double)(now_ns - s->start_ns) / 1e9, rate, events, lost,
		lost ? " (!)" : "", size);
	fflush(stderr);
	msg_status_line = true;
	s->last_ns = now_ns;
	s->last_events = events;
	s->next_ns = now_ns + STATUS_PERIOD_NS;
}

void status_clear(struct status *s)
{
	if (s->enabled && msg_status_line) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		msg_status_line = false;
	}
}

/* "CPU 0: 12 (ring buffer full), CPU 3: 5 (writer queue full)" */
static void loss_detail(const struct losses *l, char *buf, size_t len)
{
	static const char *const why[] = {
		[EV_LOSS_RING_FULL] = "ring buffer full",
		[EV_LOSS_NO_RING] = "CPU without a ring buffer",
		[EV_LOSS_USER_QUEUE] = "writer queue full",
	};
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned c = 0; c < l->ncpus; c++) {
		for (unsigned k = 1; k < LOSS_KINDS; k++) {
			uint64_t n = 0;

			for (unsigned t = 0; t < EV_TYPE_LIMIT; t++)
				n += *losses_at(l, k, c, t);
			if (!n || off >= len)
				continue;
			off += (size_t)snprintf(buf + off, len - off, "%sCPU %u: %" PRIu64 " (%s)",
						off ? ", " : "", c, n, why[k]);
		}
	}
}

void status_summary(const struct summary *sum)
{
	uint64_t lost = sum->kernel_lost + sum->user_lost;
	uint64_t generated = sum->events + lost + sum->discarded;
	double secs = (double)sum->duration_ns / 1e9;
	char size[32], raw[32], detail[1024], ring[32];

	if (!sum->quiet) {
		fmt_bytes(size, sizeof(size), sum->bytes);
		fmt_bytes(raw, sizeof(raw), sum->raw_bytes);
		msg_info("recorded %" PRIu64 " events in %.2f s (%.0f/s) into %s", sum->events,
			 secs, secs > 0 ? (double)sum->events / secs : 0, sum->path);
		msg_info("wrote %s (%s before compression, %.1fx smaller)", size, raw,
			 sum->bytes ? (double)sum->raw_bytes / (double)sum->bytes : 0.0);
	}
	if (!lost && !sum->discarded) {
		if (!sum->quiet)
			msg_info("lost 0 events");
		return;
	}
	if (lost) {
		loss_detail(sum->losses, detail, sizeof(detail));
		msg_loud("*** LOST %" PRIu64 " of %" PRIu64 " events (%.3f%%): %s", lost, generated,
			 100.0 * (double)lost / (double)generated, detail);
		msg_loud("*** the log marks where they were lost; uring-convert reports them");
	}
	if (sum->losses->total[EV_LOSS_NO_RING])
		msg_loud("*** hint: CPUs that came online after the start have no ring buffer; "
			 "restart the recording to cover them");
	if (sum->losses->total[EV_LOSS_RING_FULL]) {
		fmt_bytes(ring, sizeof(ring), sum->ring_size);
		msg_loud("*** hint: a larger --ring-size (now %s per CPU) or a shorter "
			 "--drain-interval (now %.1f ms) absorbs longer bursts", ring,
			 (double)sum->drain_ns / 1e6);
	}
	if (sum->user_lost)
		msg_loud("*** hint: the disk or compression did not keep up; try "
			 "--zstd-level=-1, a larger --queue-size or a faster disk");
	if (sum->discarded)
		msg_loud("*** %" PRIu64 " events recorded after the write error are not in the log",
			 sum->discarded);
}
