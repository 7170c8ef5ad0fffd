/* fuzz_util.c - see fuzz_util.h. */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz_util.h"

#include <sys/mman.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char paths[2][64];
static int fds[2] = { -1, -1 };

static int memfd[2];

static void remove_files(void)
{
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0 && !memfd[i]) unlink(paths[i]);
}

const char *fuzz_file(int slot, const uint8_t *data, size_t size)
{
#ifdef MFD_CLOEXEC
    /* Linux: a file in memory, opened again by path through /proc (no
     * file system work per input) */
    if (fds[slot] < 0) {
        int fd = memfd_create(slot ? "dpacct-fuzz-1" : "dpacct-fuzz-0", 0);
        if (fd >= 0) {
            snprintf(paths[slot], sizeof paths[slot], "/proc/self/fd/%d", fd);
            FILE *probe = fopen(paths[slot], "r");
            if (probe) {
                fclose(probe);
                fds[slot] = fd;
                memfd[slot] = 1;
            } else {
                close(fd);
            }
        }
    }
#endif
    if (fds[slot] < 0) {
        const char *dir = getenv("TMPDIR");
        snprintf(paths[slot], sizeof paths[slot], "%s/dpacct-fuzz-XXXXXX", dir && strlen(dir) < 40 ? dir : "/tmp");
        fds[slot] = mkstemp(paths[slot]);
        if (fds[slot] < 0) {
            perror("fuzz: mkstemp");
            abort();
        }
        static int registered;
        if (!registered) registered = atexit(remove_files) == 0;
    }
    if (ftruncate(fds[slot], 0) != 0) {
        perror("fuzz: ftruncate");
        abort();
    }
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(fds[slot], data + done, size - done, (off_t)done);
        if (w <= 0) {
            perror("fuzz: pwrite");
            abort();
        }
        done += (size_t)w;
    }
    return paths[slot];
}

int fuzz_take_option(const char *key, const uint8_t **data, size_t *size, char *buf, size_t buf_size)
{
    size_t klen = strlen(key);
    if (*size < klen || memcmp(*data, key, klen) != 0) return 0;
    const uint8_t *nl = memchr(*data, '\n', *size);
    if (!nl) return 0;
    size_t vlen = (size_t)(nl - *data) - klen;
    if (vlen >= buf_size) vlen = buf_size - 1;
    memcpy(buf, *data + klen, vlen);
    buf[vlen] = '\0';
    *size -= (size_t)(nl - *data) + 1;
    *data = nl + 1;
    return 1;
}

double fuzz_touch(const double *p, size_t n)
{
    volatile double s = 0.0;
    for (size_t i = 0; i < n; i++) s += p[i];
    return s;
}
