// Imported data in the form the store takes (exchange/ reads and validates the files), and
// storing it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mmtune/device_info.hpp"
#include "mmtune/problem.hpp"
#include "store/store.hpp"

namespace mmtune {

// What an exchange file holds, validated and in the form the store takes. Session ids are the
// file's own; measurements refer to them (0: no session).
struct ImportedDevice {
  DeviceInfo info;
  std::string source;  // devices.source, e.g. "imported:mmtune", "imported:clblast"
};
struct ImportedSession {
  SessionRecord record;
  std::string host, mmtune_version;  // provenance (sessions.host, sessions.mmtune_version)
};
// A best of the file: which of its measurements (by the file's id) a kernel's best for a problem
// was, and since when. A tune's confirmation can make a best other than the fastest measurement.
struct ImportedBest {
  std::string device_key, kernel;
  GemmProblem problem;
  std::int64_t measurement = 0;
  std::string updated_at;
};
struct ImportData {
  std::string format;  // the file's format ("mmtune-export", "clblast", "kerneltuner", ...) as
                       // the import line names it, with how it was read where that differs
  std::vector<ImportedDevice> devices;
  std::vector<ImportedSession> sessions;
  std::vector<MeasurementRecord> measurements;  // id: the file's (0: none)
  std::vector<ImportedBest> bests;
  // The file carries no dates (CLBlast, Kernel Tuner): its rows are dated with the file's time,
  // which a copy or a `touch` changes, so a stored row is recognised without its date.
  bool dated_by_file = false;
};

struct ImportSummary {
  std::string format;
  std::size_t devices_added = 0, devices_known = 0;
  std::size_t sessions_added = 0, sessions_known = 0;
  std::size_t measurements_added = 0, measurements_known = 0;
  // Rows the file holds twice (e.g. Xgemm configurations that are one tiled kernel, with the
  // same time): stored once, and not "already stored" in a database that did not have them.
  std::size_t measurements_repeated = 0;
};

// Stores validated data in one transaction, skipping what the database already holds.
ImportSummary store_import(Store& store, const ImportData& data);

}  // namespace mmtune
