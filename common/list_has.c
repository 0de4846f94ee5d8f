/* Membership in a list of names in one string, as environment variables and settings hold them. */
#include <string.h>

#include "common.h"

bool list_has(const char *list, char separator, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; n && p && *p;) {
        size_t len = strcspn(p, (const char[]){separator, '\0'});
        if (len == n && strncmp(p, item, n) == 0) {
            return true;
        }
        p += len + (p[len] == separator);
    }
    return false;
}
