// A session of a small tune, for tests that store sessions by hand.
#pragma once

#include "store/store.hpp"

namespace mmtune::test {

inline SessionRecord small_session(const DeviceInfo& dev) {
  SessionRecord session;
  session.device_key = dev.key;
  session.command_line = "mmtune --n 64";
  session.strategy = "random", session.kernels = "tiled", session.space = "quick";
  session.problem.m = session.problem.n = session.problem.k = 64;
  return session;
}

}  // namespace mmtune::test
