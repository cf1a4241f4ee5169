// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timebase.h"

void timebase_init(struct timebase *tb)
{
	memset(tb, 0, sizeof(*tb));
}

void timebase_free(struct timebase *tb)
{
	free(tb->snaps);
	timebase_init(tb);
}

int timebase_add(struct timebase *tb, const struct log_clock_snapshot *s)
{
	size_t i;

	/* Keep sorted and unique by boot_ns; snapshots are few (one per 10 s). */
	for (i = tb->nsnaps; i > 0 && tb->snaps[i - 1].boot_ns >= s->boot_ns; i--)
		if (tb->snaps[i - 1].boot_ns == s->boot_ns)
			return 0;
	if (tb->nsnaps == tb->cap) {
		size_t cap = tb->cap ? tb->cap * 2 : 16;
		struct log_clock_snapshot *p = realloc(tb->snaps, cap * sizeof(*p));

		if (!p)
			return -1;
		tb->snaps = p;
		tb->cap = cap;
	}
	memmove(&tb->snaps[i + 1], &tb->snaps[i], (tb->nsnaps - i) * sizeof(*s));
	tb->snaps[i] = *s;
	tb->nsnaps++;
	return 0;
}

/* Index of the last snapshot with boot_ns <= t, or -1. */
static long find_le(const struct log_clock_snapshot *v, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].boot_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/*
 * dt * span / boot_span, truncated, exactly: the real clock's span of a
 * segment is its boot span plus a drift of a few ppm (or a step), so
 * dt + dt * drift / boot_span in 64 bits, which is most rows of a CSV,
 * unless that product overflows; 128-bit division otherwise.
 */
static __int128 interpolate(uint64_t dt, __int128 span, uint64_t boot_span)
{
	__int128 drift = span - (__int128)boot_span;
	int64_t d;
	uint64_t prod;

	if (span >= 0 && drift >= INT64_MIN && drift <= INT64_MAX && dt <= INT64_MAX) {
		d = (int64_t)drift;
		/* dt * span >= 0: truncation is the floor of dt + dt * drift / boot_span */
		if (d >= 0 && !__builtin_mul_overflow(dt, (uint64_t)d, &prod))
			return (__int128)dt + prod / boot_span;
		if (d < 0 && !__builtin_mul_overflow(dt, (uint64_t)0 - (uint64_t)d, &prod))
			return (__int128)dt - (prod / boot_span + (prod % boot_span != 0));
	}
	return (__int128)dt * span / (__int128)boot_span;
}

/* false when the result does not fit (a timestamp from a damaged record). */
bool timebase_wall(const struct timebase *tb, uint64_t boot_ns, int64_t *real_ns)
{
	const struct log_clock_snapshot *a, *b;
	__int128 real;
	long i;

	if (!tb->nsnaps)
		return false;
	i = find_le(tb->snaps, tb->nsnaps, boot_ns);
	if (i < 0) {
		a = &tb->snaps[0];
		real = (__int128)a->real_ns - (__int128)(a->boot_ns - boot_ns);
	} else if ((size_t)i + 1 >= tb->nsnaps) {
		a = &tb->snaps[i];
		real = (__int128)a->real_ns + (__int128)(boot_ns - a->boot_ns);
	} else {
		a = &tb->snaps[i];
		b = &tb->snaps[i + 1];
		real = (__int128)a->real_ns + interpolate(boot_ns - a->boot_ns,
							  (__int128)b->real_ns - a->real_ns,
							  b->boot_ns - a->boot_ns);
	}
	if (real > INT64_MAX || real < INT64_MIN)
		return false;
	*real_ns = (int64_t)real;
	return true;
}

