// Offline evaluation of cost-model variants on measurements already in a tuning log: no
// measuring, so variants (features, labels, objective, parameters) can be compared on the same
// data in seconds.
//
//   bazel run //bench:cost_model_eval -- --db LOG --task K [--target T] [--splits 10]
//       [--train N] [--seed 1] [--variant SUBSTR] [--zero-shot-only] [--json]
//
// For each of `--splits` random splits of the task's records, a model is fit on `--train` of
// them (default: half) and scores the rest; reported are the mean, min and max pairwise ranking
// accuracy over the splits and the mean recall of the true top 10% among the predicted top 10%.
// Also reported: the measurement noise ceiling (ranking the records by the even repeats, judged
// by the odd repeats) and, when the log holds other workloads of the template on the target,
// the accuracy of a model trained on those alone (zero-shot transfer), how many of the task's
// records one would measure in that model's order to reach 95% of their best, and, per split,
// the same trials-to-target for the model fit on the split alone, with the other workloads'
// model as its base margin, and fit jointly with the other workloads (`FitWithHistory`).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/command_line.h"
#include "common/json.h"
#include "compiler/space/config_proto.h"
#include "compiler/support/error.h"
#include "compiler/task/task.h"
#include "records/tuning_log.h"
#include "tuner/cost_model/knob_features.h"
#include "tuner/cost_model/loop_nest_features.h"
#include "tuner/cost_model/ranking_metrics.h"
#include "tuner/cost_model/transfer.h"
#include "tuner/cost_model/xgboost_cost_model.h"
#include "tuner/measure/task_measure.h"

