// Exceptions for setup errors and misuse. A kernel variant's own failure is never an exception:
// it is a Status value (see status.hpp).
#pragma once

#include <stdexcept>
#include <string>

namespace mmtune {

// Process exit codes, documented in README.md.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,
  kExitUsage = 2,
  kExitNoDevice = 3,
  kExitStorage = 4,  // the database could not be written: disk full, I/O error
  kExitInterrupted = 130,
};

// `text` on one line: line breaks and tabs as spaces (a driver's or libpq's message spans lines),
// every other ASCII control character (escape, ...) as '?': text quoted from a file or the user
// cannot break a message into lines or drive a terminal.
inline std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') {
      c = ' ';
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      c = '?';
    }
  }
  return text;
}

// Any mmtune error; the message is one line meant for the user.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, int exit_code = kExitFailure)
      : std::runtime_error(one_line(what)), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// Bad options or input values.
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(what, kExitUsage) {}
};

// No OpenCL platform or device, or a device that cannot do what was asked.
class NoDeviceError : public Error {
 public:
  explicit NoDeviceError(const std::string& what) : Error(what, kExitNoDevice) {}
};

// An OpenCL call failed (e.g. out of resources, an invalid event in a wait list): the OpenCL
// error code is kept for callers that map it (the CLBlast-compatible entry point does).
class OpenCLError : public Error {
 public:
  OpenCLError(const std::string& what, int cl_code) : Error(what), cl_code_(cl_code) {}
  int cl_code() const { return cl_code_; }

 private:
  int cl_code_;
};

// The database could not be written (disk full, size limit, I/O error). What was committed
// before stays intact: every write is one transaction.
class StorageError : public Error {
 public:
  explicit StorageError(const std::string& what) : Error(what, kExitStorage) {}
};

}  // namespace mmtune
