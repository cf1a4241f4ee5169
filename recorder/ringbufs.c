// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "event_layout.h"
#include "log_format.h"
#include "msg.h"
#include "ringbufs.h"
#include "stage.h"
#include "uring_record.h"

/* Publish the consumer position after this many bytes within one drain. */
#define RELEASE_EVERY (256u << 10)

int ringbufs_create(struct ringbufs *r, unsigned ncpus, const bool *online,
		    uint64_t ring_size, size_t frame_size, struct frame_queue *q,
		    struct pointer_scrub *scrub)
{
	size_t ntypes;
	const struct ev_type_info *types = ev_types(&ntypes);
	int err;

	memset(r, 0, sizeof(*r));
	r->epfd = -1;
	r->flush_prog_fd = r->cpu_state_fd = -1;
	r->ncpus = ncpus;
	r->page_size = (size_t)sysconf(_SC_PAGESIZE);
	r->ring_size = ring_size;
	r->frame_size = frame_size;
	r->q = q;
	r->scrub = scrub;
	for (size_t i = 0; i < ntypes; i++)
		r->type_size[types[i].type] = types[i].size;
	r->cpu = calloc(ncpus, sizeof(*r->cpu));
	if (!r->cpu || user_losses_init(&r->ul, ncpus))
		return -ENOMEM;
	for (unsigned c = 0; c < ncpus; c++)
		r->cpu[c].fd = -1;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0)
		return -errno;
	for (unsigned c = 0; c < ncpus; c++) {
		struct rb_cpu *rc = &r->cpu[c];
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = c };
		char name[32];

		if (!online[c])
			continue;
		snprintf(name, sizeof(name), "ur_rb%u", c % 100000000u);
		rc->fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, name, 0, 0, (__u32)ring_size, NULL);
		if (rc->fd < 0) {
			err = -errno;
			msg_error("cannot create a %llu-byte BPF ring buffer for CPU %u: %s",
				  (unsigned long long)ring_size, c, strerror(-err));
			return err;
		}
		rc->cons_map = mmap(NULL, r->page_size, PROT_READ | PROT_WRITE, MAP_SHARED,
				    rc->fd, 0);
		if (rc->cons_map == MAP_FAILED) {
			rc->cons_map = NULL;
			err = -errno;
			msg_error("cannot map the ring buffer of CPU %u: %s", c, strerror(-err));
			return err;
		}
		/* The data pages are mapped twice in a row: records never wrap. */
		rc->prod_map = mmap(NULL, r->page_size + 2 * ring_size, PROT_READ, MAP_SHARED,
				    rc->fd, (off_t)r->page_size);
		if (rc->prod_map == MAP_FAILED) {
			rc->prod_map = NULL;
			err = -errno;
			msg_error("cannot map the ring buffer of CPU %u: %s", c, strerror(-err));
			return err;
		}
		rc->consumer_pos = rc->cons_map;
		rc->producer_pos = rc->prod_map;
		rc->data = (const unsigned char *)rc->prod_map + r->page_size;
		rc->mask = ring_size - 1;
		if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, rc->fd, &ev))
			return -errno;
	}
	return 0;
}

int ringbufs_template_fd(const struct ringbufs *r)
{
	for (unsigned c = 0; c < r->ncpus; c++)
		if (r->cpu[c].fd >= 0)
			return r->cpu[c].fd;
	return -1;
}

int ringbufs_install(struct ringbufs *r, int outer_fd)
{
	for (unsigned c = 0; c < r->ncpus; c++) {
		int err;

		if (r->cpu[c].fd < 0)
			continue;
		if (bpf_map_update_elem(outer_fd, &c, &r->cpu[c].fd, BPF_ANY)) {
			err = -errno;
			msg_error("cannot install the ring buffer of CPU %u: %s", c, strerror(-err));
			return err;
		}
	}
	return 0;
}

void ringbufs_destroy(struct ringbufs *r)
{
	if (!r->cpu)
		return;
	for (unsigned c = 0; c < r->ncpus; c++) {
		struct rb_cpu *rc = &r->cpu[c];

		if (rc->prod_map)
			munmap(rc->prod_map, r->page_size + 2 * r->ring_size);
		if (rc->cons_map)
			munmap(rc->cons_map, r->page_size);
		if (rc->fd >= 0)
			close(rc->fd);
		frame_free(rc->stage);
	}
	free(r->cpu);
	r->cpu = NULL;
	user_losses_free(&r->ul);
	if (r->epfd >= 0)
		close(r->epfd);
	r->epfd = -1;
}

