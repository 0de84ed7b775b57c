// The device's roofs for the roofline model: peak arithmetic throughput and global memory
// bandwidth, each measured with a small kernel (kernels/roofline.cl) and stored per precision.
#pragma once

#include <optional>
#include <string>

#include "mmtune/device.hpp"
#include "store/store.hpp"

namespace mmtune {

struct Roofline {
  double peak_gflops = 0.0;    // best of several runs of the multiply-add kernel
  double bandwidth_gbs = 0.0;  // best of several runs of the copy kernel (bytes read + written)
  std::string timing;          // "events", or "wall clock (why the events are unusable)"
  // Other processes' share of the CPUs while the roofs were measured (core/cpu_load.hpp); none
  // where /proc cannot be read. Above kBusyShare the roofs are likely low.
  std::optional<double> other_load;
  // The roofs stored after this run: the fastest measured so far (rows::put_roof).
  double stored_peak_gflops = 0.0, stored_bandwidth_gbs = 0.0;
};

// Measures both roofs on the device (a few seconds) and stores them in the `roofline` table:
// the fastest measured, or these (`replace`: after a wrong measurement, a new driver).
Roofline measure_roofline(const Device& device, Store& store, Precision precision,
                          bool replace = false);

}  // namespace mmtune
