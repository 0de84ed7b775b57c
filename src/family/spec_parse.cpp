// The spec file's outer door: TOML -> KernelSpec, every key checked, every expression compiled
// once against the names it may use. Messages are one line: "FILE:LINE: KEY: what is wrong".
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "family/expression.hpp"
#include "family/spec.hpp"
#include "mmtune/error.hpp"

namespace mmtune {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxSpecBytes = 1 << 20;
constexpr std::size_t kMaxValues = 4096;  // per parameter

// Names that expressions give a meaning of their own (muParser's functions and constants, and
// the ones expression.cpp adds).
const std::set<std::string> kReserved = {
    "sin",   "cos",  "tan",   "asin", "acos",  "atan", "sinh",     "cosh", "tanh", "asinh", "acosh",
    "atanh", "log2", "log10", "log",  "ln",    "exp",  "sqrt",     "sign", "rint", "abs",   "min",
    "max",   "sum",  "avg",   "mod",  "floor", "ceil", "ceil_div", "_pi",  "_e"};

bool is_identifier(const std::string& s) {
  if (s.empty() || s.size() > 64 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Text that may follow -DNAME= on a compiler command line: a token, no spaces or quotes.
bool is_define_text(const std::string& s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  });
}

class Reader {
 public:
  Reader(const fs::path& path) : path_(path), dir_(path.parent_path()) {}

  [[noreturn]] void fail(const toml::source_region& at, const std::string& key,
                         const std::string& what) const {
    std::string where = path_.string();
    if (at.begin.line) where += ":" + std::to_string(at.begin.line);
    throw UsageError(where + ": " + (key.empty() ? "" : key + ": ") + what);
  }
  std::string where(const toml::node& n, const std::string& key) const {
    return path_.string() + ":" + std::to_string(n.source().begin.line) + ": " + key;
  }

  // Every key of `t` must be one of `allowed`.
  void only(const toml::table& t, const std::string& context,
            std::initializer_list<const char*> allowed) const {
    for (auto&& entry : t) {
      const toml::key& k = entry.first;
      const bool known =
          std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return k.str() == a; });
      if (!known) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(k.source(), join(context, std::string(k.str())),
             "unknown key (known here: " + list + ")");
      }
    }
  }

  static std::string join(const std::string& context, const std::string& key) {
    return context.empty() ? key : context + "." + key;
  }

  std::string string(const toml::node& n, const std::string& key) const {
    if (const auto s = n.value<std::string>()) {
      if (s->size() > 4096) fail(n.source(), key, "longer than 4096 characters");
      return *s;
    }
    fail(n.source(), key, "expected a string");
  }

  const toml::array& array(const toml::node& n, const std::string& key) const {
    if (const auto* a = n.as_array()) return *a;
    fail(n.source(), key, "expected an array");
  }

  const toml::table& table(const toml::node& n, const std::string& key) const {
    if (const auto* t = n.as_table()) return *t;
    fail(n.source(), key, "expected a table");
  }

  long long integer(const toml::node& n, const std::string& key, long long lo, long long hi) const {
    const auto v = n.value_exact<std::int64_t>();
    if (!v) fail(n.source(), key, "expected an integer");
    if (*v < lo || *v > hi) {
      fail(n.source(), key,
           std::to_string(*v) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    return *v;
  }

  double number(const toml::node& n, const std::string& key) const {
    const auto v = n.value<double>();  // integers convert
    if (!v || !std::isfinite(*v)) fail(n.source(), key, "expected a finite number");
    return *v;
  }

  // An expression: a string, or an integer written as a number.
  SpecExpr expr(const toml::node& n, const std::string& key) const {
    if (n.is_integer()) {
      return {std::to_string(integer(n, key, -(1LL << 53), 1LL << 53)), where(n, key)};
    }
    if (!n.is_string()) fail(n.source(), key, "expected an expression (a string or an integer)");
    return {string(n, key), where(n, key)};
  }

  std::vector<SpecExpr> exprs(const toml::node& n, const std::string& key, std::size_t lo,
                              std::size_t hi) const {
    const auto& a = array(n, key);
    if (a.size() < lo || a.size() > hi) {
      fail(n.source(), key,
           "expected " + std::to_string(lo) + " to " + std::to_string(hi) + " expressions");
    }
    std::vector<SpecExpr> out;
    for (std::size_t i = 0; i < a.size(); ++i) {
      out.push_back(expr(*a.get(i), key + "[" + std::to_string(i) + "]"));
    }
    return out;
  }

  // A file named relative to the spec; it must exist.
  fs::path file(const toml::node& n, const std::string& key) const {
    const std::string name = string(n, key);
    if (name.empty()) fail(n.source(), key, "empty file name");
    fs::path p = fs::path(name).is_absolute() ? fs::path(name) : dir_ / name;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) fail(n.source(), key, "no such file: " + p.string());
    return p;
  }

  std::string identifier(const toml::node& n, const std::string& key) const {
    const std::string s = string(n, key);
    if (!is_identifier(s)) {
      fail(n.source(), key, "'" + s + "' is not an identifier (letters, digits, _; 1-64)");
    }
    return s;
  }

 private:
  fs::path path_, dir_;
};