/* Watched fds carry tags above any CPU number. */
#define TAG_BASE 0x80000000u

int ringbufs_watch(struct ringbufs *r, int fd, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = TAG_BASE | tag };

	return epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

unsigned ringbufs_wait(struct ringbufs *r, int timeout_ms)
{
	struct epoll_event evs[16];
	unsigned tags = 0;
	int n = epoll_wait(r->epfd, evs, 16, timeout_ms);

	for (int i = 0; i < n; i++)
		if (evs[i].data.u32 & TAG_BASE)
			tags |= 1u << (evs[i].data.u32 & 31);
	return tags;
}

/*
 * Hand the CPU's staging frame to the writer.  If the queue is full the
 * frame's events are dropped in place (counted, and reported by a "lost"
 * record that stays in the frame), and the frame keeps being used.
 */
static void hand_off(struct ringbufs *r, unsigned cpu, bool final)
{
	struct rb_cpu *rc = &r->cpu[cpu];
	struct frame *f = rc->stage;

	if (!f || !f->count)
		return;
	if (final) {
		/* The writer is about to be waited for: nothing need be dropped. */
		fq_push(r->q, f);
		rc->stage = NULL;
		return;
	}
	if (fq_push_events(r->q, f)) {
		rc->stage = NULL;
		return;
	}
	if (frame_drop_events(f, &r->ul))
		r->frames_dropped++;
}

static struct frame *stage_for(struct ringbufs *r, unsigned cpu, size_t size)
{
	struct rb_cpu *rc = &r->cpu[cpu];

	/* Keep room for the marker frame_drop_events() may have to add. */
	if (rc->stage && rc->stage->cap - rc->stage->len < size + sizeof(struct ev_lost))
		hand_off(r, cpu, false);
	if (rc->stage && rc->stage->cap - rc->stage->len < size + sizeof(struct ev_lost))
		return NULL;	/* only markers, and they fill the frame: cannot happen */
	if (!rc->stage)
		rc->stage = fq_get_events_frame(r->q, cpu, r->frame_size);
	return rc->stage;
}

static void copy_record(struct ringbufs *r, unsigned cpu, const void *rec, size_t size)
{
	const struct ev_header *h = rec;
	struct frame *f;
	unsigned char *dst;
	unsigned type = h->type;

	if (type >= EV_TYPE_LIMIT || r->type_size[type] != size) {
		r->malformed++;
		return;
	}
	/*
	 * A submission whose completion was not folded in goes to the log as
	 * the submit record it begins with: columns that mix records with and
	 * without a completion pack worse than two kinds apart.
	 */
	if (type == EV_SUBMIT_COMPLETE && !(h->flags & EVF_COMPLETED)) {
		type = EV_SUBMIT;
		size = sizeof(struct ev_submit);
	}
	f = stage_for(r, cpu, size);
	if (!f) {
		/* out of memory for a frame: the record is lost, and counted */
		user_losses_add(&r->ul, cpu, rec);
		return;
	}
	dst = f->data + f->len;
	frame_add_record(f, rec, size);
	memcpy(dst + offsetof(struct ev_header, type), &(uint16_t){ (uint16_t)type },
	       sizeof(uint16_t));
	scrub_record(r->scrub, type, dst);
	if (r->on_record)
		r->on_record(r->on_record_arg, cpu, dst);
	if (type == EV_LOST) {
		const struct ev_lost *l = rec;

		if (!(l->flags & EVF_LOSS_USER))
			r->kernel_lost_reported += l->count;
	} else {
		r->records++;
	}
	r->bytes += size;
}

void ringbufs_add(struct ringbufs *r, unsigned cpu, const void *rec, size_t size)
{
	if (cpu < r->ncpus)
		copy_record(r, cpu, rec, size);
}

/*
 * One ring-buffer entry: whole records back to back (a stage, or one record).
 * A record of unknown type or a size that does not add up makes the rest of
 * the entry unreadable: counted once as malformed.
 */
