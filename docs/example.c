/* example.c - the README's example: epsilon of 100 Gaussian steps.
 * Build: cc -std=c11 example.c $(pkg-config --cflags --libs dpacct) */
#include <dpacct.h>
#include <stdio.h>

int main(void)
{
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_self_composed(dpa_event_gaussian(1.0, &err), 100, &err);
    dpa_accountant *a = dpa_accountant_new("gaussian", NULL, &err);
    dpa_bound b;
    int status = 0;
    if (!e || !a || dpa_accountant_compose(a, e, &err) || dpa_accountant_epsilon(a, 1e-5, &b, &err)) {
        fprintf(stderr, "%s\n", err.message);
        status = 1;
    } else {
        printf("eps <= %.17g at delta = 1e-5\n", b.upper); /* every digit: never below the bound */
    }
    dpa_accountant_free(a);
    dpa_event_free(e);
    return status;
}
