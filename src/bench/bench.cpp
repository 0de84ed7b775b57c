#include "bench/bench.hpp"
#include "store/queries.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "bench/bench_backends.hpp"
#include "core/cpu_load.hpp"
#include "core/measurement.hpp"
#include "mmtune/error.hpp"
#include "opencl/calibration.hpp"
#include "opencl/gemm_routine.hpp"
#include "opencl/host_data.hpp"
#include "opencl/program_cache.hpp"
#include "opencl/reference.hpp"

namespace mmtune {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// A row without measurements: a subject that failed or is not available.
BenchRow unmeasured(const std::string& subject, const GemmProblem& p, const char* status,
                    const std::string& note) {
  BenchRow row;
  row.subject = subject;
  row.problem = p;
  row.status = status;
  row.note = note;
  return row;
}

GemmProblem problem_of(const GemmShape& shape, const BenchOptions& o) {
  GemmProblem p;
  p.m = shape.m, p.n = shape.n, p.k = shape.k;
  p.precision = o.precision;
  p.batch = o.batch;
  return p;
}

constexpr const char* kPeakSubject = "fma-peak";
constexpr const char* kPeakNote =
    "the device's multiply-add peak kernel (roofline.cl), timed in the same rounds";

constexpr const char* kWallClockNote =
    "kernel alone by wall clock around a lone run (the device's event timestamps are unusable)";

}  // namespace

void time_side_by_side(const std::vector<TimedSubject>& subjects, const BenchOptions& o) {
  const double limit_ms = o.max_seconds * 1e3;
  std::vector<std::vector<double>> kernel(subjects.size());
  std::vector<double> total(subjects.size(), 0.0);
  std::vector<int> rounds(subjects.size(), 0);
  std::vector<bool> done(subjects.size(), false);
  for (bool any = true; any;) {
    any = false;
    for (std::size_t i = 0; i < subjects.size(); ++i) {
      if (done[i]) continue;
      any = true;
      BenchRow& row = *subjects[i].row;
      // Timed warm: a lone call after the other subjects' starts cold (caches, clocks, sleeping
      // threads) and ran at half the speed of the next one (512^3 on a 2-core AMD EPYC: tuned 72
      // vs 147 GFLOPS, OpenBLAS 117 vs 180). A call over kWarmUpBelowMs needs no warm-up.
      if (!row.samples_ms.empty() && row.samples_ms.back() < kWarmUpBelowMs) subjects[i].call();
      // A short call is timed back to back for kTurnMs: alone after a warm-up it ran slower than
      // in a user's loop (512^3 tuned, 2-core Zen 5: 332-370 GFLOPS in six benches of ten
      // samples, 379-409 in four with turns, 413 in its tune's repeated runs).
      double turn_ms = 0;
      const std::size_t first = row.samples_ms.size();
      do {
        const auto [wall, k] = subjects[i].call();
        row.samples_ms.push_back(wall);
        if (k > 0) kernel[i].push_back(k);
        total[i] += wall;
        turn_ms += wall;
      } while (turn_ms < kTurnMs && row.samples_ms.size() - first < kMaxCallsPerTurn);
      if (subjects.size() > 1) {
        row.round_ms.push_back(
            median({row.samples_ms.begin() + std::ptrdiff_t(first), row.samples_ms.end()}));
      }
      const int n = ++rounds[i];
      done[i] = n >= o.max_rounds || (n >= o.min_rounds && total[i] >= limit_ms) ||
                (n == 1 && turn_ms > limit_ms);
    }
  }
  for (std::size_t i = 0; i < subjects.size(); ++i) {
    BenchRow& row = *subjects[i].row;
    if (row.samples_ms.empty()) continue;
    row.median_ms = median(row.samples_ms);
    row.min_ms = *std::min_element(row.samples_ms.begin(), row.samples_ms.end());
    row.max_ms = *std::max_element(row.samples_ms.begin(), row.samples_ms.end());
    row.gflops = row.flops() / (row.median_ms * 1e6);
    if (!kernel[i].empty()) {
      row.kernel_median_ms = median(kernel[i]);
      row.kernel_gflops = row.flops() / (row.kernel_median_ms * 1e6);
    }
  }
}

GflopsRatio gflops_ratio(const BenchRow& a, const BenchRow& b) {
  const std::size_t rounds = std::min(a.round_ms.size(), b.round_ms.size());
  if (rounds == 0) {
    const bool timed = a.gflops > 0 && b.gflops > 0;
    return {timed ? a.gflops / b.gflops : 0.0, false};
  }
  std::vector<double> r(rounds);
  for (std::size_t i = 0; i < rounds; ++i) {
    r[i] = (a.flops() / a.round_ms[i]) / (b.flops() / b.round_ms[i]);
  }
  return {median_ratio(std::move(r)), true};
}

