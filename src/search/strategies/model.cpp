// Model-guided search: a small random forest of regression trees, refitted on every result so
// far, predicts log(time) of unmeasured points; each proposal is the candidate with the lowest
// predicted mean minus kappa times the spread across trees (the spread rewards exploring what the
// model is unsure of), except for a fraction of uniformly random picks that keep the model honest
// where it is confidently wrong. Failed points count as much slower than the slowest success, so
// the model learns to avoid regions that fail.
//
// Features: per parameter, the rank of the point's value among the parameter's sorted values.
// Trees only compare features, so a rank splits points exactly as log2(value) would (the ranks
// of powers of two are their log2 up to a shift) and also serves parameters that take 0.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>

#include "common.hpp"
#include "factories.hpp"

namespace mmtune {
namespace {

using strategies::Proposed;
using strategies::Rng;
using strategies::uniform_index;
using strategies::uniform_real;

// The forest: small, so that refitting on every result stays cheap.
constexpr int kMaxDepth = 10;
constexpr std::size_t kMinLeaf = 1;
constexpr double kSubset = 0.67;       // fraction of the features tried at each split
constexpr std::size_t kMaxBins = 256;  // parameters with more values are binned by rank
// The search.
constexpr std::size_t kMinInitial = 8;
constexpr StrategyOption kOptions[] = {
    {"trees", 24, 1, 1000, "regression trees in the forest", true},
    {"initial_fraction", 0.02, 0, 1,
     "share of the budget sampled at random before the model (at least 8 configurations: "
     "a model of fewer has nothing to learn from)"},
    {"random_fraction", 0.12, 0, 1, "share of proposals drawn at random (exploration)"},
    {"kappa", 0.3, 0, 100, "weight of the trees' spread in a candidate's score (exploration)"},
    {"products", 0, 0, 1,
     "1: also learn from the product of each pair of parameters with 3+ positive values "
     "(e.g. work-group size x work per item)",
     true},
};
constexpr std::size_t kMaxCandidates = 20000;  // scored per ask in large spaces
constexpr std::size_t kTopPoints = 5;          // whose unvisited neighbours are always scored
constexpr double kFailedPenalty = 1.0;  // log-time above the slowest success (e times slower)

using Bin = std::uint8_t;

// A node of a flat regression tree in pre-order: the left child of node i is node i + 1.
struct Node {
  std::int32_t right;  // 0: a leaf
  std::uint32_t feature;
  Bin threshold;  // go left when the feature's bin <= threshold
  float value;
};

class Forest {
 public:
  // bins: per feature, the number of values it takes.
  Forest(std::vector<std::size_t> bins, std::size_t trees)
      : bins_(std::move(bins)), tree_count_(trees) {}

  // x: n rows of one bin per feature; y: n targets.
  void fit(const std::vector<Bin>& x, const std::vector<double>& y, Rng& rng) {
    const std::size_t n = y.size();
    trees_.assign(tree_count_, {});
    std::vector<std::uint32_t> rows(n);
    for (auto& tree : trees_) {
      for (auto& r : rows) r = static_cast<std::uint32_t>(uniform_index(rng, n));  // bootstrap
      build(tree, x, y, rows.data(), rows.size(), 0, rng);
    }
  }

  // Mean and standard deviation over the trees for one row of bins.
  void predict(const Bin* row, double& mean, double& sd) const {
    double s = 0, s2 = 0;
    for (const auto& tree : trees_) {
      const Node* node = tree.data();
      while (node->right) {
        node = row[node->feature] <= node->threshold ? node + 1 : tree.data() + node->right;
      }
      s += node->value;
      s2 += static_cast<double>(node->value) * node->value;
    }
    mean = s / static_cast<double>(trees_.size());
    sd = std::sqrt(std::max(0.0, s2 / static_cast<double>(trees_.size()) - mean * mean));
  }

