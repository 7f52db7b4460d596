// A connector that reaches into the runtime: check_layers.py must refuse it.
#pragma once
#include "runtime/log_scanner.h"
