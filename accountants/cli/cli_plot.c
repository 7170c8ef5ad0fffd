/*
 * cli_plot.c - figures through gnuplot (Debian's gnuplot-nox: a maintained
 * plotting program with PNG, SVG and PDF terminals; nothing here writes an
 * image format).  The points go to a temporary data file and a script to
 * gnuplot's standard input; the file type follows the extension.
 */
#include "cli_plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* gnuplot's terminal for the file's extension, NULL for none it knows. */
static const char *terminal_for(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot) return NULL;
    if (!strcmp(dot, ".png")) return "pngcairo size 900,560";
    if (!strcmp(dot, ".svg")) return "svg size 900,560 dynamic";
    if (!strcmp(dot, ".pdf")) return "pdfcairo size 6in,3.7in";
    return NULL;
}

int cli_plot_extension_ok(const char *path)
{
    return terminal_for(path) != NULL;
}

/* A string for gnuplot's single quotes: a quote is doubled. */
static void quoted(FILE *out, const char *s)
{
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', out);
        fputc(*s, out);
    }
    fputc('\'', out);
}

int cli_plot(const cli_plot_spec *p, char *why, size_t why_size)
{
    const char *term = terminal_for(p->path);
    if (!term) return snprintf(why, why_size, "%s: the figure's name must end in .png, .svg or .pdf", p->path), -1;
    char data[] = "/tmp/dpacct-plot-XXXXXX";
    int fd = mkstemp(data);
    if (fd < 0) return snprintf(why, why_size, "could not create a temporary file for the figure"), -1;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(data);
        return snprintf(why, why_size, "could not write the figure's data"), -1;
    }
    /* infinite or absent values break the line instead of being drawn */
    for (size_t i = 0; i < p->n; i++) {
        fprintf(f, "%.17g", p->x[i]);
        for (int s = 0; s < 2; s++) {
            double y = s ? p->upper[i] : p->lower[i];
            if (y > 0.0 && y < 1e308) fprintf(f, " %.17g", y);
            else fprintf(f, " NaN");
        }
        fputc('\n', f);
    }
    int bad = fclose(f) != 0;
    FILE *g = bad ? NULL : popen("gnuplot 2>/dev/null", "w");
    if (!g) {
        unlink(data);
        return snprintf(why, why_size, "could not run gnuplot"), -1;
    }
    fprintf(g, "set terminal %s\nset output ", term);
    quoted(g, p->path);
    fprintf(g, "\nset title ");
    quoted(g, p->title);
    fprintf(g, " noenhanced font ',9'\nset xlabel ");
    quoted(g, p->xlabel);
    fprintf(g, "\nset ylabel ");
    quoted(g, p->ylabel);
    fprintf(g, "\nset grid\nset key top left\n%s\nplot ", p->log_y ? "set logscale y" : "");
    quoted(g, data);
    fprintf(g, " using 1:3 with linespoints lw 2 pt 7 ps 0.6 title 'upper (certified)', ");
    quoted(g, data);
    fprintf(g, " using 1:2 with lines lw 1 dt 2 title 'lower'\nset output\n");
    int status = pclose(g);
    unlink(data);
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            return snprintf(why, why_size, "gnuplot is not installed (apt-get install -y gnuplot-nox)"), -1;
        return snprintf(why, why_size, "gnuplot could not write %s", p->path), -1;
    }
    if (access(p->path, F_OK) != 0) return snprintf(why, why_size, "gnuplot did not write %s", p->path), -1;
    return 0;
}
