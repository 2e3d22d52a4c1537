// "Average degradation from best" and "wins", as Aida & Casanova compute them for Tables 4-6
// (§4.3.2): per instance, each algorithm's relative excess over the best algorithm on that
// instance; per scenario, the average over its instances; over scenarios, the average of those.
// An algorithm "wins" a scenario when its scenario degradation is the lowest (ties count for
// every tied algorithm, so the wins may add up to more than the scenarios, as in the paper).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace resched::experiment {

class DegradationTable {
 public:
  // One figure (lower is better) of `algorithm` on one instance of a scenario. An instance an
  // algorithm has no figure for (a failed plan) is left out of that algorithm's average.
  void Add(const std::string& scenario, const std::string& instance, const std::string& algorithm,
           double value);

  struct Row {
    std::string algorithm;
    double mean_degradation = 0;  // fraction, e.g. 0.21 for 21 %; negative: better than best
    // Half the width of mean_degradation's 95 % confidence interval (normal approximation over
    // the scenarios' degradations): the spread a few instances per scenario leave.
    double ci95 = 0;
    int wins = 0;
    int scenarios = 0;
  };
  // Rows in the order of `algorithms`, over the scenarios whose key starts with `prefix`. "Best"
  // on an instance is the lowest figure among `reference` (empty: among `algorithms`), so extra
  // variants can be measured against the paper's algorithms without changing the paper's table.
  // Only algorithms in the reference set can win.
  std::vector<Row> Summarize(const std::vector<std::string>& algorithms,
                             const std::string& prefix = "",
                             const std::vector<std::string>& reference = {}) const;

 private:
  // scenario -> instance -> algorithm -> figure
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> values_;
};

}  // namespace resched::experiment
