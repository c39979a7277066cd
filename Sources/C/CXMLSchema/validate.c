#include "gambit_xmlschema.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/xmlschemas.h>

typedef struct {
    char *buffer;
    size_t length;
    size_t used;
    int count;
} collector;

static void collect(void *context, xmlErrorPtr error) {
    collector *c = context;
    c->count++;
    if (c->used + 1 >= c->length || error == NULL) {
        return;
    }
    int written = snprintf(c->buffer + c->used, c->length - c->used, "%sline %d: %s",
                           c->used > 0 ? "" : "", error->line, error->message ? error->message : "?");
    if (written > 0) {
        c->used += (size_t)written < c->length - c->used ? (size_t)written : c->length - c->used - 1;
    }
}

int gambit_xml_validate(const char *xml_path, const char *xsd_path, char *messages, size_t messages_len) {
    collector c = {messages, messages_len, 0, 0};
    messages[0] = '\0';
    int result = -1;
    xmlSchemaParserCtxtPtr parser = xmlSchemaNewParserCtxt(xsd_path);
    xmlSchemaPtr schema = NULL;
    xmlSchemaValidCtxtPtr validator = NULL;
    xmlDocPtr doc = NULL;
    if (parser == NULL) {
        goto done;
    }
    xmlSchemaSetParserStructuredErrors(parser, collect, &c);
    schema = xmlSchemaParse(parser);
    if (schema == NULL) {
        goto done;
    }
    c.count = 0;
    doc = xmlReadFile(xml_path, NULL, XML_PARSE_NONET);
    if (doc == NULL) {
        const xmlError *e = xmlGetLastError();
        snprintf(messages, messages_len, "%s: not well-formed XML: line %d: %s", xml_path, e ? e->line : 0,
                 e && e->message ? e->message : "?");
        goto done;
    }
    validator = xmlSchemaNewValidCtxt(schema);
    if (validator == NULL) {
        goto done;
    }
    xmlSchemaSetValidStructuredErrors(validator, collect, &c);
    int rc = xmlSchemaValidateDoc(validator, doc);
    result = rc == 0 ? 0 : (c.count > 0 ? c.count : 1);
done:
    if (validator) xmlSchemaFreeValidCtxt(validator);
    if (doc) xmlFreeDoc(doc);
    if (schema) xmlSchemaFree(schema);
    if (parser) xmlSchemaFreeParserCtxt(parser);
    return result;
}

int gambit_xml_check_well_formed(const char *path, char *messages, size_t messages_len) {
    messages[0] = '\0';
    xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
    if (doc == NULL) {
        const xmlError *e = xmlGetLastError();
        snprintf(messages, messages_len, "line %d: %s", e ? e->line : 0, e && e->message ? e->message : "?");
        return -1;
    }
    xmlFreeDoc(doc);
    return 0;
}
