#include "connectors/http/curl_api.h"

#include <dlfcn.h>

#include <mutex>

namespace attrib::connectors::http {

const CurlApi* curlApi(std::string* error) {
  static std::once_flag once;
  static CurlApi api;
  static const CurlApi* loaded = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    // The soname of libcurl's ABI since 7.16 (2006).
    void* lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      failure = std::string("cannot load libcurl for the HTTP connectors: ") + (why ? why : "libcurl.so.4");
      return;
    }
    bool complete = true;
    auto bind = [&](auto* slot, const char* name) {
      void* symbol = dlsym(lib, name);
      if (!symbol) {
        failure = std::string("libcurl.so.4 has no ") + name;
        complete = false;
      }
      *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(symbol);
    };
    bind(&api.global_init, "curl_global_init");
    bind(&api.easy_init, "curl_easy_init");
    bind(&api.easy_setopt, "curl_easy_setopt");
    bind(&api.easy_perform, "curl_easy_perform");
    bind(&api.easy_getinfo, "curl_easy_getinfo");
    bind(&api.easy_strerror, "curl_easy_strerror");
    bind(&api.easy_cleanup, "curl_easy_cleanup");
    bind(&api.slist_append, "curl_slist_append");
    bind(&api.slist_free_all, "curl_slist_free_all");
    if (!complete) return;  // the handle stays open: harmless, and dlclose could unload TLS state
    if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      failure = "libcurl could not initialise itself";
      return;
    }
    loaded = &api;
  });
  if (!loaded && error) *error = failure;
  return loaded;
}

}  // namespace attrib::connectors::http
