#include "cmd_bench.hpp"

#include "stop_signals.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include "bench/bench.hpp"
#include "bench/roofline.hpp"
#include "core/cpu_load.hpp"
#include "core/json.hpp"
#include "core/text.hpp"
#include "exchange/exchange.hpp"
#include "mmtune/device.hpp"
#include "mmtune/error.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"
#include "store/store.hpp"

namespace mmtune::cli {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(sep, start), text.size());
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// "MxNxK": C is m x n, the inner dimension k.
GemmShape parse_shape(const std::string& text) {
  const auto parts = split(text, 'x');
  if (parts.size() != 3) {
    throw UsageError("--shape '" + text + "': expected MxNxK, e.g. 8x4096x4096");
  }
  return {cli::parse_size("--shape m", parts[0]), cli::parse_size("--shape n", parts[1]),
          cli::parse_size("--shape k", parts[2])};
}

// The shape column: n for a square problem, MxNxK otherwise, and the batch ("64 x1000").
std::string shape_text(const GemmProblem& p) {
  const std::string batch = p.batch != 1 ? " x" + std::to_string(p.batch) : "";
  if (p.m == p.n && p.n == p.k) return std::to_string(p.n) + batch;
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + batch;
}

int cmd_bench(const GlobalOptions& g, const DeviceOptions& dopt, const BenchCliOptions& o) {
  BenchOptions bo;
  bo.precision = static_cast<Precision>(o.precision);
  bo.baselines = !o.no_baselines;
  if (!o.batch.empty()) bo.batch = cli::parse_size("--batch", o.batch);
  if (o.squares) {
    for (const auto& n : split(o.sizes, ',')) {
      bo.shapes.push_back(GemmShape::square(cli::parse_size("--n", n)));
    }
  }
  if (!o.shapes.empty()) {
    for (const auto& text : split(o.shapes, ',')) bo.shapes.push_back(parse_shape(text));
  }
  // The given CLBlast tuner results for this precision, fastest first.
  std::vector<std::pair<double, BenchOptions::ClblastParameters>> clb;
  for (const auto& file : o.clblast_tuned) {
    ClblastTunerBest t;
    try {
      t = read_clblast_tuner_best(read_exchange_file(file), file);
    } catch (const UsageError& e) {
      throw UsageError("--clblast-tuned '" + file + "': " + e.what());
    }
    if (t.precision != o.precision) continue;
    clb.push_back({t.time_ms, {std::filesystem::path(file).filename().string(), t.parameters}});
  }
  if (!o.clblast_tuned.empty() && clb.empty()) {
    throw UsageError("--clblast-tuned: no file holds fp" + std::to_string(o.precision) +
                     " results");
  }
  // Files without a time after those with one.
  std::stable_sort(clb.begin(), clb.end(), [](const auto& x, const auto& y) {
    return std::isnan(y.first) ? !std::isnan(x.first) : x.first < y.first;
  });
  for (auto& t : clb) bo.clblast_tuned.push_back(std::move(t.second));
  // The device, its precision and every size are checked before the database is opened: a
  // refused command creates nothing.
  const auto devices = list_devices();
  const Device& device = select_device(devices, dopt.device, dopt.platform);
  check_bench_options(device, bo);
  const std::string db = database_path(o.db);
  Store store(db);
  const ParameterLookup lookup(db);
  spdlog::info("bench on [{}] {}: fp{}, CLBlast {}, host BLAS {}", device.info.index,
               device.info.name, o.precision, have_clblast() ? "yes" : "no",
               have_host_blas() ? "yes" : "no");
  if (const std::string w = host_blas_warning(); !w.empty() && device.info.is_cpu()) {
    spdlog::warn("host BLAS: {}", w);
  }
  // An interrupt ends the bench after the shape being measured: what was measured is stored
  // and printed, as a tune's.
  bo.stop = &stop_requested();
  const auto rows = [&] {
    const StopSignals stop_signals(g);
    return run_bench(device, store, lookup, bo, [&](const BenchRow& r) {
      spdlog::info("{} {}: {} {:.1f} GFLOPS", shape_text(r.problem), r.subject, r.status, r.gflops);
    });
  }();
  const int rc = stop_requested() ? kExitInterrupted : kExitOk;
  if (rc == kExitInterrupted) {
    spdlog::warn("interrupted: the sizes measured before are stored and shown");
  }
  // Once per shape (its rows share their rounds, so the first one's share is theirs).
  const BenchRow* told = nullptr;
  for (const BenchRow& r : rows) {
    if (!r.other_load || *r.other_load <= kBusyShare) continue;
    if (told && told->problem.m == r.problem.m && told->problem.n == r.problem.n &&
        told->problem.k == r.problem.k) {
      continue;
    }
    told = &r;
    spdlog::warn(
        "busy machine: other processes used {:.0f}% of the CPUs while {} was timed; its GFLOPS "
        "are likely low (the ratios of subjects timed in the same rounds hold)",
        100 * *r.other_load, shape_text(r.problem));
  }
  // Each row against its shape's tuned row (rows come shape by shape, the tuned one first).
  std::vector<GflopsRatio> vs_tuned(rows.size());
  const BenchRow* tuned = nullptr;
  const auto same_shape = [](const GemmProblem& x, const GemmProblem& y) {
    return x.m == y.m && x.n == y.n && x.k == y.k && x.batch == y.batch;
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BenchRow& r = rows[i];
    if (r.subject == "tuned") tuned = r.status == "Ok" ? &r : nullptr;
    if (tuned && r.status == "Ok" && same_shape(r.problem, tuned->problem)) {
      vs_tuned[i] = gflops_ratio(r, *tuned);
    }
  }
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    // A row not timed (or a kernel not timed alone) has no time or rate: null, not 0.
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const BenchRow& r = rows[i];
      out.push_back(
          {{"m", r.problem.m},
           {"n", r.problem.n},
           {"k", r.problem.k},
           {"batch", r.problem.batch},
           {"precision", o.precision},
           {"subject", r.subject},
           {"kernel", r.kernel},
           {"config", r.config},
           {"status", r.status},
           {"note", r.note},
           {"median_ms", figure_or_null(r.median_ms)},
           {"min_ms", figure_or_null(r.min_ms)},
           {"max_ms", figure_or_null(r.max_ms)},
           {"gflops", figure_or_null(r.gflops)},
           {"flops", r.flops()},
           {"kernel_median_ms", figure_or_null(r.kernel_median_ms)},
           {"kernel_gflops", figure_or_null(r.kernel_gflops)},
           {"samples_ms", r.samples_ms},
           {"round_ms", r.round_ms},
           // Untimed (or no tuned row to compare with): no ratio, not 0.
           {"vs_tuned",
            vs_tuned[i].value > 0 ? nlohmann::json(vs_tuned[i].value) : nlohmann::json()},
           {"vs_tuned_paired", vs_tuned[i].paired},
           {"other_load", r.other_load ? nlohmann::json(*r.other_load) : nlohmann::json()}});
    }
    std::cout << out.dump(2) << "\n";
    return rc;
  }
  std::printf(
      "Side by side on %s, fp%d (whole routine: wall clock per call; kernel: its event, or wall "
      "clock around a lone run where events are unusable; vs tuned: the median of the rounds' "
      "ratios, * the ratio of the medians for a subject timed apart)\n",
      device.info.name.c_str(), o.precision);
  std::printf("%14s  %-13s %9s  %-19s %8s %12s  %s\n", "n or MxNxK", "subject", "GFLOPS", "min-max",
              "vs tuned", "kernel only", "note");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BenchRow& r = rows[i];
    if (r.status != "Ok") {
      std::printf("%14s  %-13s %9s  %-19s %8s %12s  %s\n", shape_text(r.problem).c_str(),
                  r.subject.c_str(), r.status.c_str(), "", "", "", r.note.c_str());
      continue;
    }
    char range[40], ratio[16] = "", kernel[24] = "";
    std::snprintf(range, sizeof range, "%s-%s", rate_text(r.flops() / (r.max_ms * 1e6)).c_str(),
                  rate_text(r.flops() / (r.min_ms * 1e6)).c_str());
    if (vs_tuned[i].value > 0) {
      std::snprintf(ratio, sizeof ratio, "%.2fx%s", vs_tuned[i].value,
                    vs_tuned[i].paired ? "" : "*");
    }
    if (r.kernel_gflops > 0) {
      std::snprintf(kernel, sizeof kernel, "%s", rate_text(r.kernel_gflops).c_str());
    }
    std::printf("%14s  %-13s %9s  %-19s %8s %12s  %s\n", shape_text(r.problem).c_str(),
                r.subject.c_str(), rate_text(r.gflops).c_str(), range, ratio, kernel,
                r.note.c_str());
  }
  std::printf("Stored in %s\n", sql::redact_url(db).c_str());
  return rc;
}