 private:
  void build(std::vector<Node>& tree, const std::vector<Bin>& x, const std::vector<double>& y,
             std::uint32_t* rows, std::size_t n, int depth, Rng& rng) {
    double sum = 0;
    for (std::size_t k = 0; k < n; ++k) sum += y[rows[k]];
    const std::size_t self = tree.size();
    tree.push_back({0, 0, 0, static_cast<float>(sum / static_cast<double>(n))});
    if (depth >= kMaxDepth || n < 2 * kMinLeaf) return;

    // A random subset of the features, as random forests do; the rest only when none of the
    // subset can split (e.g. all rows share its values).
    const std::size_t nf = bins_.size();
    order_.resize(nf);
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    const std::size_t subset = std::max<std::size_t>(1, static_cast<std::size_t>(kSubset * nf));
    const double base = sum * sum / static_cast<double>(n);
    double best_gain = 1e-12;
    std::size_t best_feature = nf;
    std::size_t best_threshold = 0;
    for (std::size_t k = 0; k < nf; ++k) {
      if (k >= subset && best_feature < nf) break;
      std::swap(order_[k], order_[k + uniform_index(rng, nf - k)]);
      const std::size_t f = order_[k];
      const std::size_t nb = bins_[f];
      count_.assign(nb, 0);
      total_.assign(nb, 0.0);
      for (std::size_t r = 0; r < n; ++r) {
        const Bin b = x[rows[r] * nf + f];
        ++count_[b];
        total_[b] += y[rows[r]];
      }
      std::size_t nl = 0;
      double sl = 0;
      for (std::size_t t = 0; t + 1 < nb; ++t) {
        nl += count_[t];
        sl += total_[t];
        if (count_[t] == 0 || nl < kMinLeaf) continue;  // same split as the previous bin
        const std::size_t nr = n - nl;
        if (nr < kMinLeaf) break;
        const double sr = sum - sl;
        const double gain =
            sl * sl / static_cast<double>(nl) + sr * sr / static_cast<double>(nr) - base;
        if (gain > best_gain) {
          best_gain = gain;
          best_feature = f;
          best_threshold = t;
        }
      }
    }
    if (best_feature == nf) return;

    const auto mid = std::partition(rows, rows + n, [&](std::uint32_t r) {
      return x[r * nf + best_feature] <= best_threshold;
    });
    const auto nl = static_cast<std::size_t>(mid - rows);
    tree[self].feature = static_cast<std::uint32_t>(best_feature);
    tree[self].threshold = static_cast<Bin>(best_threshold);
    build(tree, x, y, rows, nl, depth + 1, rng);
    tree[self].right = static_cast<std::int32_t>(tree.size());
    build(tree, x, y, mid, n - nl, depth + 1, rng);
  }

  std::vector<std::size_t> bins_;
  std::size_t tree_count_;
  std::vector<std::vector<Node>> trees_;
  std::vector<std::size_t> order_;  // scratch for split search
  std::vector<std::size_t> count_;
  std::vector<double> total_;
};

// The model's features of every point, as bins: each parameter's value rank (scaled down when a
// parameter has very many values) and, with `products`, the rank of the product of each pair of
// parameters that take three or more positive values.
struct Features {
  std::vector<std::size_t> counts;  // bins per feature
  std::vector<Bin> bins;            // size() rows of counts.size() bins
};

Features make_features(const SearchSpace& space, bool products) {
  const std::size_t dims = space.dimensions();
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<std::pair<std::size_t, std::size_t>> features;  // a parameter, or a pair's product
  for (std::size_t d = 0; d < dims; ++d) {
    // A parameter with one value cannot split a tree: as a feature it would only take turns
    // in the trees' random feature choices (a landscape recorded elsewhere has several).
    // (The last is kept when all are such: the forest needs one feature.)
    if (space.values(d).size() < 2 && !(features.empty() && d + 1 == dims)) continue;
    features.emplace_back(d, kNone);
  }
  if (products) {
    const auto ordinal = [&](std::size_t d) {
      return space.values(d).size() >= 3 && space.values(d).front() > 0;
    };
    for (std::size_t a = 0; a < dims; ++a) {
      for (std::size_t b = a + 1; b < dims; ++b) {
        if (ordinal(a) && ordinal(b)) features.emplace_back(a, b);
      }
    }
  }
  Features f;
  f.bins.resize(space.size() * features.size());
  // One feature's values at a time: a spec's space of 10^7 points would hold 80 MB per feature.
  std::vector<std::int64_t> column(space.size());
  for (std::size_t j = 0; j < features.size(); ++j) {
    const auto [a, b] = features[j];
    for (std::size_t i = 0; i < space.size(); ++i) {
      const auto p = space.point(i);
      column[i] = b == kNone ? p[a] : std::int64_t(p[a]) * p[b];
    }
    std::vector<std::int64_t> v = column;
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    f.counts.push_back(std::min(kMaxBins, v.size()));
    for (std::size_t i = 0; i < space.size(); ++i) {
      const auto rank =
          static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), column[i]) - v.begin());
      f.bins[i * features.size() + j] = static_cast<Bin>(rank * f.counts[j] / v.size());
    }
  }
  return f;
}