SpecType parse_type(const Reader& r, const toml::node& n, const std::string& key) {
  static const std::pair<const char*, SpecType> kTypes[] = {
      {"char", SpecType::kChar},     {"uchar", SpecType::kUchar}, {"short", SpecType::kShort},
      {"ushort", SpecType::kUshort}, {"int", SpecType::kInt},     {"uint", SpecType::kUint},
      {"long", SpecType::kLong},     {"ulong", SpecType::kUlong}, {"float", SpecType::kFloat},
      {"double", SpecType::kDouble}};
  const std::string s = r.string(n, key);
  for (const auto& [name, t] : kTypes) {
    if (s == name) return t;
  }
  r.fail(n.source(), key,
         "unknown type '" + s +
             "' (char, uchar, short, ushort, int, uint, long, "
             "ulong, float, double)");
}

void read_parameters(const Reader& r, const toml::table& t, KernelSpec& spec) {
  for (auto&& [k, v] : t) {
    const std::string key = "parameters." + std::string(k.str());
    const std::string name(k.str());
    if (!is_identifier(name)) r.fail(k.source(), key, "not an identifier");
    SpecParameter p;
    p.name = name;
    p.where = r.where(v, key);
    const auto& a = r.array(v, key);
    if (a.empty() || a.size() > kMaxValues) {
      r.fail(v.source(), key, "expected 1 to " + std::to_string(kMaxValues) + " values");
    }
    const bool strings = a.get(0)->is_string();
    for (std::size_t i = 0; i < a.size(); ++i) {
      const toml::node& e = *a.get(i);
      const std::string at = key + "[" + std::to_string(i) + "]";
      if (strings) {
        const std::string s = r.string(e, at);
        if (!is_define_text(s)) {
          r.fail(e.source(), at, "'" + s + "' cannot be a define's value (letters, digits, _, .)");
        }
        if (std::find(p.labels.begin(), p.labels.end(), s) != p.labels.end()) {
          r.fail(e.source(), at, "'" + s + "' is listed twice");
        }
        p.labels.push_back(s);
      } else {
        const long long x = r.integer(e, at, -(1LL << 53), 1LL << 53);
        if (std::find(p.values.begin(), p.values.end(), x) != p.values.end()) {
          r.fail(e.source(), at, std::to_string(x) + " is listed twice");
        }
        p.values.push_back(x);
      }
    }
    spec.parameters.push_back(std::move(p));
  }
  if (spec.parameters.empty()) r.fail(t.source(), "parameters", "no parameters to tune");
}

SpecLaunch read_launch(const Reader& r, const toml::table& t) {
  r.only(t, "launch", {"problem", "global", "local", "grid_div_x", "grid_div_y", "grid_div_z"});
  SpecLaunch l;
  l.where = r.where(t, "launch");
  const toml::node* local = t.get("local");
  if (!local) r.fail(t.source(), "launch", "missing 'local' (the work-group size)");
  l.local = r.exprs(*local, "launch.local", 1, 3);
  const toml::node* problem = t.get("problem");
  const toml::node* global = t.get("global");
  if (!!problem == !!global) {
    r.fail(t.source(), "launch", "give either 'problem' (with grid_div_*) or 'global'");
  }
  const std::size_t dims = l.local.size();
  if (problem) l.problem = r.exprs(*problem, "launch.problem", dims, dims);
  if (global) l.global = r.exprs(*global, "launch.global", dims, dims);
  const char* const divs[] = {"grid_div_x", "grid_div_y", "grid_div_z"};
  l.grid_div.resize(dims);
  for (std::size_t d = 0; d < 3; ++d) {
    const toml::node* n = t.get(divs[d]);
    if (!n) continue;
    const std::string key = std::string("launch.") + divs[d];
    if (global) r.fail(n->source(), key, "only with 'problem'; 'global' sizes are explicit");
    if (d >= dims) r.fail(n->source(), key, "the launch has " + std::to_string(dims) + " dims");
    l.grid_div[d] = r.exprs(*n, key, 1, 16);
  }
  return l;
}

