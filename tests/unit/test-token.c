/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure parts of the release-token mechanism (pp-token.c): Inhibit's
 * what, and the limits' defaults and clamping. Taking tokens over the
 * limits is a system test (test_hostile.py). */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "pp-test.h"
#include "pp-error.h"
#include "pp-token.h"

typedef struct {
  const char *what;
  gboolean    ok;
  gboolean    idle;
  gboolean    lid;
  const char *needle;   /* in the message of a refusal */
} WhatRow;

static const WhatRow what_rows[] = {
  { "idle", TRUE, TRUE, FALSE, NULL },
  { "lid", TRUE, FALSE, TRUE, NULL },
  { "idle:lid", TRUE, TRUE, TRUE, NULL },
  { "lid:idle", TRUE, TRUE, TRUE, NULL },
  { "", FALSE, FALSE, FALSE, "colon-separated" },
  { "idle:idle", FALSE, FALSE, FALSE, "'idle' given twice" },
  { "lid:idle:lid", FALSE, FALSE, FALSE, "'lid' given twice" },
  { "idle:", FALSE, FALSE, FALSE, "unknown inhibitor kind ''" },
  { "sleep", FALSE, FALSE, FALSE, "unknown inhibitor kind 'sleep'" },
  { "idle:\n\x1b", FALSE, FALSE, FALSE, "unknown inhibitor kind '\\n\\x1b'" },
  { "idle:idle:idle:idle:idle:idle:idle", FALSE, FALSE, FALSE, "each at most once" },
};

static void
test_parse_what (void **state)
{
  const WhatRow *row = *state;
  g_autoptr(GError) error = NULL;
  gboolean idle = -1, lid = -1;
  gboolean ok = pp_token_parse_what (row->what, &idle, &lid, &error);

  assert_int_equal (ok, row->ok);
  if (ok)
    {
      assert_null (error);
      assert_int_equal (idle, row->idle);
      assert_int_equal (lid, row->lid);
    }
  else
    {
      assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT));
      if (strstr (error->message, row->needle) == NULL)
        fail_msg ("'%s' lacks '%s'", error->message, row->needle);
    }
}

static void
test_limits (void **state)
{
  g_autoptr(PpTokenRegistry) tokens = pp_token_registry_new ();

  assert_int_equal (pp_token_registry_count (tokens), 0);
  assert_int_equal (pp_token_registry_count_for_uid (tokens, 1000), 0);
  /* the ceiling holds whatever is asked; per user never above the total */
  pp_token_registry_set_limits (tokens, 100000, 100000);
  pp_token_registry_set_limits (tokens, PP_TOKEN_DEFAULT_PER_USER, PP_TOKEN_DEFAULT_TOTAL);
  assert_true (PP_TOKEN_DEFAULT_TOTAL <= PP_TOKEN_TOTAL_CEILING);
  /* the documented worst case of ListInhibitors stays far below 32 MiB */
  assert_true ((gsize) PP_TOKEN_TOTAL_CEILING * (8 + 2 * PP_TOKEN_TEXT_MAX + 4096 + 40)
               < 20 * 1024 * 1024);
}

/* Holds without a file descriptor (power profile holds) count against
 * the same limits and give their place back. */
static void
test_reserve (void **state)
{
  g_autoptr(PpTokenRegistry) tokens = pp_token_registry_new ();
  g_autoptr(GError) error = NULL;

  pp_token_registry_set_limits (tokens, 2, 3);
  assert_true (pp_token_reserve (tokens, 1000, NULL));
  assert_true (pp_token_reserve (tokens, 1000, NULL));
  assert_false (pp_token_reserve (tokens, 1000, &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_REFUSED));
  g_clear_error (&error);
  assert_true (pp_token_reserve (tokens, 1001, NULL));
  /* the total */
  assert_false (pp_token_reserve (tokens, 1002, &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_REFUSED));
  assert_int_equal (pp_token_registry_count (tokens), 3);
  pp_token_unreserve (tokens, 1000);
  pp_token_unreserve (tokens, 1000);
  pp_token_unreserve (tokens, 1001);
  assert_int_equal (pp_token_registry_count (tokens), 0);
  assert_int_equal (pp_token_registry_count_for_uid (tokens, 1000), 0);
}

/* Two registries share nothing: the limits and counts of one are not the
 * other's (nothing process-global). */
static void
test_registries_apart (void **state)
{
  g_autoptr(PpTokenRegistry) full = pp_token_registry_new ();
  g_autoptr(PpTokenRegistry) other = pp_token_registry_new ();
  g_autoptr(GError) error = NULL;

  pp_token_registry_set_limits (full, 1, 1);
  assert_true (pp_token_reserve (full, 1000, NULL));
  assert_false (pp_token_reserve (full, 1000, &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_REFUSED));
  assert_true (pp_token_reserve (other, 1000, NULL));
  assert_int_equal (pp_token_registry_count (full), 1);
  assert_int_equal (pp_token_registry_count (other), 1);
  pp_token_unreserve (other, 1000);
  assert_int_equal (pp_token_registry_count_for_uid (other, 1000), 0);
  assert_int_equal (pp_token_registry_count_for_uid (full, 1000), 1);
  pp_token_unreserve (full, 1000);
}

/* A token keeps its registry: it may outlive every other reference (a
 * component freed before the holds it gave out) and still gives its
 * place back. */
static void
test_token_keeps_registry (void **state)
{
  PpTokenRegistry *tokens = pp_token_registry_new ();
  g_autoptr(GError) error = NULL;
  PpToken *token;
  int fd = -1;

  pp_token_registry_set_limits (tokens, 1, 1);
  token = pp_token_new (tokens, 1000, NULL, NULL, &fd, &error);
  assert_non_null (token);
  assert_true (fd >= 0);
  assert_int_equal (pp_token_registry_count_for_uid (tokens, 1000), 1);
  assert_null (pp_token_new (tokens, 1000, NULL, NULL, &fd, &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_REFUSED));
  pp_token_registry_ref (tokens);
  pp_token_registry_unref (tokens);
  pp_token_registry_unref (tokens);
  /* only the token's reference is left: under ASan a use after free */
  pp_token_free (token);
  close (fd);
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (guint i = 0; i < G_N_ELEMENTS (what_rows); i++)
    pp_test_list_add (list, "what", what_rows[i].what, test_parse_what, NULL, NULL, &what_rows[i]);
  pp_test_list_add (list, "limits", "defaults-and-ceiling", test_limits, NULL, NULL, NULL);
  pp_test_list_add (list, "limits", "reserve-without-fd", test_reserve, NULL, NULL, NULL);
  pp_test_list_add (list, "registry", "apart", test_registries_apart, NULL, NULL, NULL);
  pp_test_list_add (list, "registry", "token-keeps-it", test_token_keeps_registry, NULL, NULL, NULL);
  return pp_test_list_run (list, "token");
}