namespace {

void store_row(Store& store, const std::string& key, const std::string& run_id, const BenchRow& r) {
  const bool timed = !r.samples_ms.empty();
  const auto opt = [&](double v) {
    return timed && v > 0 ? std::optional<double>(v) : std::nullopt;
  };
  rows::Bench row;
  row.key = key, row.run_id = run_id, row.subject = r.subject, row.kernel = r.kernel;
  row.config = r.config, row.p = r.problem, row.status = r.status, row.note = r.note;
  row.median_ms = opt(r.median_ms), row.min_ms = opt(r.min_ms), row.max_ms = opt(r.max_ms);
  row.gflops = opt(r.gflops), row.kernel_median_ms = opt(r.kernel_median_ms);
  row.kernel_gflops = opt(r.kernel_gflops);
  rows::add_bench(store, row);
}

}  // namespace

bool have_clblast() {
  return bench_detail::clblast_available();
}
bool have_host_blas() {
  return bench_detail::host_blas_available();
}
std::string host_blas_warning() {
  return bench_detail::host_blas_warning();
}

void check_bench_options(const Device& device, const BenchOptions& o) {
  if (!device.info.supports(o.precision)) {
    throw NoDeviceError("device '" + device.info.name + "' has no fp" + to_string(o.precision) +
                        " support");
  }
  for (const GemmShape& shape : o.shapes) {
    const GemmProblem p = problem_of(shape, o);
    check_fits(p, device.info);
    validate(p);
  }
}