SpecArgument read_argument(const Reader& r, const toml::table& t, const std::string& key) {
  SpecArgument a;
  a.where = r.where(t, key);
  const toml::node* name = t.get("name");
  if (!name) r.fail(t.source(), key, "missing 'name'");
  a.name = r.identifier(*name, key + ".name");
  const toml::node* kind = t.get("kind");
  const std::string k = kind ? r.string(*kind, key + ".kind") : "buffer";
  const toml::node* type = t.get("type");
  if (!type) r.fail(t.source(), key, "missing 'type'");
  a.type = parse_type(r, *type, key + ".type");
  const auto need = [&](const char* what) -> const toml::node& {
    const toml::node* n = t.get(what);
    if (!n) r.fail(t.source(), key, std::string("a ") + k + " needs '" + what + "'");
    return *n;
  };
  if (k == "buffer") {
    r.only(t, key, {"name", "kind", "type", "size", "init", "seed", "file", "output"});
    a.kind = ArgumentKind::kBuffer;
    a.size = r.expr(need("size"), key + ".size");
    if (const toml::node* f = t.get("file")) {
      if (t.get("init")) r.fail(f->source(), key + ".file", "give either 'init' or 'file'");
      a.init = BufferInit::kFile;
      a.file = r.file(*f, key + ".file");
    } else if (const toml::node* init = t.get("init")) {
      if (init->is_string()) {
        const std::string s = r.string(*init, key + ".init");
        if (s == "random") {
          a.init = BufferInit::kRandom;
        } else if (s == "zeros") {
          a.init = BufferInit::kZeros;
        } else {
          r.fail(init->source(), key + ".init", "'" + s + "': random, zeros, or a number");
        }
      } else {
        a.init = BufferInit::kConstant;
        a.constant = r.number(*init, key + ".init");
      }
    }
    if (const toml::node* s = t.get("seed")) {
      a.seed = std::uint64_t(r.integer(*s, key + ".seed", 0, 1LL << 53));
    }
    if (const toml::node* o = t.get("output")) {
      const auto b = o->value_exact<bool>();
      if (!b) r.fail(o->source(), key + ".output", "expected true or false");
      a.output = *b;
    }
  } else if (k == "scalar") {
    r.only(t, key, {"name", "kind", "type", "value"});
    a.kind = ArgumentKind::kScalar;
    a.value = r.expr(need("value"), key + ".value");
  } else if (k == "local") {
    r.only(t, key, {"name", "kind", "type", "size"});
    a.kind = ArgumentKind::kLocal;
    a.size = r.expr(need("size"), key + ".size");
  } else {
    r.fail(kind->source(), key + ".kind", "'" + k + "': buffer, scalar or local");
  }
  return a;
}

SpecVerification read_verification(const Reader& r, const toml::table& t) {
  SpecVerification v;
  v.where = r.where(t, "verification");
  const toml::node* ref = t.get("reference");
  if (!ref) r.fail(t.source(), "verification", "missing 'reference' (kernel, file, first, none)");
  const std::string kind = r.string(*ref, "verification.reference");
  if (kind == "kernel") {
    r.only(t, "verification", {"reference", "kernel", "global", "local", "absolute", "relative"});
    v.kind = Verification::kReferenceKernel;
    const toml::node* k = t.get("kernel");
    if (!k) r.fail(t.source(), "verification", "a reference kernel needs 'kernel' and 'global'");
    v.kernel = r.identifier(*k, "verification.kernel");
    const toml::node* g = t.get("global");
    if (!g) r.fail(t.source(), "verification", "a reference kernel needs 'global'");
    v.global = r.exprs(*g, "verification.global", 1, 3);
    if (const toml::node* l = t.get("local")) {
      v.local = r.exprs(*l, "verification.local", v.global.size(), v.global.size());
    }
  } else if (kind == "file") {
    r.only(t, "verification", {"reference", "file", "absolute", "relative"});
    v.kind = Verification::kFile;
    const toml::node* f = t.get("file");
    if (!f) r.fail(t.source(), "verification", "a reference file needs 'file'");
    v.file = r.file(*f, "verification.file");
  } else if (kind == "first") {
    r.only(t, "verification", {"reference", "absolute", "relative"});
    v.kind = Verification::kFirstConfiguration;
  } else if (kind == "none") {
    r.only(t, "verification", {"reference"});
    v.kind = Verification::kNone;
  } else {
    r.fail(ref->source(), "verification.reference", "'" + kind + "': kernel, file, first or none");
  }
  if (const toml::node* a = t.get("absolute")) v.absolute = r.number(*a, "verification.absolute");
  if (const toml::node* a = t.get("relative")) v.relative = r.number(*a, "verification.relative");
  if (v.absolute < 0 || v.relative < 0) {
    r.fail(t.source(), "verification", "tolerances cannot be negative");
  }
  return v;
}

