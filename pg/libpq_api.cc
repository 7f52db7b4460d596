#include "pg/libpq_api.h"

#include <dlfcn.h>

#include <mutex>
#include <type_traits>

namespace attrib::pg {

const LibpqApi* libpqApi(std::string* error) {
  static std::once_flag once;
  static LibpqApi api;
  static const LibpqApi* loaded = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    // The soname of libpq's ABI since PostgreSQL 8.0.
    void* lib = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      failure = std::string("cannot load libpq for PostgreSQL: ") + (why ? why : "libpq.so.5");
      return;
    }
    bool complete = true;
    auto bind = [&](auto* slot, const char* name) {
      void* symbol = dlsym(lib, name);
      if (!symbol) {
        failure = std::string("libpq.so.5 has no ") + name;
        complete = false;
      }
      *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(symbol);
    };
#define ATTRIB_BIND(name) bind(&api.name, #name)
    ATTRIB_BIND(PQconninfoParse);
    ATTRIB_BIND(PQconninfoFree);
    ATTRIB_BIND(PQfreemem);
    ATTRIB_BIND(PQconnectdbParams);
    ATTRIB_BIND(PQstatus);
    ATTRIB_BIND(PQerrorMessage);
    ATTRIB_BIND(PQfinish);
    ATTRIB_BIND(PQreset);
    ATTRIB_BIND(PQexec);
    ATTRIB_BIND(PQexecParams);
    ATTRIB_BIND(PQresultStatus);
    ATTRIB_BIND(PQresultErrorField);
    ATTRIB_BIND(PQresultErrorMessage);
    ATTRIB_BIND(PQclear);
    ATTRIB_BIND(PQntuples);
    ATTRIB_BIND(PQgetisnull);
    ATTRIB_BIND(PQgetvalue);
    ATTRIB_BIND(PQgetlength);
    ATTRIB_BIND(PQcmdTuples);
#undef ATTRIB_BIND
    if (complete) loaded = &api;
  });
  if (!loaded && error) *error = failure;
  return loaded;
}

}  // namespace attrib::pg