namespace {

using namespace tessera;
using namespace tessera::task;
using namespace tessera::tuner;

struct Options {
  std::string db;
  std::string task;
  std::string target = "llvm -mcpu=native";
  int splits = 10;
  int64_t train = -1;
  uint64_t seed = 1;
  bool json = false;
  bool zero_shot_only = false;
  std::string variant;  // only variants whose name contains this
};

// One measured configuration of the task.
struct Sample {
  const Task* task;
  space::ConfigEntity config;
  std::vector<double> repeats;  // empty for a failed measurement
};

double Mean(const std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::infinity();
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double Min(const std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::infinity();
  return *std::min_element(v.begin(), v.end());
}

using CostOf = std::function<double(const Sample&)>;
using RowOf = std::function<std::vector<float>(const Sample&)>;

struct Variant {
  std::string name;
  RowOf row;
  CostOf cost;
  XGBoostOptions model;
};

// Own-group weight shares tried for the joint fit.
const std::vector<double> kOwnShares = {0.0, 0.1, 1.0};

struct Score {
  double mean_accuracy = 0, min_accuracy = 1, max_accuracy = 0, mean_recall = 0;
  double zero_shot = -1;          // a model of the other workloads alone, on every sample
  double transfer_accuracy = -1;  // the splits again, with that model as the base
  int64_t zero_shot_trials = -1;  // following that model's order: trials to 95% of the best
  double zero_shot_top16 = -1;    // best throughput among its top 16, relative to the best
  // Fit on the split's rows jointly with the other workloads (FitWithHistory), per own share.
  std::vector<double> joint_accuracy = std::vector<double>(kOwnShares.size(), 0.0);
  // Mean trials to 95% of the held-out best, following each model's order.
  std::vector<double> joint_trials = std::vector<double>(kOwnShares.size(), 0.0);
  double base_trials = 0, own_trials = 0;
};

// The other workloads' samples, one group per workload.
TrainingSet OtherWorkloads(const Variant& v, const std::vector<Sample>& others) {
  std::map<std::string, std::vector<const Sample*>> by_workload;
  for (const Sample& s : others) by_workload[s.task->workload_key()].push_back(&s);
  TrainingSet set;
  for (const auto& entry : by_workload) {
    for (const Sample* s : entry.second) {
      set.features.AddRow(v.row(*s));
      set.costs.push_back(v.cost(*s));
    }
    set.group_sizes.push_back(static_cast<unsigned>(entry.second.size()));
    set.workloads.push_back(entry.first);
  }
  return set;
}

// A model of the other workloads' samples, or null without any.
std::shared_ptr<XGBoostCostModel> OtherWorkloadsModel(const Variant& v, const TrainingSet& set) {
  if (set.features.rows() == 0) return nullptr;
  auto model = std::make_shared<XGBoostCostModel>(v.model);
  model->Fit(set.features, set.costs, set.group_sizes);
  return model;
}

Score Evaluate(const Variant& v, const std::vector<Sample>& samples,
               const std::vector<Sample>& others, const Options& o) {
  std::vector<std::vector<float>> rows;
  std::vector<double> costs;
  for (const Sample& s : samples) {
    rows.push_back(v.row(s));
    costs.push_back(v.cost(s));
  }
  size_t train = o.train > 0 ? static_cast<size_t>(o.train) : samples.size() / 2;
  train = std::min(train, samples.size() - 1);
  Score score;
  TrainingSet history = OtherWorkloads(v, others);
  std::shared_ptr<XGBoostCostModel> base = OtherWorkloadsModel(v, history);
  if (base) {
    FeatureMatrix all;
    std::vector<double> all_costs;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!std::isfinite(costs[i])) continue;
      all.AddRow(rows[i]);
      all_costs.push_back(costs[i]);
    }
    std::vector<double> predicted = base->Predict(all);
    score.zero_shot = PairwiseRankingAccuracy(predicted, all_costs);
    score.zero_shot_trials = TrialsToFraction(predicted, all_costs, 0.95);
    std::vector<size_t> order(predicted.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return predicted[a] > predicted[b]; });
    double best = *std::min_element(all_costs.begin(), all_costs.end());
    double top = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < order.size() && i < 16; ++i) top = std::min(top, all_costs[order[i]]);
    score.zero_shot_top16 = best / top;
    score.transfer_accuracy = 0;
  }
  if (o.zero_shot_only) return score;
  std::mt19937_64 rng(o.seed);
  for (int split = 0; split < o.splits; ++split) {
    std::vector<size_t> order(samples.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    FeatureMatrix fit, held;
    std::vector<double> fit_costs, held_costs;
    for (size_t i = 0; i < order.size(); ++i) {
      if (i < train) {
        fit.AddRow(rows[order[i]]);
        fit_costs.push_back(costs[order[i]]);
      } else if (std::isfinite(costs[order[i]])) {
        held.AddRow(rows[order[i]]);
        held_costs.push_back(costs[order[i]]);
      }
    }
    XGBoostOptions model = v.model;
    model.seed = o.seed + static_cast<uint64_t>(split);
    XGBoostCostModel m(model);
    m.Fit(fit, fit_costs);
    std::vector<double> predicted = m.Predict(held);
    double accuracy = PairwiseRankingAccuracy(predicted, held_costs);
    int k = std::max<int>(1, static_cast<int>(held_costs.size() / 10));
    score.mean_accuracy += accuracy / o.splits;
    score.min_accuracy = std::min(score.min_accuracy, accuracy);
    score.max_accuracy = std::max(score.max_accuracy, accuracy);
    score.mean_recall += RecallAtK(predicted, held_costs, k) / o.splits;
    if (base) {
      XGBoostCostModel with_base(model);
      with_base.SetBaseModel(base);
      with_base.Fit(fit, fit_costs);
      score.transfer_accuracy +=
          PairwiseRankingAccuracy(with_base.Predict(held), held_costs) / o.splits;
      for (size_t j = 0; j < kOwnShares.size(); ++j) {
        XGBoostCostModel joint(model);
        FitWithHistory(joint, history, fit, fit_costs, kOwnShares[j]);
        std::vector<double> scores = joint.Predict(held);
        score.joint_accuracy[j] += PairwiseRankingAccuracy(scores, held_costs) / o.splits;
        score.joint_trials[j] +=
            static_cast<double>(TrialsToFraction(scores, held_costs, 0.95)) / o.splits;
      }
      score.base_trials +=
          static_cast<double>(TrialsToFraction(with_base.Predict(held), held_costs, 0.95)) /
          o.splits;
      score.own_trials +=
          static_cast<double>(TrialsToFraction(predicted, held_costs, 0.95)) / o.splits;
    }
  }
  return score;
}

// How well one half of each record's repeats ranks the records by the other half: the accuracy
// no model can beat on this data.
double NoiseCeiling(const std::vector<Sample>& samples) {
  std::vector<double> even, odd;
  for (const Sample& s : samples) {
    if (s.repeats.size() < 2) continue;
    std::vector<double> a, b;
    for (size_t i = 0; i < s.repeats.size(); ++i) (i % 2 ? b : a).push_back(s.repeats[i]);
    even.push_back(-Mean(a));
    odd.push_back(Mean(b));
  }
  return even.size() < 2 ? -1 : PairwiseRankingAccuracy(even, odd);
}

