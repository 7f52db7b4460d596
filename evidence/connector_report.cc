#include "evidence/connector_report.h"

namespace attrib::evidence {

const char* statusName(ConnectorReport::Status status) {
  switch (status) {
    case ConnectorReport::Status::Ok: return "ok";
    case ConnectorReport::Status::Empty: return "empty";
    case ConnectorReport::Status::Partial: return "partial";
    case ConnectorReport::Status::Error: return "error";
  }
  return "error";
}

}  // namespace attrib::evidence
