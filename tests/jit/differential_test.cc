// Placeholder replaced by the differential generator.
#include <gtest/gtest.h>
