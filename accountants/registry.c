/*
 * registry.c - the accountants, by name.  Adding an accountant is one
 * module in accountants/ and one line in each table below.
 *
 * The order is the order of preference (the CLI's default is the first
 * accountant that supports a mechanism): exact methods first, certified
 * bounds next, approximations last.
 */
#include "internal.h"

extern const dpa_accountant_ops dpa_batches_accountant;
extern const dpa_accountant_ops dpa_gaussian_accountant;
extern const dpa_accountant_ops dpa_gdp_accountant;
extern const dpa_accountant_ops dpa_zcdp_accountant;
extern const dpa_accountant_ops dpa_rdp_accountant;
extern const dpa_accountant_ops dpa_pld_accountant;
extern const dpa_accountant_ops dpa_shuffle_accountant;
extern const dpa_accountant_ops dpa_tuning_accountant;
extern const dpa_accountant_ops dpa_mc_accountant;

const dpa_accountant_ops *const dpa_registry[] = {
    &dpa_batches_accountant,   /* shuffled batches only: the mechanism's bracket */
    &dpa_gaussian_accountant,
    &dpa_rdp_accountant,
    &dpa_pld_accountant,
    &dpa_shuffle_accountant,
    &dpa_tuning_accountant,
    &dpa_zcdp_accountant,
    &dpa_gdp_accountant,
    &dpa_mc_accountant,        /* balls-in-bins only: a Monte-Carlo estimate */
    NULL,
};

const char *const dpa_registry_names[] = {
    "batches",
    "gaussian",
    "rdp",
    "pld",
    "shuffle",
    "tuning",
    "zcdp",
    "gdp",
    "mc",
    NULL,
};
