/* SPDX-License-Identifier: MIT */
/* http_json.h - a request body that must be one JSON value, strictly:
** well-formed UTF-8 (RFC 8259 section 8.1), one value, and nothing after
** it but blanks.  cJSON alone accepts trailing bytes ("{}garbage") and
** passes invalid UTF-8 through to whatever echoes the strings back, so
** every server here parses its bodies with this (a 400 otherwise).
** Header-only: sc_http itself does not link cJSON; its servers do. */
#ifndef SC_HTTP_JSON_H
#define SC_HTTP_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/utf8.h"

/* The parsed body, or NULL with *why a static reason. */
static inline cJSON *http_json_body(const char *b, size_t n, const char **why)
{
    if (!n) {
        *why = "the request body is empty";
        return NULL;
    }
    if (!utf8_valid((const unsigned char *)b, n, NULL)) {
        *why = "the request body is not valid UTF-8";
        return NULL;
    }
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(b, n, &end, false);
    if (!j) {
        *why = "the request body is not JSON";
        return NULL;
    }
    while (end && end < b + n && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
        end++;
    if (end != b + n) {
        cJSON_Delete(j);
        *why = "bytes after the JSON value in the request body";
        return NULL;
    }
    return j;
}

#endif
