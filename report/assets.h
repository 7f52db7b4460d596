// The style sheet and scripts of attrib's pages, inline in every page (no file is fetched).
// Each page's Content-Security-Policy admits exactly these texts by their SHA-256
// (contentSecurityPolicy), so a script that got into a page any other way would not run.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attrib::report {

extern const std::string_view kStyle;           // shared by the report and the dashboard
extern const std::string_view kTimelineScript;  // zoom and pan of the report's timeline
extern const std::string_view kTableFilterScript;  // the dashboard's filter box

// "default-src 'none'; style-src 'sha256-...'; script-src 'sha256-...' ...; img-src data:;
// form-action 'self'": nothing may be fetched, only the given inline style and scripts run.
std::string contentSecurityPolicy(std::string_view style, const std::vector<std::string_view>& scripts);

}  // namespace attrib::report
