// Command-line parsing shared by attrib and attribc: help and version requests end the program
// with CLI11's output; a usage error ends it with one line and exit status 2.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <optional>

namespace attrib::tools {

// nullopt: go on and run the command; otherwise the exit status to stop with.
inline std::optional<int> parseCommandLine(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "{}: error: {}; run '{} --help'\n", app.get_name(), e.what(), app.get_name());
    return 2;
  }
  return std::nullopt;
}

}  // namespace attrib::tools
