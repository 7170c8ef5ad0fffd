/*
 * cli_plot.h - a bracket against a parameter as a figure, through gnuplot
 * (profile: delta against epsilon; sweeps: epsilon against epochs).
 */
#ifndef DPACCT_CLI_PLOT_H
#define DPACCT_CLI_PLOT_H

#include <stddef.h>

typedef struct {
    const char *path;              /* .png, .svg or .pdf */
    const char *title, *xlabel, *ylabel;
    const double *x, *lower, *upper; /* n points; a lower bound <= 0 or inf is not drawn */
    size_t n;
    int log_y;
} cli_plot_spec;

/* Whether the name ends in an extension cli_plot can write. */
int cli_plot_extension_ok(const char *path);
/* Write the figure; 0, or -1 with the reason in why. */
int cli_plot(const cli_plot_spec *p, char *why, size_t why_size);

#endif