int cmd_roofline(const DeviceOptions& dopt, int precision, const std::string& db_opt, bool json,
                 bool replace) {
  const std::string db = database_path(db_opt);
  // The device and its precision first: a refused command creates no database.
  const auto devices = list_devices();
  const Device& device = select_device(devices, dopt.device, dopt.platform);
  if (!device.info.supports(static_cast<Precision>(precision))) {
    throw NoDeviceError("device '" + device.info.name + "' has no fp" + std::to_string(precision) +
                        " support");
  }
  Store store(db);
  const Roofline r = measure_roofline(device, store, static_cast<Precision>(precision), replace);
  if (json) {
    std::cout << nlohmann::json{{"device", device.info.name},
                                {"precision", precision},
                                {"peak_gflops", r.peak_gflops},
                                {"bandwidth_gbs", r.bandwidth_gbs},
                                {"timing", r.timing},
                                {"stored_peak_gflops", r.stored_peak_gflops},
                                {"stored_bandwidth_gbs", r.stored_bandwidth_gbs},
                                {"other_load",
                                 r.other_load ? nlohmann::json(*r.other_load) : nlohmann::json()}}
                     .dump(2)
              << "\n";
  } else {
    std::printf(
        "%s, fp%d: peak %.1f GFLOPS, memory bandwidth %.1f GB/s (ridge at %.1f FLOP/byte); "
        "timed by %s\n",
        device.info.name.c_str(), precision, r.peak_gflops, r.bandwidth_gbs,
        r.peak_gflops / r.bandwidth_gbs, r.timing.c_str());
    if (r.stored_peak_gflops > r.peak_gflops || r.stored_bandwidth_gbs > r.bandwidth_gbs) {
      std::printf(
          "Stored roofs stay at the fastest measured: peak %.1f GFLOPS, bandwidth %.1f GB/s (this "
          "run was slower: a busy machine, or clocks that had not risen)\n",
          r.stored_peak_gflops, r.stored_bandwidth_gbs);
    }
  }
  if (r.other_load && *r.other_load > kBusyShare) {
    // Stored all the same: the fastest roofs measured are kept, so a later run raises them.
    spdlog::warn(
        "busy machine: other processes used {:.0f}% of the CPUs while the roofs were measured; "
        "they are likely low: run roofline again on an idle machine",
        100 * *r.other_load);
  }
  return kExitOk;
}

}  // namespace

