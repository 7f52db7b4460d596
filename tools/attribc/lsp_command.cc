#include <unistd.h>

#include "tools/attribc/commands.h"
#include "tools/attribc/lsp_server.h"
#include "tools/attribc/lsp_transport.h"

namespace attrib::tools {

int runLsp(const LspOptions& options) {
  LspTransport transport(STDIN_FILENO, STDOUT_FILENO);
  LspServerOptions server;
  server.stdlib = !options.noStdlib;
  server.stdlibDir = options.stdlibDir;
  return LspServer(transport, server).run();
}

}  // namespace attrib::tools
