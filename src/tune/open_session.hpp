// A session row that is recorded and not yet ended. A tune that an error stops (a full disk, a
// lost device) is ended as `failed`; when even that cannot be written, the session reads as
// abandoned once this process is gone (shown_outcome).
#pragma once

#include <cstdint>
#include <exception>
#include <string>

#include "store/store.hpp"

namespace mmtune {

class OpenSession {
 public:
  OpenSession(Store& store, std::int64_t id) : store_(store), id_(id) {}
  OpenSession(const OpenSession&) = delete;
  OpenSession& operator=(const OpenSession&) = delete;
  ~OpenSession() {
    if (ended_) return;
    try {
      store_.end_session(id_, "failed");
    } catch (const std::exception&) {  // the error on its way out says what went wrong
    }
  }

  void end(const std::string& outcome) {
    store_.end_session(id_, outcome);
    ended_ = true;
  }

 private:
  Store& store_;
  std::int64_t id_;
  bool ended_ = false;
};

}  // namespace mmtune
