// Numbers for people: what every human-readable line of `heist bench` and
// `heist sim` prints (their JSON keeps full precision). Four significant
// digits by default, trailing zeros dropped, plain notation between 1e-4 and
// 1e6 and an exponent outside: 0.045470170000000004 -> "0.04547",
// 3.0 -> "3", 1234.5678 -> "1235", 1234567 -> "1.235e+06".
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace heist::stats {

inline std::string human_number(double value, int significant = 4) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return "0";
  significant = std::clamp(significant, 1, 17);
  char scientific[64];
  std::snprintf(scientific, sizeof scientific, "%.*e", significant - 1, value);  // rounded once, here
  std::string text = scientific;
  const std::size_t e = text.find('e');
  const int exponent = std::atoi(text.c_str() + e + 1);  // of the rounded value: 9999.7 -> 1.000e+04
  if (exponent >= 6 || exponent < -4) {
    std::size_t end = e;  // 1.200e+06 -> 1.2e+06
    while (text[end - 1] == '0') --end;
    if (text[end - 1] == '.') --end;
    return text.substr(0, end) + text.substr(e);
  }
  char plain[64];
  std::snprintf(plain, sizeof plain, "%.*f", std::max(0, significant - 1 - exponent), std::strtod(scientific, nullptr));
  text = plain;
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

}  // namespace heist::stats
