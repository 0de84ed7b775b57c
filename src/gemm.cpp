#include "mmtune/gemm.hpp"

#include "mmtune/error.hpp"

namespace mmtune {
namespace {

cl::Device queue_device(const cl::CommandQueue& q) {
  return q.getInfo<CL_QUEUE_DEVICE>();
}

}  // namespace

Gemm::Gemm(const cl::Context& context, const cl::CommandQueue& queue,
           std::shared_ptr<const ParameterLookup> lookup)
    : context_(context),
      queue_(queue),
      device_(describe_device(queue_device(queue))),
      lookup_(std::move(lookup)),
      cache_(context_, queue_device(queue), device_.key, ProgramCache::default_disk_dir()),
      routine_(sources_, cache_, device_) {}

Gemm::Gemm(cl_context context, cl_command_queue queue,
           std::shared_ptr<const ParameterLookup> lookup)
    : Gemm(cl::Context(context, /*retainObject=*/true),
           cl::CommandQueue(queue, /*retainObject=*/true), std::move(lookup)) {}

const TunedParameters& Gemm::parameters(const GemmProblem& p) {
  const ShapeKey key{
      p.m,       p.n,      p.k, static_cast<int>(p.precision), static_cast<int>(p.layout),
      p.trans_a, p.trans_b};
  if (auto it = chosen_.find(key); it != chosen_.end()) return it->second;
  TunedParameters t = lookup_ ? lookup_->lookup(device_, p) : default_parameters(device_, p);
  return chosen_.emplace(key, std::move(t)).first->second;
}

cl::Event Gemm::operator()(const GemmProblem& problem, const cl::Buffer& a, const cl::Buffer& b,
                           const cl::Buffer& c, std::size_t a_offset, std::size_t b_offset,
                           std::size_t c_offset) {
  validate(problem);
  if (!device_.supports(problem.precision)) {
    throw NoDeviceError("device '" + device_.name + "' has no fp" + to_string(problem.precision) +
                        " support");
  }
  const TunedParameters& t = parameters(problem);
  const auto prepared = routine_.prepare(t.config, problem);
  if (!prepared.ok) {
    throw Error("cannot build the " + std::string(kernel_name(kind_of(t.config))) +
                " kernel for '" + device_.name + "': " + prepared.log.substr(0, 2000));
  }
  const auto events =
      routine_.enqueue(queue_, problem, t.config, {&a, a_offset}, {&b, b_offset}, {&c, c_offset});
  return events.events.back();
}

}  // namespace mmtune