bool timebase_boot(const struct timebase *tb, int64_t real_ns, uint64_t *boot_ns)
{
	size_t i;

	if (!tb->nsnaps)
		return false;
	/* Wall-clock steps can make real_ns non-monotonic; use the first
	 * interval that contains it, else extrapolate from the nearest end. */
	for (i = 0; i + 1 < tb->nsnaps; i++) {
		const struct log_clock_snapshot *a = &tb->snaps[i], *b = &tb->snaps[i + 1];

		if ((int64_t)a->real_ns <= real_ns && real_ns <= (int64_t)b->real_ns &&
		    b->real_ns != a->real_ns) {
			__int128 num = (__int128)(real_ns - (int64_t)a->real_ns) *
				       (__int128)(b->boot_ns - a->boot_ns);
			*boot_ns = a->boot_ns + (uint64_t)(num / ((__int128)b->real_ns - a->real_ns));
			return true;
		}
	}
	{
		const struct log_clock_snapshot *z = real_ns < (int64_t)tb->snaps[0].real_ns ?
						     &tb->snaps[0] : &tb->snaps[tb->nsnaps - 1];
		__int128 boot = (__int128)z->boot_ns + ((__int128)real_ns - (int64_t)z->real_ns);

		*boot_ns = boot < 0 ? 0 : boot > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)boot;
	}
	return true;
}

char *format_iso_ns(int64_t real_ns, char *buf)
{
	int64_t sec = real_ns / 1000000000, nsec = real_ns % 1000000000;
	struct tm tm;
	time_t t;

	if (nsec < 0) {
		nsec += 1000000000;
		sec--;
	}
	t = (time_t)sec;
	if (!gmtime_r(&t, &tm)) {
		buf[0] = '\0';
		return buf;
	}
	snprintf(buf, TIMEBASE_ISO_LEN, "%04d-%02d-%02dT%02d:%02d:%02d.%09" PRId64 "Z",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		 tm.tm_sec, nsec);
	return buf;
}

char *timebase_iso(const struct timebase *tb, uint64_t boot_ns, char *buf)
{
	int64_t real;

	if (!boot_ns || !timebase_wall(tb, boot_ns, &real)) {
		buf[0] = '\0';
		return buf;
	}
	return format_iso_ns(real, buf);
}

static int digits(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)**p))
			return -1;
		v = v * 10 + (**p - '0');
		(*p)++;
	}
	*out = v;
	return 0;
}

int parse_iso_ns(const char *s, int64_t *real_ns)
{
	int year, mon, day, hour, min, sec;
	int64_t frac = 0, zone = 0;
	struct tm tm = { 0 };
	const char *p = s;
	time_t t;

	if (digits(&p, 4, &year) || *p++ != '-' || digits(&p, 2, &mon) ||
	    *p++ != '-' || digits(&p, 2, &day) || (*p != 'T' && *p != 't' && *p != ' '))
		return -1;
	p++;
	if (digits(&p, 2, &hour) || *p++ != ':' || digits(&p, 2, &min) ||
	    *p++ != ':' || digits(&p, 2, &sec))
		return -1;
	if (*p == '.' || *p == ',') {
		int n = 0;

		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p)) {
			if (n < 9) {
				frac = frac * 10 + (*p - '0');
				n++;
			}
			p++;
		}
		while (n++ < 9)
			frac *= 10;
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p == '-' ? -1 : 1, zh, zm = 0;

		p++;
		if (digits(&p, 2, &zh))
			return -1;
		if (*p == ':')
			p++;
		if (*p && digits(&p, 2, &zm))
			return -1;
		if (zh > 23 || zm > 59)
			return -1;
		zone = sign * (int64_t)(zh * 3600 + zm * 60);
	}
	if (*p || mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 ||
	    min > 59 || sec > 60)
		return -1;
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;
	t = timegm(&tm);
	if (t == (time_t)-1 && !(year == 1969))
		return -1;
	/* int64 nanoseconds cover 1677..2262. */
	if ((int64_t)t - zone > INT64_MAX / 1000000000 - 1 ||
	    (int64_t)t - zone < INT64_MIN / 1000000000 + 1)
		return -1;
	*real_ns = ((int64_t)t - zone) * 1000000000 + frac;
	return 0;
}
