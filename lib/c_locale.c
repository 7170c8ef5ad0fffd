/*
 * c_locale.c - numbers as text in the "C" locale, whatever the program's.
 *
 * strtod and printf follow LC_NUMERIC: a program (or a Python session)
 * that has called setlocale(LC_ALL, "de_DE.UTF-8") would read "1.5" as 1
 * and write 1.5 as "1,5", and event text would neither read nor round-trip.
 * The event readers and writers switch this thread to the "C" locale for
 * their work (uselocale is per thread, so other threads are not touched).
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <locale.h>
#include <pthread.h>

static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

void *dpa_use_c_locale(void)
{
    pthread_once(&c_locale_once, make_c_locale);
    /* newlocale can fail only for want of memory: the caller's locale is
     * then kept (uselocale(0) changes nothing and returns it) */
    return (void *)uselocale(c_locale);
}

void dpa_restore_locale(void *caller)
{
    if (caller) uselocale((locale_t)caller);
}
