// PocketSphinx and sphinxbase (Debian's 5prealpha), with the few lines of C that Swift cannot write.
//
// This is Gambit's only C module for the engine, and the Swift module `PocketSphinx` is the only one
// that imports it. The helpers below are `static`: Swift emits them into the object file of each
// Swift file that calls them. The log capture's per-thread buffer must exist once per process, so the
// log and last-error helpers are called from one file, `Sources/PocketSphinx/Engine.swift`.
#ifndef GAMBIT_POCKETSPHINX_H
#define GAMBIT_POCKETSPHINX_H

#include <pocketsphinx.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/err.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/ngram_model.h>

#include <malloc.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum { gambit_ps_last_error_capacity = 2048 };

/// The last ERROR or FATAL message the engine logged on this thread since the last clear. A static
/// local rather than a file-scope variable: Swift emits a header's static functions, and their
/// locals with them, but not its file-scope variables.
static inline char *gambit_ps_last_error_buffer(void) {
    static __thread char text[gambit_ps_last_error_capacity];
    return text;
}

/// The log callback: keeps ERROR and FATAL messages, drops the rest. `err_cb_f` is variadic, which
/// Swift cannot implement.
static void gambit_ps_capture(void *user_data, err_lvl_t level, const char *format, ...) {
    (void)user_data;
    if (level < ERR_ERROR) {
        return;
    }
    char *text = gambit_ps_last_error_buffer();
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(text, gambit_ps_last_error_capacity, format, arguments);
    va_end(arguments);
    size_t length = strlen(text);
    while (length > 0 && (text[length - 1] == '\n' || text[length - 1] == ' ')) {
        text[--length] = '\0';
    }
}

/// Routes the engine's logging away from stderr into the per-thread buffer. `ps_init` writes its
/// configuration straight to the log file, so both the file and the callback are set.
static inline void gambit_ps_install_log_capture(void) {
    err_set_logfp(NULL);
    err_set_callback(gambit_ps_capture, NULL);
}

/// Lets the engine log to stderr (`GAMBIT_ENGINE_LOG=1`).
static inline void gambit_ps_log_to_stderr(void) {
    err_set_logfp(stderr);
    err_set_callback(err_logfp_cb, NULL);
}

/// The last error message logged on this thread, or "".
static inline const char *gambit_ps_last_error(void) { return gambit_ps_last_error_buffer(); }

/// Forgets this thread's last error message.
static inline void gambit_ps_clear_last_error(void) { gambit_ps_last_error_buffer()[0] = '\0'; }

/// `ps_seg_prob`'s posterior as a linear probability.
static inline double gambit_ps_seg_posterior(ps_decoder_t *ps, ps_seg_t *seg) {
    int32 acoustic = 0, language = 0, backoff = 0;
    int32 probability = ps_seg_prob(seg, &acoustic, &language, &backoff);
    return logmath_exp(ps_get_logmath(ps), probability);
}

/// `ps_latnode_prob`'s best posterior of a lattice node as a linear probability (0 until posteriors are computed,
/// e.g. by `ps_get_prob`).
static inline double gambit_ps_latnode_posterior(ps_decoder_t *ps, ps_lattice_t *dag, ps_latnode_t *node) {
    return logmath_exp(ps_get_logmath(ps), ps_latnode_prob(dag, node, NULL));
}

/// Fixes glibc's mmap threshold at 128 KiB. glibc raises the threshold each time a large block is
/// freed, after which the next model's arrays come from the heap and are not returned to the system:
/// a process that loads one language model after another would keep every model's memory.
static inline void gambit_keep_large_blocks_mapped(void) { mallopt(M_MMAP_THRESHOLD, 128 * 1024); }

#endif
