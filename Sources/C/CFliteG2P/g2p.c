#include "gambit_flite.h"

#include <string.h>
#include <flite/flite.h>
#include <flite/cst_lexicon.h>

cst_lexicon *cmu_lex_init(void);

static cst_lexicon *lexicon(void) {
    static cst_lexicon *lex = NULL;
    if (lex == NULL) {
        lex = cmu_lex_init();
    }
    return lex;
}

int gambit_flite_pronounce(const char *word, char *out, size_t out_len) {
    cst_val *phones = lex_lookup(lexicon(), word, NULL, NULL);
    size_t used = 0;
    int count = 0;
    out[0] = '\0';
    for (const cst_val *p = phones; p; p = val_cdr(p)) {
        const char *phone = val_string(val_car(p));
        size_t len = strlen(phone);
        if (used + len + 2 > out_len) {
            delete_val(phones);
            return -1;
        }
        if (count > 0) {
            out[used++] = ' ';
        }
        memcpy(out + used, phone, len);
        used += len;
        out[used] = '\0';
        count++;
    }
    delete_val(phones);
    return count;
}

int gambit_flite_in_lexicon(const char *word) {
    return in_lex(lexicon(), word, NULL, NULL) ? 1 : 0;
}
