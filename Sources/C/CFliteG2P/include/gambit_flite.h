#ifndef GAMBIT_FLITE_H
#define GAMBIT_FLITE_H

#include <stddef.h>

/// Looks a lowercase word up in flite's CMU lexicon, falling back to its letter-to-sound rules, and
/// writes the phones (CMU ARPAbet, lowercase with stress digits, space separated) into `out`.
/// Returns the number of phones, 0 if flite produced none, -1 if `out` was too small.
/// Not thread-safe: the caller serialises calls.
int gambit_flite_pronounce(const char *word, char *out, size_t out_len);

/// 1 when the word is in flite's lexicon proper (not only derivable by letter-to-sound rules).
int gambit_flite_in_lexicon(const char *word);

#endif
