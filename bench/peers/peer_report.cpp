#include "peer_report.hpp"

#include <algorithm>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <string>

namespace heist::peers {

double median(std::vector<double> samples) {
  if (samples.empty()) {
    return 0.0;
  }
  const auto middle = samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2);
  std::ranges::nth_element(samples, middle);
  if (samples.size() % 2 != 0) {
    return *middle;
  }
  return (*std::max_element(samples.begin(), middle) + *middle) / 2.0;
}

void print_summary(std::ostream& out, const Report& report) {
  const auto flags = out.flags();
  const auto precision = out.precision();
  out << std::fixed << std::setprecision(6);
  out << "app:      " << report.app << '\n'
      << "model:    " << report.impl << '\n'
      << "params:   " << report.params << '\n'
      << "workers:  " << report.workers << '\n'
      << "median:   " << median(report.times_s) << " s\n"
      << "times:   ";
  for (const double time : report.times_s) {
    out << ' ' << time;
  }
  out << " s\n"
      << "result:   " << report.result << '\n'
      << "verified: " << (report.verified ? "yes" : "no") << '\n';
  out.flags(flags);
  out.precision(precision);
}

void print_json(std::ostream& out, const Report& report) {
  nlohmann::ordered_json json;
  json["app"] = std::string(report.app);
  json["impl"] = std::string(report.impl);
  json["params"] = nlohmann::ordered_json::parse(report.params);
  json["ranks"] = 1;
  json["workers"] = report.workers;
  json["time_s"] = median(report.times_s);
  json["times_s"] = report.times_s;
  json["warmup_s"] = report.warmup_s;
  json["result"] = report.result;
  json["verified"] = report.verified;
  out << json.dump() << '\n';
}

}  // namespace heist::peers