void BenchCommands::add(CLI::App& app) {
  bench = app.add_subcommand(
      "bench",
      "benchmark the tuned routine against defaults, baselines, CLBlast and the host BLAS");
  add_device_options(bench, bench_dev);
  bench_sizes = bench
                    ->add_option("--n", bench_opt.sizes,
                                 "square sizes, comma-separated (not run when only "
                                 "--shape is given)")
                    ->capture_default_str();
  bench->add_option("--shape", bench_opt.shapes,
                    "other shapes MxNxK (C is MxN, inner dimension K), comma-separated, e.g. "
                    "8x4096x4096,4096x1x4096");
  bench
      ->add_option("--batch", bench_opt.batch,
                   "multiplications per call, matrices back to back (a strided-batched GEMM; "
                   "the host BLAS loops, CLBlast runs GemmStridedBatched)")
      ->check(cli::positive_integer());
  bench->add_option("--precision", bench_opt.precision, "bits: 16, 32 or 64")
      ->check(CLI::IsMember({16, 32, 64}))
      ->capture_default_str();
  bench->add_option("--db", bench_opt.db, "tuning database (tuned parameters; rows are stored)");
  bench->add_flag("--json", bench_opt.json, "print JSON");
  bench->add_flag("--no-baselines", bench_opt.no_baselines,
                  "skip the naive and classic kernels (a single call of the naive one takes "
                  "minutes at n = 4096 on a CPU)");
  bench->add_option("--clblast-tuned", bench_opt.clblast_tuned,
                    "clblast_tuner_xgemm JSON files: also run CLBlast with the fastest of their "
                    "best parameters (clblast::OverrideParameters)");

  roofline =
      app.add_subcommand("roofline", "measure the device's peak GFLOPS and memory bandwidth");
  add_device_options(roofline, roof_dev);
  roofline->add_option("--precision", roof_precision, "bits: 16, 32 or 64")
      ->check(CLI::IsMember({16, 32, 64}))
      ->capture_default_str();
  roofline->add_option("--db", roof_db, "tuning database (the roofs are stored)");
  roofline->add_flag("--json", roof_json, "print JSON");
  roofline->add_flag("--replace", roof_replace,
                     "store this run's roofs even where slower than those stored (by default a "
                     "roof is the fastest measured)");
}

int BenchCommands::run(const GlobalOptions& g) const {
  if (bench->parsed()) {
    BenchCliOptions o = bench_opt;
    if (bench->count("--shape") > 0 && o.shapes.empty()) {
      throw UsageError("--shape needs one or more shapes MxNxK");
    }
    o.squares = bench_sizes->count() > 0 || o.shapes.empty();
    return cmd_bench(g, bench_dev, o);
  }
  if (roofline->parsed()) {
    return cmd_roofline(roof_dev, roof_precision, roof_db, roof_json, roof_replace);
  }
  return -1;
}

}  // namespace mmtune::cli