// Every expression compiles against the names it may use; a name defined twice or reserved is
// refused before that.
void check_names_and_expressions(const Reader& r, const toml::table& root, const KernelSpec& s) {
  std::set<std::string> seen;
  const auto claim = [&](const std::string& name, const std::string& where) {
    std::string why;
    const auto& dev = spec_device_names();
    if (kReserved.count(name)) {
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
  for (const auto& [name, e] : s.defines) claim(name, e.where);

  std::vector<std::string> sizes_only = s.sizes, all = s.sizes;
  for (const auto& d : spec_device_names()) sizes_only.push_back(d), all.push_back(d);
  std::set<std::string> strings;
  for (const auto& p : s.parameters) {
    all.push_back(p.name);
    if (!p.numeric()) strings.insert(p.name);
  }
  Scope wide(all), narrow(sizes_only);
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
  for (const auto& e : s.constraints) compile(e, wide);
  for (const auto& [name, e] : s.defines) compile(e, wide);
  for (const auto* list : {&s.launch.problem, &s.launch.global, &s.launch.local}) {
    for (const auto& e : *list) compile(e, wide);
  }
  for (const auto& div : s.launch.grid_div) {
    for (const auto& e : div) compile(e, wide);
  }
  for (const auto& a : s.arguments) {
    compile(a.kind == ArgumentKind::kScalar ? a.value : a.size, wide);
  }
  // The reference runs once per problem: no parameters.
  for (const auto* list : {&s.verification.global, &s.verification.local}) {
    for (const auto& e : *list) compile(e, narrow);
  }
  // Per problem, not per configuration: GFLOPS compare configurations.
  for (const auto* m : {&s.flops, &s.bytes}) {
    if (*m) compile(**m, narrow);
  }
}

KernelSpec read_spec(const toml::table& root, const fs::path& path) {
  const Reader r(path);
  r.only(root, "",
         {"name", "source", "sources", "kernel", "build_options", "sizes", "constraints",
          "parameters", "defines", "launch", "arguments", "verification", "metrics"});
  KernelSpec s;
  s.path = path;
  const auto required = [&](const char* key) -> const toml::node& {
    const toml::node* n = root.get(key);
    if (!n) r.fail(root.source(), key, "missing");
    return *n;
  };
  s.name = r.identifier(required("name"), "name");
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
  if (sizes.empty() || sizes.size() > 8) r.fail(sizes.source(), "sizes", "expected 1 to 8 names");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    s.sizes.push_back(r.identifier(*sizes.get(i), "sizes[" + std::to_string(i) + "]"));
  }
  read_parameters(r, r.table(required("parameters"), "parameters"), s);
  if (const toml::node* c = root.get("constraints")) {
    const auto& a = r.array(*c, "constraints");
    for (std::size_t i = 0; i < a.size(); ++i) {
      s.constraints.push_back(r.expr(*a.get(i), "constraints[" + std::to_string(i) + "]"));
    }
  }
  if (const toml::node* d = root.get("defines")) {
    for (auto&& [k, v] : r.table(*d, "defines")) {
      const std::string key = "defines." + std::string(k.str());
      if (!is_identifier(std::string(k.str()))) r.fail(k.source(), key, "not an identifier");
      s.defines.emplace_back(std::string(k.str()), r.expr(v, key));
    }
  }
  s.launch = read_launch(r, r.table(required("launch"), "launch"));
  const auto& args = r.array(required("arguments"), "arguments");
  if (args.empty()) r.fail(args.source(), "arguments", "the kernel takes no arguments?");
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
  return s;
}

}  // namespace

std::size_t type_bytes(SpecType t) {
  switch (t) {
    case SpecType::kChar:
    case SpecType::kUchar:
      return 1;
    case SpecType::kShort:
    case SpecType::kUshort:
      return 2;
    case SpecType::kInt:
    case SpecType::kUint:
    case SpecType::kFloat:
      return 4;
    case SpecType::kLong:
    case SpecType::kUlong:
    case SpecType::kDouble:
      return 8;
  }
  return 0;
}

const char* to_string(SpecType t) {
  switch (t) {
    case SpecType::kChar:
      return "char";
    case SpecType::kUchar:
      return "uchar";
    case SpecType::kShort:
      return "short";
    case SpecType::kUshort:
      return "ushort";
    case SpecType::kInt:
      return "int";
    case SpecType::kUint:
      return "uint";
    case SpecType::kLong:
      return "long";
    case SpecType::kUlong:
      return "ulong";
    case SpecType::kFloat:
      return "float";
    case SpecType::kDouble:
      return "double";
  }
  return "?";
}

const std::vector<std::string>& spec_device_names() {
  static const std::vector<std::string> names = {"local_mem_size",
                                                 "max_work_group_size",
                                                 "max_work_item_size_x",
                                                 "max_work_item_size_y",
                                                 "max_work_item_size_z",
                                                 "compute_units",
                                                 "max_alloc_size",
                                                 "global_mem_size",
                                                 "preferred_vector_width_float",
                                                 "preferred_vector_width_double",
                                                 "preferred_vector_width_int",
                                                 "fp64",
                                                 "image_support"};
  return names;
}

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
  return read_spec(root, path);
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
