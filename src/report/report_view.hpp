// The report's analysis: views derived from the rows (latest bench per subject, best per
// problem, roofs, sessions) and the sections built from them (report_view.cpp, report_device.cpp,
// report_compare.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "report/report_data.hpp"
#include "report/report_document.hpp"
#include "report/report_format.hpp"

namespace mmtune::report_detail {

// One figure per configuration, in the order first measured: the median of its measurements'
// `value`. A configuration measured again (the drift reference, the finalists) counts once.
std::vector<std::pair<std::string, double>> per_configuration(
    const std::vector<const MeasRow*>& rows, const std::function<double(const MeasRow&)>& value);

class Report {
 public:
  explicit Report(Data d) : d_(std::move(d)) {
    label_untuned();
    for (const auto& b : d_.bench) {
      const auto k = std::make_tuple(b.key, b.subject, pkey(b.p));
      const auto it = latest_.find(k);
      if (it == latest_.end() || it->second->id < b.id) latest_[k] = &b;
    }
    for (const auto& b : d_.best) {
      if (!is_tuned_kernel(b.kernel)) continue;
      const auto k = std::make_pair(b.key, pkey(b.p));
      const auto it = best_of_.find(k);
      if (it == best_of_.end() || b.median_ms < it->second->median_ms) best_of_[k] = &b;
    }
    for (const auto& r : d_.roof) roof_[{r.key, r.precision}] = &r;
    for (const auto& m : d_.meas) {
      if (m.session_id) by_session_[m.session_id].push_back(&m);
      meas_by_id_[m.id] = &m;
    }
  }

  void build(Doc& doc);
  const Data& data() const { return d_; }

 private:
  // Built-in defaults measured as the "tuned" subject (a bench before the device was tuned): a
  // subject of their own where they are the latest tuned run of their problem, or the tables,
  // the roofline and the comparison across devices call them tuned. A later tuned run replaces
  // them as before.
  void label_untuned() {
    std::map<std::pair<std::string, ProblemKey>, BenchRow*> latest_tuned;
    for (auto& b : d_.bench) {
      if (b.subject != "tuned") continue;
      BenchRow*& at = latest_tuned[{b.key, pkey(b.p)}];
      if (!at || at->id < b.id) at = &b;
    }
    for (auto& [k, b] : latest_tuned) {
      // The bench adds to the note what else it saw ("; busy machine: ...").
      if (b->note.starts_with(rows::kBuiltInDefaultsNote)) b->subject = kUntunedSubject;
    }
  }

  struct Tuned {
    double gflops;
    std::string source;  // "bench" or "tuning"
  };
  struct Spread {
    std::string name;
    std::size_t values = 0;
    double spread = 1, best_median = 0, worst_median = 0;
    int best_value = 0, worst_value = 0;
  };
  struct Importance {
    std::string kernel;
    GemmProblem p;
    std::size_t measurements = 0, configurations = 0;
    std::vector<Spread> params;  // most influential first
  };

  // A device's name, with its driver where another device shares the name (a driver upgrade,
  // an import of the same model), and its key where even the driver is shared.
  std::string distinct_name(const DeviceRow& dev) const {
    const auto sharing = [&](bool driver_too) {
      return std::count_if(d_.devices.begin(), d_.devices.end(), [&](const DeviceRow& d) {
        return d.name == dev.name && (!driver_too || d.driver == dev.driver);
      });
    };
    if (sharing(false) < 2) return dev.name;
    const std::string named = dev.name + " (driver " + dev.driver + ")";
    return sharing(true) < 2 ? named : named + " " + dev.key;
  }
  std::string display_name(const DeviceRow& dev) const {
    return distinct_name(dev) + (dev.imported() ? " (imported)" : "");
  }
  const RoofRow* roof(const std::string& key, int precision) const {
    const auto it = roof_.find({key, precision});
    return it == roof_.end() ? nullptr : it->second;
  }
  std::vector<const BenchRow*> latest_bench(const std::string& key, int precision) const;
  std::vector<const BestRow*> bests(const std::string& key) const;
  std::optional<Tuned> tuned(const std::string& key, const GemmProblem& p) const;
  Importance importance(const std::string& key) const;

  void overview(Doc& doc);
  void device_section(Doc& doc, const DeviceRow& dev, std::size_t index);
  void performance(Doc& doc, const DeviceRow& dev, const std::string& tag);
  void best_table(Doc& doc, const DeviceRow& dev);
  // "spread 4%, others 48% CPU": how much a measurement's figures can be trusted.
  std::string noise(std::int64_t measurement_id) const;
  void roofline(Doc& doc, const DeviceRow& dev, const std::string& tag);
  void sessions(Doc& doc, const DeviceRow& dev, const std::string& tag);
  void parameters(Doc& doc, const DeviceRow& dev, const std::string& tag);
  void replays(Doc& doc, const DeviceRow& dev, const std::string& tag);
  // Kernels other than the GEMM families, measured from spec files or imported as recorded
  // (Kernel Tuner caches): one section each, of their bests and which parameters matter.
  struct OtherKernels {
    const char* prefix;   // of their stored names: "spec:", "kt:"
    const char* heading;  // the section's
    const char* note;     // under its table
  };
  void other_kernels(Doc& doc, const DeviceRow& dev, const OtherKernels& kind);
  void comparison(Doc& doc);
  void implementations(Doc& doc);

  Data d_;
  std::map<std::tuple<std::string, std::string, ProblemKey>, const BenchRow*> latest_;
  std::map<std::pair<std::string, ProblemKey>, const BestRow*> best_of_;
  std::map<std::pair<std::string, int>, const RoofRow*> roof_;
  std::map<std::int64_t, std::vector<const MeasRow*>> by_session_;
  std::map<std::int64_t, const MeasRow*> meas_by_id_;
};

}  // namespace mmtune::report_detail