static void copy_entry(struct ringbufs *r, unsigned cpu, const unsigned char *p, uint32_t len)
{
	uint32_t off = 0;

	while (off < len) {
		const struct ev_header *h = (const void *)(p + off);
		uint16_t size;

		if (len - off < sizeof(*h) || h->type >= EV_TYPE_LIMIT ||
		    !(size = r->type_size[h->type]) || size > len - off) {
			r->malformed++;
			return;
		}
		copy_record(r, cpu, h, size);
		off += size;
	}
}

static void drain_ring(struct ringbufs *r, unsigned cpu, bool all)
{
	struct rb_cpu *rc = &r->cpu[cpu];
	unsigned long cons = *rc->consumer_pos;
	unsigned long prod = __atomic_load_n(rc->producer_pos, __ATOMIC_ACQUIRE);
	unsigned long released = cons, budget = all ? ~0ul : cons + r->ring_size;

	while (cons < prod && cons < budget) {
		const uint32_t *hdr = (const uint32_t *)(rc->data + (cons & rc->mask));
		uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
		uint32_t size = len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);

		/* Reserved but not yet submitted: later records must wait. */
		if (len & BPF_RINGBUF_BUSY_BIT)
			break;
		if (!(len & BPF_RINGBUF_DISCARD_BIT))
			copy_entry(r, cpu, (const unsigned char *)(hdr + BPF_RINGBUF_HDR_SZ / 4),
				   size);
		cons += (size + BPF_RINGBUF_HDR_SZ + 7) & ~7ul;
		if (cons - released >= RELEASE_EVERY) {
			__atomic_store_n(rc->consumer_pos, cons, __ATOMIC_RELEASE);
			released = cons;
		}
		if (cons == prod)
			prod = __atomic_load_n(rc->producer_pos, __ATOMIC_ACQUIRE);
	}
	if (cons != released)
		__atomic_store_n(rc->consumer_pos, cons, __ATOMIC_RELEASE);
}

void ringbufs_set_stage(struct ringbufs *r, int flush_prog_fd, int cpu_state_fd)
{
	r->flush_prog_fd = flush_prog_fd;
	r->cpu_state_fd = cpu_state_fd;
}

/* Run flush_stage on cpu; false when it found the CPU inside a program. */
static bool flush_stage_on(struct ringbufs *r, unsigned cpu)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

	if (bpf_prog_test_run_opts(r->flush_prog_fd, &opts)) {
		/* offline: what it staged is collected at stop */
		r->stage_flush_errors++;
		return true;
	}
	if (opts.retval) {
		r->stage_flush_busy++;
		return false;
	}
	r->stage_flushes++;
	return true;
}

void ringbufs_flush_stages(struct ringbufs *r)
{
	if (r->flush_prog_fd < 0)
		return;
	for (unsigned c = 0; c < r->ncpus; c++)
		if (r->cpu[c].fd >= 0)
			r->cpu[c].stage_busy = !flush_stage_on(r, c);
}

void ringbufs_collect_stages(struct ringbufs *r)
{
	size_t n = (size_t)r->ncpus;
	struct ur_cpu_state *st = r->cpu_state_fd >= 0 ? calloc(n, sizeof(*st)) : NULL;
	__u32 zero = 0;

	/* PERCPU_ARRAY: one value per possible CPU, each rounded up to 8 bytes */
	_Static_assert(sizeof(*st) % 8 == 0, "ur_cpu_state is read as an array");
	if (!st || bpf_map_lookup_elem(r->cpu_state_fd, &zero, st)) {
		msg_warn("cannot read the records staged at stop: %s", strerror(st ? errno : ENOMEM));
		free(st);
		return;
	}
	for (unsigned c = 0; c < r->ncpus; c++) {
		uint32_t len = st[c].stage_len;
		uint64_t before = r->records;

		if (len > sizeof(st[c].stage))
			len = sizeof(st[c].stage);
		copy_entry(r, c, st[c].stage, len);
		r->staged_at_stop += r->records - before;
	}
	free(st);
}

void ringbufs_drain(struct ringbufs *r, bool all)
{
	r->drains++;
	for (unsigned c = 0; c < r->ncpus; c++) {
		if (r->cpu[c].fd < 0)
			continue;
		if (r->cpu[c].stage_busy)
			r->cpu[c].stage_busy = !flush_stage_on(r, c);
		drain_ring(r, c, all);
	}
}

void ringbufs_flush(struct ringbufs *r, bool final)
{
	for (unsigned c = 0; c < r->ncpus; c++)
		hand_off(r, c, final);
}
