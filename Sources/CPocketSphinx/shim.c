#include "gambit_pocketsphinx.h"

#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sphinxbase/err.h>

static __thread char last_error[2048];

static void capture(void *user_data, err_lvl_t level, const char *fmt, ...) {
    (void)user_data;
    if (level < ERR_ERROR) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, args);
    va_end(args);
    size_t n = strlen(last_error);
    while (n > 0 && (last_error[n - 1] == '\n' || last_error[n - 1] == ' ')) {
        last_error[--n] = '\0';
    }
}

void gambit_ps_install_log_capture(void) {
    err_set_logfp(NULL);
    err_set_callback(capture, NULL);
}

void gambit_ps_log_to_stderr(void) {
    err_set_logfp(stderr);
    err_set_callback(err_logfp_cb, NULL);
}

const char *gambit_ps_last_error(void) { return last_error; }

void gambit_ps_clear_last_error(void) { last_error[0] = '\0'; }

double gambit_ps_seg_posterior(ps_decoder_t *ps, ps_seg_t *seg) {
    int32 ascr = 0, lscr = 0, lback = 0;
    int32 prob = ps_seg_prob(seg, &ascr, &lscr, &lback);
    return logmath_exp(ps_get_logmath(ps), prob);
}

void gambit_keep_large_blocks_mapped(void) { mallopt(M_MMAP_THRESHOLD, 128 * 1024); }
