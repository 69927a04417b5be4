#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/*
 * A wall clock a test moves by hand, for a redis-server started with LD_PRELOAD=<this, compiled>: gettimeofday,
 * time and clock_gettime(CLOCK_REALTIME*) read 8 bytes (little-endian microseconds since the epoch) from the file
 * named by FAKE_CLOCK_FILE, so Redis's TIME, its key expiry and its logs follow that file. Every other clock
 * (CLOCK_MONOTONIC: Redis's timers) is the real one. Without the variable, or when the file cannot be read, the
 * real functions answer. Built by FakeClockRedis with the machine's C compiler.
 */
static int64_t fake_micros(void) {
  static int fd = -1;
  if (fd < 0) {
    const char *path = getenv("FAKE_CLOCK_FILE");
    if (path == NULL || (fd = open(path, O_RDONLY)) < 0) return -1;
  }
  int64_t v;
  if (pread(fd, &v, sizeof v, 0) != sizeof v) return -1;
  return v;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  int64_t m = fake_micros();
  if (m < 0) {
    int (*real)(struct timeval *, void *) = dlsym(RTLD_NEXT, "gettimeofday");
    return real(tv, tz);
  }
  tv->tv_sec = m / 1000000;
  tv->tv_usec = m % 1000000;
  return 0;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
  if (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE) {
    int64_t m = fake_micros();
    if (m >= 0) {
      ts->tv_sec = m / 1000000;
      ts->tv_nsec = (m % 1000000) * 1000;
      return 0;
    }
  }
  int (*real)(clockid_t, struct timespec *) = dlsym(RTLD_NEXT, "clock_gettime");
  return real(id, ts);
}

time_t time(time_t *t) {
  int64_t m = fake_micros();
  if (m < 0) {
    time_t (*real)(time_t *) = dlsym(RTLD_NEXT, "time");
    return real(t);
  }
  if (t) *t = m / 1000000;
  return m / 1000000;
}