std::vector<BenchRow> run_bench(const Device& device, Store& store, const ParameterLookup& lookup,
                                const BenchOptions& o,
                                const std::function<void(const BenchRow&)>& progress) {
  // Every shape is checked before anything runs or is stored (a bad last shape used to stop the
  // run after the first ones were measured).
  check_bench_options(device, o);
  store.upsert_device(device.info);
  const std::string run_id = now_utc() + "-" + std::to_string(::getpid());
  cl::Context context(device.device);
  cl::CommandQueue queue(context, device.device, CL_QUEUE_PROFILING_ENABLE);
  const KernelSources sources;
  ProgramCache cache(context, device.device, device.info.key, ProgramCache::default_disk_dir());
  GemmRoutine routine(sources, cache, device.info);
  const auto measure_peak = [&] {
    return calibrate(context, queue, cache, device.info, o.precision, sources,
                     ProgramCache::default_disk_dir());
  };
  Calibration calibration = measure_peak();
  const bool events = calibration.events.usable;
  PeakLaunch peak(context, cache, device.info, o.precision, sources);
  peak.grow(queue);
  std::vector<BenchRow> rows;
  std::map<std::string, int> clblast_defaults;  // CLBlast's own Xgemm parameters, once read

  for (const GemmShape& shape : o.shapes) {
    if (o.stop && *o.stop) break;
    CpuLoad load(0.2);  // other processes' use of the CPUs while this size is measured
    load.sample(-1);
    const GemmProblem p = problem_of(shape, o);
    const Operands in = random_operands(p, 1);
    const Reference ref = reference_gemm(p, in);
    const auto a_bytes = to_bytes(in.a, p.precision), b_bytes = to_bytes(in.b, p.precision);
    const auto c_bytes = to_bytes(in.c, p.precision);
    cl::Buffer a(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a_bytes.size(),
                 const_cast<unsigned char*>(a_bytes.data()));
    cl::Buffer b(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b_bytes.size(),
                 const_cast<unsigned char*>(b_bytes.data()));
    cl::Buffer c(context, CL_MEM_READ_WRITE, c_bytes.size());
    // Every subject's warm-up call starts from the same C and its result is checked against the
    // reference; a wrong result is not timed.
    const auto warm_up_and_verify = [&](BenchRow& row, const std::function<bool()>& call) {
      queue.enqueueWriteBuffer(c, CL_TRUE, 0, c_bytes.size(), c_bytes.data());
      if (!call()) return false;
      std::vector<unsigned char> got(c_bytes.size());
      queue.enqueueReadBuffer(c, CL_TRUE, 0, got.size(), got.data());
      const Verdict v = verify(p, ref, from_bytes(got, p.precision), in.c);
      if (!v.ok) row.status = "WrongResult", row.note = v.message;
      return v.ok;
    };
    // Rounds, with other processes' share of the CPUs while they ran (each row's other_load):
    // over the rounds, or where they took under the window (a small size's CLBlast), from
    // further back in this size's work.
    const auto timed_with_load = [&](const std::vector<TimedSubject>& subjects) {
      load.sample(-1);
      time_side_by_side(subjects, o);
      const auto share = load.sample(-1);
      for (const TimedSubject& t : subjects) t.row->other_load = share;
    };
    const auto finish = [&](BenchRow row) {
      // The host BLAS does not run on the device, so the device's peak does not bound it.
      for (double g : {row.gflops, row.kernel_gflops}) {
        if (row.subject == "host-blas" || row.status != "Ok") continue;
        const std::string why = judge_gflops(g, calibration, measure_peak);
        if (!why.empty()) {
          row.status = "MeasurementError";
          row.note = why;
        }
      }
      if (row.status == "Ok" && row.other_load && *row.other_load > kBusyShare) {
        // In the note, which is stored: the report's latest bench shows it too.
        row.note += std::string(row.note.empty() ? "" : "; ") + "busy machine: others used " +
                    std::to_string(int(std::lround(100 * *row.other_load))) + "% of the CPUs";
      }
      store_row(store, device.info.key, run_id, row);
      if (progress) progress(row);
      rows.push_back(row);
    };

    const TunedParameters tuned = lookup.lookup(device.info, p);
    struct Subject {
      std::string name;
      KernelConfig config;
      std::string note;
    };
    std::vector<Subject> ours = {
        {"tuned", tuned.config,
         tuned.source == LookupSource::kDefault
             ? rows::kBuiltInDefaultsNote
             : std::string("parameters: ") + to_string(tuned.source) +
                   (tuned.source == LookupSource::kExact
                        ? ""
                        : " (" + std::to_string(tuned.m) + "x" + std::to_string(tuned.n) + "x" +
                              std::to_string(tuned.k) +
                              (tuned.batch != 1 ? " batch " + std::to_string(tuned.batch) : "") +
                              ")")},
        {"default", default_config(KernelKind::kTiled), "the tiled kernel's #ifndef defaults"},
        {kernel_name(KernelKind::kNaive), NaiveConfig{}, ""},
        {kernel_name(KernelKind::kClassic), ClassicConfig{16}, ""},
    };
    if (!o.baselines) ours.resize(2);
    // mmtune's subjects and the host BLAS are timed together, in rounds (time_side_by_side).
    std::vector<BenchRow> mine(ours.size());
    std::vector<TimedSubject> together;
    for (std::size_t i = 0; i < ours.size(); ++i) {
      const Subject& s = ours[i];
      BenchRow& row = mine[i];
      row.subject = s.name;
      row.kernel = kernel_name(kind_of(s.config));
      row.config = to_string(s.config);
      row.note = s.note;
      row.problem = p;
      row.status = "Ok";
      // What the device cannot launch (a work-group over its largest) is a row, as in a tune:
      // the launch failed with CL_INVALID_WORK_GROUP_SIZE and ended the whole bench.
      if (const auto over = limit_violations(s.config, device.info, p.precision); !over.empty()) {
        row.status = "ExceedsLimits";
        row.note = over.front();
        continue;
      }
      const auto built = routine.prepare(s.config, p);
      if (!built.ok) {
        row.status = "Failed";
        row.note = "build failed: " + built.log.substr(0, 200);
        continue;
      }
      if (!events) row.note += std::string(row.note.empty() ? "" : "; ") + kWallClockNote;
      const auto call = [&routine, &queue, &p, &s, &a, &b, &c, events] {
        const auto t0 = Clock::now();
        auto ev = routine.enqueue(queue, p, s.config, {&a}, {&b}, {&c});
        // Its events, as the tuner's runner waits: rusticl's clFinish returned before the GEMM
        // was done (a routine time a tenth of its kernel's alone).
        cl::Event::waitForEvents(ev.events);
        const double wall = ms_since(t0);
        const double kernel = main_kernel_ms(queue, ev, events);  // NaN: a batch item by item
        return std::pair{wall, std::isnan(kernel) ? 0.0 : kernel};
      };
      if (warm_up_and_verify(row, [&] { return call(), true; })) together.push_back({&row, call});
    }

    // The peak kernel in the same rounds: the share of it a GEMM reaches does not depend on how
    // fast the machine was when `mmtune roofline` ran (a third apart within minutes).
    BenchRow peak_row = unmeasured(kPeakSubject, p, "Ok", kPeakNote);
    peak_row.kernel = "peak_flops";
    peak_row.call_flops = peak.flops();
    together.push_back({&peak_row, [&] {
                          const double wall = peak.run(queue).wall_ms;
                          return std::pair{wall, 0.0};
                        }});

    BenchRow host;
    host.subject = "host-blas";
    host.problem = p;
    std::vector<unsigned char> host_c = c_bytes;
    std::string host_error;
    if (!bench_detail::host_blas_available()) {
      host.status = "NotAvailable";
      host.note = "built without a CBLAS";
    } else if (p.precision == Precision::kHalf) {
      host.status = "NotAvailable";
      host.note = "CBLAS has no fp16 GEMM";
    } else if (!device.info.is_cpu()) {
      host.status = "NotAvailable";
      host.note = "the device is not the host CPU";
    } else {
      host.status = "Ok";
      host.note = "CBLAS on the host: " + bench_detail::host_blas_name();
      const std::string warning = host_blas_warning();
      if (!warning.empty()) host.note += "; " + warning;
      if (!bench_detail::host_gemm(p, a_bytes, b_bytes, host_c, host_error)) {
        host = unmeasured("host-blas", p, "Failed", host_error);
      } else if (const Verdict v = verify(p, ref, from_bytes(host_c, p.precision), in.c); !v.ok) {
        host.status = "WrongResult", host.note = v.message;
      } else {
        together.push_back({&host, [&] {
                              const auto t0 = Clock::now();
                              bench_detail::host_gemm(p, a_bytes, b_bytes, host_c, host_error);
                              return std::pair{ms_since(t0), 0.0};
                            }});
      }
    }
    timed_with_load(together);
    for (const BenchRow& row : mine) finish(row);
    finish(peak_row);

    // CLBlast's whole GEMM routine with the Xgemm parameters in force. Changing them rebuilds
    // CLBlast's kernels, so each parameter set is timed on its own.
    const auto run_clblast = [&](const char* subject, const std::string& note) -> BenchRow {
      BenchRow row;
      row.subject = subject;
      row.problem = p;
      row.status = "Ok";
      row.note = note;
      std::string error;
      const auto call = [&] { return bench_detail::clblast_gemm(queue, p, a, b, c, error); };
      if (!warm_up_and_verify(row, call)) {
        return error.empty() ? row : unmeasured(subject, p, "Failed", error);
      }
      bool ok = true;
      timed_with_load({{&row, [&] {
                          const auto t0 = Clock::now();
                          ok = ok && call();
                          return std::pair{ms_since(t0), 0.0};
                        }}});
      return ok ? row : unmeasured(subject, p, "Failed", error);
    };
    const auto not_available = [&](const char* subject, const std::string& why) {
      finish(unmeasured(subject, p, "NotAvailable", why));
    };
    const bool tuned_clblast = !o.clblast_tuned.empty();
    // fp16 is not run through CLBlast: its Xgemm parameters were read and overridden as fp32's.
    const char* no_clblast = !bench_detail::clblast_available() ? "built without CLBlast"
                             : p.precision == Precision::kHalf
                                 ? "fp16 is not benchmarked against CLBlast"
                                 : nullptr;
    if (no_clblast) {
      not_available("clblast", no_clblast);
      if (tuned_clblast) not_available("clblast-tuned", no_clblast);
    } else {
      std::string error;
      if (tuned_clblast && clblast_defaults.empty() &&
          !bench_detail::clblast_get_xgemm(device.device, p.precision, clblast_defaults, error)) {
        throw Error(error);
      }
      if (tuned_clblast &&
          !bench_detail::clblast_set_xgemm(device.device, p.precision, clblast_defaults, error)) {
        throw Error(error);
      }
      finish(run_clblast("clblast", "CLBlast's own parameters for this device"));
      // The fastest parameter set whose result verifies: a tuner checks the kernel alone, and a
      // set can still fail inside CLBlast's whole routine.
      std::string rejected;
      BenchRow row;
      for (const auto& set : o.clblast_tuned) {
        std::map<std::string, int> wanted = clblast_defaults;
        for (const auto& [name, value] : set.parameters) wanted[name] = value;
        if (!bench_detail::clblast_set_xgemm(device.device, p.precision, wanted, error)) {
          row = unmeasured("clblast-tuned", p, "Failed", error);
        } else {
          row = run_clblast("clblast-tuned", "Xgemm parameters from " + set.source);
        }
        if (row.status == "Ok") break;
        rejected += (rejected.empty() ? "" : ", ") + set.source + " (" + row.status + ")";
      }
      if (tuned_clblast) {
        if (!rejected.empty()) row.note += "; rejected: " + rejected;
        finish(row);
      }
    }
    finish(host);
  }
  return rows;
}

}  // namespace mmtune