class ModelGuided : public Strategy {
 public:
  ModelGuided(const SearchSpace& space, const StrategyOptions& options)
      : space_(space),
        rng_(options.seed),
        proposed_(space.size()),
        initial_(std::max(kMinInitial, static_cast<std::size_t>(
                                           option_value(kOptions, options, "initial_fraction") *
                                           static_cast<double>(options.budget)))),
        random_fraction_(option_value(kOptions, options, "random_fraction")),
        kappa_(option_value(kOptions, options, "kappa")),
        features_(make_features(space, option_value(kOptions, options, "products") >= 0.5)),
        width_(features_.counts.size()),
        mark_(space.size(), 0),
        forest_(features_.counts, std::size_t(option_value(kOptions, options, "trees"))) {}

  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    if (proposed_.count() < initial_ || successes_ < 2) {
      // Too little to learn from yet: random points.
      while (out.size() < n && proposed_.remaining() > 0) {
        propose(*proposed_.random_unvisited(rng_), out);
      }
      return out;
    }
    if (fitted_ != y_.size()) refit();
    const auto ranked = rank_candidates(n);
    std::size_t next = 0;
    while (out.size() < n && proposed_.remaining() > 0) {
      while (next < ranked.size() && proposed_.contains(ranked[next])) ++next;  // taken at random
      if (next == ranked.size() || uniform_real(rng_) < random_fraction_) {
        propose(*proposed_.random_unvisited(rng_), out);
      } else {
        propose(ranked[next++], out);
      }
    }
    return out;
  }

  // Seeds are training data like any result, and are never proposed.
  void seed(const std::vector<Observation>& results) override {
    for (const auto& r : results) proposed_.add(r.index);
    tell(results);
  }

  void tell(const std::vector<Observation>& results) override {
    for (const auto& r : results) {
      const Bin* row = &features_.bins[r.index * width_];
      x_.insert(x_.end(), row, row + width_);
      const bool ok = r.time && *r.time > 0;
      y_.push_back(ok ? std::log(*r.time) : 0.0);
      failed_.push_back(!ok);
      if (ok) {
        ++successes_;
        best_.emplace_back(y_.back(), r.index);
      }
    }
    // Keep the few best successes, whose neighbourhoods are always scored.
    std::sort(best_.begin(), best_.end());
    if (best_.size() > kTopPoints) best_.resize(kTopPoints);
  }

 private:
  void propose(std::size_t i, std::vector<std::size_t>& out) {
    proposed_.add(i);
    out.push_back(i);
  }

  void refit() {
    double slowest = -1e300;
    for (std::size_t k = 0; k < y_.size(); ++k) {
      if (!failed_[k]) slowest = std::max(slowest, y_[k]);
    }
    std::vector<double> y = y_;
    for (std::size_t k = 0; k < y.size(); ++k) {
      if (failed_[k]) y[k] = slowest + kFailedPenalty;
    }
    forest_.fit(x_, y, rng_);
    fitted_ = y_.size();
  }

  void add_candidate(std::size_t i, std::vector<std::size_t>& c) {
    if (mark_[i] || proposed_.contains(i)) return;
    mark_[i] = 1;
    c.push_back(i);
  }

  // The n unvisited candidates with the best acquisition, best first.
  std::vector<std::size_t> rank_candidates(std::size_t n) {
    std::vector<std::size_t> c;
    const std::size_t size = space_.size();
    if (proposed_.remaining() <= kMaxCandidates) {
      // Start at a random point so that ties do not always favour low indices.
      const std::size_t start = uniform_index(rng_, size);
      for (std::size_t k = 0; k < size; ++k) add_candidate((start + k) % size, c);
    } else {
      // Duplicates are skipped, so a few draws more than kMaxCandidates may be needed.
      for (std::size_t k = 0; k < 2 * kMaxCandidates && c.size() < kMaxCandidates; ++k) {
        add_candidate(uniform_index(rng_, size), c);
      }
    }
    for (const auto& b : best_) {
      for (const std::size_t j : space_.neighbours(b.second)) add_candidate(j, c);
    }
    for (const std::size_t i : c) mark_[i] = 0;

    std::vector<double> score(c.size());
    for (std::size_t k = 0; k < c.size(); ++k) {
      double mean, sd;
      forest_.predict(&features_.bins[c[k] * width_], mean, sd);
      score[k] = mean - kappa_ * sd;
    }
    std::vector<std::size_t> order(c.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const std::size_t top = std::min(n, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                      [&](std::size_t a, std::size_t b) { return score[a] < score[b]; });
    order.resize(top);
    for (auto& k : order) k = c[k];
    return order;
  }

  const SearchSpace& space_;
  Rng rng_;
  Proposed proposed_;
  std::size_t initial_;  // random points before the model is used
  double random_fraction_, kappa_;
  Features features_;
  std::size_t width_;       // features per point
  std::vector<char> mark_;  // scratch: candidate already collected
  Forest forest_;
  std::vector<Bin> x_;  // bins of the observed points
  std::vector<double> y_;
  std::vector<char> failed_;
  std::size_t successes_ = 0;
  std::size_t fitted_ = 0;                            // observations the forest was fitted on
  std::vector<std::pair<double, std::size_t>> best_;  // (log-time, index) of the best successes
};

}  // namespace

const StrategyInfo kModelStrategy{
    "model", "a random forest of the measured times proposes the most promising configurations",
    kOptions,
    [](const SearchSpace& space, const StrategyOptions& options) -> std::unique_ptr<Strategy> {
      return std::make_unique<ModelGuided>(space, options);
    }};

}  // namespace mmtune
