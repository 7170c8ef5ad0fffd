/*
 * mpfr_ref.h - reference values computed in MPFR at high precision,
 * independently of the library's double-precision code paths.
 */
#ifndef DPACCT_TESTS_MPFR_REF_H
#define DPACCT_TESTS_MPFR_REF_H

/* log Phi(x), Phi the standard normal CDF. */
double ref_log_ndtr(double x);
/* log of the Mills ratio (1 - Phi(x)) / phi(x). */
double ref_log_mills(double x);
/* log(1 - e^x), log(e^a + e^b), log(e^a - e^b). */
double ref_log1mexp(double x);
double ref_log_add_exp(double a, double b);
double ref_log_sub_exp(double a, double b);
/* delta(eps) of mu-GDP: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2),
 * evaluated at 512 bits so that the cancellation cannot reach the result. */
double ref_gdp_delta(double mu, double eps);
/* log delta(eps), for deltas below the double range. */
double ref_gdp_log_delta(double mu, double eps);
/* The eps with delta(eps) = delta, by bisection in MPFR (0 if delta(0) <= delta). */
double ref_gdp_epsilon(double mu, double delta);
/* Renyi DP eps(alpha) of the Poisson-subsampled Gaussian (rate q, noise
 * multiplier sigma, add/remove): log(E_mu0[(mu/mu0)^alpha]) / (alpha - 1) by
 * the trapezoidal rule in MPFR, whose error for this analytic integrand
 * falls like exp(-2 pi d / h) (d = pi sigma, the distance to the nearest
 * complex singularity); h is chosen for an error far below 1e-30. */
double ref_sgm_rdp(double q, double sigma, double alpha);
/* The other direction, log(E_mu0[(mu/mu0)^(1-alpha)]) / (alpha - 1) = D_alpha(mu0 || mu). */
double ref_sgm_rdp_reverse(double q, double sigma, double alpha);
/* mu of NoisyCGD (Bok, Su & Altschuler 2024, Thm 4.5) at 256 bits straight
 * from the formula, with c = 1 - x: (s_over_sigma) sqrt(1 + c^{2k-2}
 * (1 - c^2)/(1 - c^k)^2 (1 - c^{k(E-1)})/(1 + c^{k(E-1)})). */
double ref_noisy_cgd_mu(double s_over_sigma, double x, unsigned long k, unsigned long E);
/* Shuffling (Feldman, McMillan & Talwar 2021): delta(eps) of the clones
 * pair, sum_c Bin(n-1, e^-eps0)(c) sum_k (P_c(k) - e^eps Q_c(k))_+, every
 * term enumerated at 256 bits (O(n^2): small n only). */
double ref_shuffle_delta(double eps0, unsigned long n, double eps);
/* The same for larger n: the sum over c restricted to +-16 standard
 * deviations of Bin(n - 1, e^-eps0) (the rest is below 1e-50), each H_c
 * from the closed form of accountants/shuffle/shuffle.c evaluated at 200 bits with
 * the pmf from lngamma and the CDF summed term by term. */
double ref_shuffle_delta_window(double eps0, unsigned long n, double eps);
/* delta(eps) of the clones pair with the clone probability of the class:
 * 2/(e^eps0 + 1) (cls 1, the randomized-response class) or e^-eps0 (cls 0);
 * enumerated as ref_shuffle_delta. */
double ref_clones_delta(double eps0, unsigned long n, int cls, double eps);
/* delta(eps) of the T-fold product of the clones pair (delta0 = 0): every
 * T-tuple of atoms enumerated at 160 bits (tiny n and T only). */
double ref_clones_composed_delta(double eps0, unsigned long n, int cls, int T, double eps);
/* D_alpha(P || Q) of the clones pair (delta0 = 0), every atom at 160 bits. */
double ref_clones_rdp(double eps0, unsigned long n, int cls, double alpha);
/* delta(eps) of the real shuffled binary randomized response: n users,
 * `ones` of the other n - 1 holding 1, the differing user 0 against 1; the
 * output is the number of 1 reports (a sufficient statistic of the
 * shuffled multiset), computed exactly at 256 bits. */
double ref_shuffled_rr_delta(double eps0, unsigned long n, unsigned long ones, double eps);
/* Relative difference |x - ref| / |ref| (0 when both are 0). */
double rel_err(double x, double ref);

#endif

/* ---- hockey-stick references for the PLD pairs (tests/test_pld_profiles.c) ----
 * A pair (P, Q) evaluated at 256 bits straight from its definition:
 * delta(eps) = sum over outcomes of (P - e^eps Q)_+ (discrete pairs: the
 * masses enumerated outcome by outcome, the normalisers summed), or the
 * integral of (p - e^eps q)_+ (continuous pairs with a monotone likelihood
 * ratio: the boundary of {p > e^eps q} found by bisection on the densities,
 * then the two tail probabilities), and Q(L > eps) = Q(P > e^eps Q). */
typedef struct ref_pair ref_pair;
ref_pair *ref_pair_laplace(double b);
ref_pair *ref_pair_rr(double eps, unsigned k);
ref_pair *ref_pair_dlap(double t, unsigned sensitivity);
ref_pair *ref_pair_dgauss(double sigma, unsigned sensitivity);
ref_pair *ref_pair_epsdelta(double eps, double delta);
/* (1-q) N(0,s^2) + q N(1,s^2) against (1-q) N(0,s^2) + q N(-1,s^2). */
ref_pair *ref_pair_replace_gaussian(double s, double q);
/* Poisson sampling: (q P + (1-q) Q, Q) (add_world = 0) or (Q, q P + (1-q) Q);
 * `inner` is copied, not consumed. */
ref_pair *ref_pair_sampled(const ref_pair *inner, double q, int add_world);
void ref_pair_free(ref_pair *r);
double ref_pair_log_delta(const ref_pair *r, double eps);
double ref_pair_log_q_survival(const ref_pair *r, double eps);
