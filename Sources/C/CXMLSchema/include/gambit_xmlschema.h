#ifndef GAMBIT_XMLSCHEMA_H
#define GAMBIT_XMLSCHEMA_H

#include <stddef.h>

/// Validates the XML document at `xml_path` against the W3C XML Schema at `xsd_path` with libxml2.
/// Returns 0 when valid, a positive count of validation errors, or -1 when the schema or the document
/// could not be parsed. The first messages (with line numbers) are written to `messages`.
/// libxml2 stays behind this header because its ICU-typed headers clash with Foundation in Swift.
int gambit_xml_validate(const char *xml_path, const char *xsd_path, char *messages, size_t messages_len);

/// Checks that the file at `path` is well-formed XML. Returns 0 when it is, -1 otherwise (with the
/// parser's message in `messages`).
int gambit_xml_check_well_formed(const char *path, char *messages, size_t messages_len);

#endif
