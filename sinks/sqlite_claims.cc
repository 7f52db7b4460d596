#include "sinks/sqlite_claims.h"

namespace attrib::sinks {

bool SqliteClaims::pending(const std::vector<std::string>& ids, const std::string& digest, std::vector<std::string>* out,
                           std::string*) {
  out->clear();
  for (const auto& id : ids) {
    if (!sink_.contains(id, digest)) out->push_back(id);
  }
  return true;
}

bool SqliteClaims::claim(const std::vector<std::string>& candidates, const std::string& digest, std::vector<Claim>* out,
                         std::string*) {
  out->clear();
  for (const auto& id : candidates) out->push_back({id, digest, 0});
  return true;
}

bool SqliteClaims::complete(const runtime::Verdict& verdict, const Claim&, std::string* error) {
  return sink_.write(verdict, error);
}

}  // namespace attrib::sinks
