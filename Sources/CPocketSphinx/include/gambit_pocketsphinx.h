#ifndef GAMBIT_POCKETSPHINX_H
#define GAMBIT_POCKETSPHINX_H

#include <pocketsphinx.h>
#include <sphinxbase/ngram_model.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/cmd_ln.h>
#include <stddef.h>

/// Routes sphinxbase/pocketsphinx logging away from stderr into a per-thread buffer that keeps the
/// last error message, so Swift can put the engine's own words into its errors. `err_cb_f` is
/// variadic, which Swift cannot implement, hence this C shim. Idempotent.
void gambit_ps_install_log_capture(void);

/// Lets the engine log to stderr again (for debugging with GAMBIT_ENGINE_LOG=1).
void gambit_ps_log_to_stderr(void);

/// The last ERROR/FATAL message logged on this thread since the last clear, or "".
const char *gambit_ps_last_error(void);

/// Forgets the last error message of this thread.
void gambit_ps_clear_last_error(void);

/// `ps_seg_prob` posterior as a linear probability (logmath_exp of the log posterior).
double gambit_ps_seg_posterior(ps_decoder_t *ps, ps_seg_t *seg);

/// Fixes glibc's mmap threshold at 128 KiB. glibc raises the threshold each time a large block is
/// freed, after which the next model's arrays come from the heap and are not returned to the system:
/// a process that loads one language model after another would keep every model's memory.
void gambit_keep_large_blocks_mapped(void);

#endif