int Run(const Options& o) {
  std::unique_ptr<Task> task;
  std::unique_ptr<records::TuningLog> log;
  std::vector<Sample> samples;
  std::vector<Sample> others;
  std::map<std::string, std::unique_ptr<Task>> other_tasks;
  int64_t outside_space = 0;
  {
    task = std::make_unique<Task>(o.task, o.target);
    log = records::TuningLog::Open(o.db);
    records::RecordFilter filter;
    filter.template_name = records::TemplateOfWorkload(task->workload_key());
    filter.target = o.target;
    for (const tuning::MeasureRecord& r : log->List(filter)) {
      const Task* owner = task.get();
      if (r.workload_key() != task->workload_key()) {
        std::unique_ptr<Task>& other = other_tasks[r.workload_key()];
        if (!other) other = std::make_unique<Task>(r.workload_key(), o.target);
        owner = other.get();
      }
      std::optional<space::ConfigEntity> config;
      try {
        config = space::ConfigFromProto(owner->config_space(), r.config());
      } catch (const UserError&) {
        ++outside_space;  // measured before the template's space changed
        continue;
      }
      Sample s{owner, *config, {}};
      if (r.error_kind() == tuning::OK) s.repeats.assign(r.costs().begin(), r.costs().end());
      (owner == task.get() ? samples : others).push_back(std::move(s));
    }
  }
  if (samples.size() < 10) throw UserError("fewer than 10 records of " + o.task + " in " + o.db);

  const std::string key = task->workload_key();
  RowOf knob = [](const Sample& s) { return CandidateFeatures(s.config, s.task->workload_key()); };
  RowOf loop = [](const Sample& s) {
    try {
      return LoopNestFeatures(LowerCandidate(*s.task, s.config)->body);
    } catch (const UserError&) {
      return std::vector<float>(LoopNestFeatureCount(), -1.f);
    }
  };
  RowOf knob_loop = [knob, loop](const Sample& s) {
    std::vector<float> row = knob(s);
    std::vector<float> more = loop(s);
    row.insert(row.end(), more.begin(), more.end());
    return row;
  };
  // Shape-normalised and cross-knob features of the splits.
  RowOf derived = [knob](const Sample& s) {
    std::vector<float> row = knob(s);
    std::vector<double> inner, tile;
    double outer_all = 1;
    for (size_t i = 0; i < s.config.knobs().size(); ++i) {
      const space::Knob& k = s.config.knobs()[i];
      if (k.kind != space::KnobKind::kSplit) continue;
      const std::vector<int64_t>& v = k.choices[s.config.choices()[i]];
      double product = 1;
      for (size_t j = 1; j < v.size(); ++j) product *= static_cast<double>(v[j]);
      double outer = static_cast<double>(k.extent) / product;
      row.push_back(static_cast<float>(std::log2(outer)));
      outer_all *= outer;
      inner.push_back(static_cast<double>(v.back()));
      tile.push_back(product);
    }
    for (size_t a = 0; a < inner.size(); ++a) {
      for (size_t b = a + 1; b < inner.size(); ++b) {
        row.push_back(static_cast<float>(std::log2(inner[a] * inner[b])));
        row.push_back(static_cast<float>(std::log2(tile[a] * tile[b])));
      }
    }
    row.push_back(static_cast<float>(std::log2(outer_all)));
    return row;
  };
  CostOf mean = [](const Sample& s) { return Mean(s.repeats); };
  CostOf best = [](const Sample& s) { return Min(s.repeats); };

  // The defaults before this tool: depth 4, eta 0.3, 100 rounds, base half-life 64.
  XGBoostOptions pairwise;
  pairwise.max_depth = 4;
  pairwise.eta = 0.3;
  pairwise.rounds = 100;
  pairwise.base_half_life = 64;
  XGBoostOptions deeper = pairwise;
  deeper.max_depth = 6;
  deeper.eta = 0.1;
  deeper.rounds = 300;
  XGBoostOptions regression = deeper;
  regression.objective = "reg:squarederror";
  regression.label = CostLabel::kLogThroughput;
  XGBoostOptions regression_linear = regression;
  regression_linear.label = CostLabel::kRelativeThroughput;

  XGBoostOptions deeper_slow = deeper;
  deeper_slow.base_half_life = 256;
  XGBoostOptions deeper_slower = deeper;
  deeper_slower.base_half_life = 1024;
  XGBoostOptions pairwise_slow = pairwise;
  pairwise_slow.base_half_life = 256;

  std::vector<Variant> variants = {
      {"knob/mean/pairwise (old default)", knob, mean, pairwise},
      {"knob/best/pairwise", knob, best, pairwise},
      {"knob/best/pairwise-deeper", knob, best, deeper},
      {"knob/best/pairwise-deeper-hl256 (default)", knob, best, deeper_slow},
      {"knob/best/pairwise-deeper-hl1024", knob, best, deeper_slower},
      {"knob/best/pairwise-hl256", knob, best, pairwise_slow},
      {"knob/best/reg-log", knob, best, regression},
      {"knob/best/reg-relative", knob, best, regression_linear},

      {"derived/best/pairwise-deeper", derived, best, deeper},
      {"derived/best/reg-log", derived, best, regression},
      {"loop/best/pairwise-deeper", loop, best, deeper},
      {"loop/best/reg-log", loop, best, regression},
      {"knob+loop/best/pairwise-deeper", knob_loop, best, deeper},
      {"knob+loop/best/reg-log", knob_loop, best, regression},
  };

  int64_t failed = 0;
  for (const Sample& s : samples) failed += s.repeats.empty() ? 1 : 0;
  std::printf(
      "%s on '%s': %zu records (%lld failed), %zu of other workloads, %lld outside the space\n",
      key.c_str(), o.target.c_str(), samples.size(), static_cast<long long>(failed), others.size(),
      static_cast<long long>(outside_space));
  std::printf("noise ceiling (even vs odd repeats): %.3f\n", NoiseCeiling(samples));
  for (const Variant& v : variants) {
    if (v.name.find(o.variant) == std::string::npos) continue;
    Score s = Evaluate(v, samples, others, o);
    if (o.json) {
      PrintJsonLine({{"benchmark", "cost_model_eval"},
                     {"task", key},
                     {"variant", v.name},
                     {"accuracy", Round(s.mean_accuracy, 4)},
                     {"min", Round(s.min_accuracy, 4)},
                     {"max", Round(s.max_accuracy, 4)},
                     {"recall_top10", Round(s.mean_recall, 4)},
                     {"zero_shot_accuracy", Round(s.zero_shot, 4)},
                     {"transfer_accuracy", Round(s.transfer_accuracy, 4)},
                     {"zero_shot_trials_to_95", s.zero_shot_trials},
                     {"zero_shot_top16", Round(s.zero_shot_top16, 4)}},
                    std::cout);
    } else {
      std::printf("  %-42s accuracy %.3f [%.3f, %.3f]  top-10%% recall %.3f", v.name.c_str(),
                  s.mean_accuracy, s.min_accuracy, s.max_accuracy, s.mean_recall);
      if (s.zero_shot >= 0) {
        std::printf("  zero-shot %.3f (trials to 95%% %lld, top-16 best %.3f)  with base %.3f",
                    s.zero_shot, static_cast<long long>(s.zero_shot_trials), s.zero_shot_top16,
                    s.transfer_accuracy);
        if (!o.zero_shot_only) {
          std::printf("\n      trials to 95%%: own %.1f, base %.1f", s.own_trials, s.base_trials);
          for (size_t j = 0; j < kOwnShares.size(); ++j) {
            std::printf("; joint(share %.1f) acc %.3f trials %.1f", kOwnShares[j],
                        s.joint_accuracy[j], s.joint_trials[j]);
          }
        }
      }
      std::printf("\n");
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Cost-model variants compared offline on a tuning log's measurements.",
               "cost_model_eval"};
  app.option_defaults()->always_capture_default();
  app.add_option("--db", o.db, "tuning log")->required();
  app.add_option("--task", o.task, "workload key whose records are ranked")->required();
  app.add_option("--target", o.target, "target string of the records");
  app.add_option("--splits", o.splits, "random train/test splits")->check(Positive());
  app.add_option("--train", o.train, "training records per split (-1: half)");
  app.add_option("--seed", o.seed, "random seed");
  app.add_option("--variant", o.variant, "only variants whose name contains this");
  app.add_flag("--zero-shot-only", o.zero_shot_only, "skip the splits");
  app.add_flag("--json", o.json, "one JSON object per variant");
  return RunCommandLine(app, argc, argv, std::cout, std::cerr, [&o] { return Run(o); });
}
