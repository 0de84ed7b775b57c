// Shared by the store's own files (schema.cpp, store.cpp).
#pragma once

namespace mmtune {

// A positive integer from a test-only environment variable, or 0 when unset or malformed.
long test_switch(const char* name);

}  // namespace mmtune
