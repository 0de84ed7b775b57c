// The spec file's outer door: TOML -> KernelSpec, every key checked, every expression compiled
// once against the names it may use. Messages are one line: "FILE:LINE: KEY: what is wrong".
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "core/content_hash.hpp"
#include "family/expression.hpp"
#include "family/spec_reader.hpp"
#include "mmtune/device_info.hpp"

namespace mmtune {
namespace {

using namespace spec_detail;

constexpr std::size_t kMaxSpecBytes = 1 << 20;
// Text of the expressions evaluated for every configuration of a space of up to 10^7: at 1 MiB a
// space took hours to enumerate; the shipped examples use well under 1 KiB.
constexpr std::size_t kMaxPerConfigurationExpressionBytes = 16 << 10;

void check_names_and_expressions(const Reader& r, const toml::table& root, const KernelSpec& s) {
  std::set<std::string> seen;
  const auto claim = [&](const std::string& name, const std::string& where) {
    std::string why;
    const auto& dev = spec_device_names();
    if (is_expression_builtin(name)) {
      why = "'" + name + "' is a function or constant of expressions";
    } else if (std::find(dev.begin(), dev.end(), name) != dev.end()) {
      why = "'" + name + "' is a device limit's name";
    } else if (!seen.insert(name).second) {
      why = "'" + name + "' is defined twice (sizes, parameters and defines share one namespace)";
    }
    if (!why.empty()) throw UsageError(where + ": " + why);
  };
  const toml::node* sizes = root.get("sizes");
  for (const auto& z : s.sizes) claim(z, r.where(*sizes, "sizes"));
  for (const auto& p : s.parameters) claim(p.name, p.where);
  // A define is never read by an expression, so it may share a size's name (passing a size to
  // the kernel under its own name); it must not repeat a parameter's -D or another define.
  std::set<std::string> defined;
  for (const auto& p : s.parameters) defined.insert(p.name);
  for (const auto& [name, e] : s.defines) {
    if (!defined.insert(name).second) {
      throw UsageError(e.where + ": '" + name +
                       "' is defined twice (parameters and defines are both -D)");
    }
  }

  std::vector<std::string> sizes_only = s.sizes, all = s.sizes;
  for (const auto& d : spec_device_names()) sizes_only.push_back(d), all.push_back(d);
  std::set<std::string> strings;
  for (const auto& p : s.parameters) {
    all.push_back(p.name);
    if (!p.numeric()) strings.insert(p.name);
  }
  Scope wide(all), narrow(sizes_only);
  std::size_t per_configuration = 0;  // expression text evaluated for every configuration
  const auto compile = [&](const SpecExpr& e, Scope& scope) {
    try {
      const Expression x(e.text, scope);
      for (const std::size_t i : x.uses()) {
        if (strings.count(scope.names()[i])) {
          throw ExpressionError("'" + e.text + "': '" + scope.names()[i] +
                                "' takes strings; expressions use numbers");
        }
      }
    } catch (const ExpressionError& x) {
      throw UsageError(e.where + ": " + x.what());
    }
  };
  // Parameters in scope: evaluated again for every configuration.
  const auto per_config = [&](const SpecExpr& e) {
    per_configuration += e.text.size();
    compile(e, wide);
  };
  for (const auto& e : s.constraints) per_config(e);
  for (const auto& [name, e] : s.defines) per_config(e);
  for (const auto* list : {&s.launch.problem, &s.launch.global, &s.launch.local}) {
    for (const auto& e : *list) per_config(e);
  }
  for (const auto& div : s.launch.grid_div) {
    for (const auto& e : div) per_config(e);
  }
  for (const auto& a : s.arguments) {
    per_config(a.kind == ArgumentKind::kScalar ? a.value : a.size);
    // The reference's outputs have one size per problem: an output sized by a parameter would
    // be a WrongResult in every configuration but the reference's.
    if (a.output && s.verification.kind != Verification::kNone) {
      try {
        Expression(a.size.text, narrow);
      } catch (const ExpressionError&) {
        throw UsageError(a.size.where + ": '" + a.size.text +
                         "': a verified output's size may use the sizes, not the parameters");
      }
    }
  }
  // The reference runs once per problem: no parameters.
  for (const auto* list : {&s.verification.global, &s.verification.local}) {
    for (const auto& e : *list) compile(e, narrow);
  }
  // Per problem, not per configuration: GFLOPS compare configurations.
  for (const auto* m : {&s.flops, &s.bytes}) {
    if (*m) compile(**m, narrow);
  }
  if (per_configuration > kMaxPerConfigurationExpressionBytes) {
    throw UsageError(s.path.string() + ": the expressions evaluated for each configuration total " +
                     std::to_string(per_configuration) + " bytes; at most " +
                     std::to_string(kMaxPerConfigurationExpressionBytes));
  }
}

KernelSpec read_spec(const toml::table& root, const fs::path& path) {
  const Reader r(path);
  r.only(root, "",
         {"name", "source", "sources", "kernel", "build_options", "sizes", "constraints",
          "parameters", "default", "defines", "launch", "arguments", "verification", "metrics"});
  KernelSpec s;
  s.path = path;
  const auto required = [&](const char* key) -> const toml::node& {
    const toml::node* n = root.get(key);
    if (!n) r.fail(root.source(), key, "missing");
    return *n;
  };
  s.name = r.identifier(required("name"), "name");
  if (s.name.size() > 40) {  // "spec:NAME:HASH" stays within the store's 64 characters
    r.fail(required("name").source(), "name", "longer than 40 characters");
  }
  s.kernel = r.identifier(required("kernel"), "kernel");
  const toml::node* one = root.get("source");
  const toml::node* many = root.get("sources");
  if (!!one == !!many) r.fail(root.source(), "sources", "give 'source' or 'sources'");
  if (one) {
    s.sources.push_back(r.file(*one, "source"));
  } else {
    const auto& a = r.array(*many, "sources");
    if (a.empty()) r.fail(many->source(), "sources", "no source files");
    for (std::size_t i = 0; i < a.size(); ++i) {
      s.sources.push_back(r.file(*a.get(i), "sources[" + std::to_string(i) + "]"));
    }
  }
  if (const toml::node* b = root.get("build_options")) {
    s.build_options = r.string(*b, "build_options");
    if (!std::all_of(s.build_options.begin(), s.build_options.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || std::strchr(" -_=.", c);
        })) {
      r.fail(b->source(), "build_options", "only letters, digits, spaces and -_=. are accepted");
    }
  }
  const auto& sizes = r.array(required("sizes"), "sizes");
  // Up to three: a spec's problem is stored as m, n and k.
  if (sizes.empty() || sizes.size() > 3) r.fail(sizes.source(), "sizes", "expected 1 to 3 names");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    s.sizes.push_back(r.identifier(*sizes.get(i), "sizes[" + std::to_string(i) + "]"));
  }
  read_parameters(r, r.table(required("parameters"), "parameters"), s);
  if (const toml::node* c = root.get("constraints")) {
    const auto& a = r.array(*c, "constraints");
    if (a.size() > kMaxExpressions) {
      r.fail(c->source(), "constraints", "more than " + std::to_string(kMaxExpressions));
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      s.constraints.push_back(r.expr(*a.get(i), "constraints[" + std::to_string(i) + "]"));
    }
  }
  if (const toml::node* d = root.get("defines")) {
    if (r.table(*d, "defines").size() > kMaxExpressions) {
      r.fail(d->source(), "defines", "more than " + std::to_string(kMaxExpressions));
    }
    for (auto&& [k, v] : r.table(*d, "defines")) {
      const std::string key = "defines." + std::string(k.str());
      if (!is_identifier(std::string(k.str()))) r.fail(k.source(), key, "not an identifier");
      s.defines.emplace_back(std::string(k.str()), r.expr(v, key));
    }
  }
  s.launch = read_launch(r, r.table(required("launch"), "launch"));
  const auto& args = r.array(required("arguments"), "arguments");
  if (args.empty()) r.fail(args.source(), "arguments", "the kernel takes no arguments?");
  if (args.size() > kMaxExpressions) {
    r.fail(args.source(), "arguments", "more than " + std::to_string(kMaxExpressions));
  }
  std::set<std::string> arg_names;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string key = "arguments[" + std::to_string(i) + "]";
    const toml::node& n = *args.get(i);
    s.arguments.push_back(read_argument(r, r.table(n, key), key));
    if (!arg_names.insert(s.arguments.back().name).second) {
      r.fail(n.source(), key + ".name", "'" + s.arguments.back().name + "' is used twice");
    }
  }
  if (const toml::node* v = root.get("verification")) {
    s.verification = read_verification(r, r.table(*v, "verification"));
  }
  const bool outputs = std::any_of(s.arguments.begin(), s.arguments.end(),
                                   [](const SpecArgument& a) { return a.output; });
  if (s.verification.kind != Verification::kNone && !outputs) {
    r.fail(root.source(), "arguments",
           "no buffer is marked `output = true`, so nothing can be verified (or say "
           "verification.reference = \"none\")");
  }
  if (const toml::node* m = root.get("metrics")) {
    const auto& t = r.table(*m, "metrics");
    r.only(t, "metrics", {"flops", "bytes"});
    if (const toml::node* f = t.get("flops")) s.flops = r.expr(*f, "metrics.flops");
    if (const toml::node* b = t.get("bytes")) s.bytes = r.expr(*b, "metrics.bytes");
  }
  check_names_and_expressions(r, root, s);
  if (const toml::node* d = root.get("default")) {
    // The configuration a user would write without tuning: the summary's comparison.
    const auto& t = r.table(*d, "default");
    for (const auto& p : s.parameters) {
      const toml::node* v = t.get(p.name);
      if (!v) r.fail(t.source(), "default", "no value for " + p.name);
      const std::string key = "default." + p.name;
      const std::string text = p.numeric()
                                   ? std::to_string(r.integer(*v, key, -(1LL << 53), 1LL << 53))
                                   : r.string(*v, key);
      const bool listed =
          p.numeric()
              ? std::find(p.values.begin(), p.values.end(), std::stoll(text)) != p.values.end()
              : std::find(p.labels.begin(), p.labels.end(), text) != p.labels.end();
      if (!listed) r.fail(v->source(), key, "'" + text + "' is not one of its values");
      s.default_config += (s.default_config.empty() ? "" : " ") + p.name + "=" + text;
    }
    if (t.size() != s.parameters.size()) {
      r.fail(t.source(), "default", "names something that is not a parameter");
    }
  }
  return s;
}

}  // namespace

