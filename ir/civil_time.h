// Proleptic Gregorian calendar arithmetic on the IR's time values (nanoseconds since the Unix
// epoch, UTC), shared by the compiler (timestamp literals) and the runtime (log prefixes,
// verdicts) so that both read and print times the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace attrib {

// Whether month m (1-12) of year y has a day d.
bool validDate(int64_t y, int64_t m, int64_t d);

// Days since 1970-01-01 of year y, month m (1-12), day d (1-31). The date must be valid.
int64_t daysFromCivil(int64_t y, unsigned m, unsigned d);

// The inverse of daysFromCivil, for any day count.
void civilFromDays(int64_t days, int64_t& y, unsigned& m, unsigned& d);

// RFC 3339 in UTC with the shortest exact fraction: 2026-01-01T10:42:00.25Z.
std::string formatTimestamp(int64_t nanosSinceEpoch);

// An RFC 3339 time (2024-11-29T20:28:31Z, with an optional fraction and offset), as Kubernetes,
// the Service's clients and command lines write it; nullopt when it is not one.
std::optional<int64_t> parseRfc3339(const std::string& text);

}  // namespace attrib
