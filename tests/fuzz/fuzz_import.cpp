// libFuzzer target: `mmtune import` of arbitrary bytes (mmtune JSON or a CLBlast tuner file)
// into an in-memory database. Rejected input must be a UsageError; anything else (another
// exception, a crash, a sanitizer report) is a bug. Accepted input must import idempotently.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "exchange/exchange.hpp"
#include "mmtune/error.hpp"
#include "store/store.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static mmtune::Store store(":memory:");
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    mmtune::import_text(store, text, "fuzz.json", "2024-01-01T00:00:00Z");
  } catch (const mmtune::UsageError&) {
    return 0;  // refused with a message: the expected outcome for most inputs
  }
  // Importing the same file again adds nothing.
  const auto again = mmtune::import_text(store, text, "fuzz.json", "2024-01-01T00:00:00Z");
  if (again.measurements_added != 0) std::abort();
  return 0;
}