KernelSpec parse_spec_text(const std::string& text, const fs::path& path) {
  if (text.size() > kMaxSpecBytes) {
    throw UsageError(path.string() + ": larger than " + std::to_string(kMaxSpecBytes) + " bytes");
  }
  toml::table root;
  try {
    root = toml::parse(text, path.string());
  } catch (const toml::parse_error& e) {
    std::string what(e.description());
    std::replace(what.begin(), what.end(), '\n', ' ');
    throw UsageError(path.string() + ":" + std::to_string(e.source().begin.line) + ": " + what);
  }
  KernelSpec spec = read_spec(root, path);
  ContentHasher hash;
  hash.add(text);
  const auto append = [&hash](const fs::path& file) {
    hash.add("\x1f");
    hash.add_file(file);
  };
  for (const auto& source : spec.sources) append(source);
  // Data files decide what a correct result is: new data is another spec, whose stored results
  // are not reused. (Only specs with data files hash more than their text and sources.)
  for (const auto& a : spec.arguments) {
    if (a.init == BufferInit::kFile) append(a.file);
  }
  if (spec.verification.kind == Verification::kFile) append(spec.verification.file);
  spec.text_hash = hash.hex();
  return spec;
}

std::string spec_kernel_name(const KernelSpec& spec) {
  return "spec:" + spec.name + ":" + spec.text_hash;
}

KernelSpec parse_spec_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw UsageError(path.string() + ": no such spec file");
  if (fs::file_size(path, ec) > kMaxSpecBytes) {
    throw UsageError(path.string() + ": larger than " + std::to_string(kMaxSpecBytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw UsageError(path.string() + ": cannot be read");
  return parse_spec_text(text.str(), path);
}

}  // namespace mmtune
