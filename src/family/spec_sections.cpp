// The sections of a spec file: parameters, launch, arguments, verification.
#include <cstring>

#include "family/spec_reader.hpp"

namespace mmtune::spec_detail {

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
  if (t.size() > kMaxParameters) {
    r.fail(t.source(), "parameters",
           std::to_string(t.size()) + " parameters, more than " + std::to_string(kMaxParameters));
  }
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
  // Every configuration is enumerated and checked against the constraints: a product in the
  // billions would run for hours and hold gigabytes before the first kernel ran.
  double configurations = 1;
  for (const auto& p : spec.parameters) {
    configurations *= double(std::max(p.values.size(), p.labels.size()));
  }
  if (configurations > double(kMaxConfigurations)) {
    r.fail(t.source(), "parameters",
           "their value lists make " + std::to_string((long double)configurations) +
               " configurations, more than " + std::to_string(kMaxConfigurations) +
               " (narrow the lists or split the spec)");
  }
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
        // A constant is not computed: the type's whole range (as far as TOML gives it: an
        // integer literal beyond 2^53 is no double there).
        if (std::string why = unrepresentable(a.type, a.constant, false); !why.empty()) {
          r.fail(init->source(), key + ".init", why);
        }
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
  v.tolerance_stated = t.get("absolute") || t.get("relative");
  if (v.absolute < 0 || v.relative < 0) {
    r.fail(t.source(), "verification", "tolerances cannot be negative");
  }
  return v;
}

// Every expression compiles against the names it may use; a name defined twice or reserved is
// refused before that.

}  // namespace mmtune::spec_detail
