// Text forms of the locality options (include/heist/options.hpp): the
// user-defined hierarchy. Every parser throws OptionError naming its flag.
#include <charconv>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "heist/options.hpp"

namespace heist {

namespace {

std::uint32_t parse_count(const std::string& text, const char* flag, const std::string& what) {
  std::uint32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 1 || value > (1u << 20))
    throw OptionError(std::string(flag) + ": " + what + " '" + text + "' is not a count in [1, 1048576]");
  return value;
}

// "a=1,b=2" (commas or whitespace between items) -> {{a, 1}, {b, 2}}.
std::vector<std::pair<std::string, std::string>> items(const std::string& text, const char* flag) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string item;
  std::istringstream in(text);
  while (in >> item) {
    std::istringstream parts(item);
    std::string part;
    while (std::getline(parts, part, ',')) {
      if (part.empty()) continue;
      const std::size_t eq = part.find('=');
      if (eq == std::string::npos)
        throw OptionError(std::string(flag) + ": '" + part + "' is not LEVEL=VALUE");
      out.emplace_back(part.substr(0, eq), part.substr(eq + 1));
    }
  }
  return out;
}

std::string read_spec_file(const std::string& path, const char* flag) {
  std::ifstream file(path);
  if (!file) throw OptionError(std::string(flag) + ": cannot read the file '" + path + "'");
  std::string text, line;
  while (std::getline(file, line)) {
    const std::size_t hash = line.find('#');
    text += line.substr(0, hash) + "\n";
  }
  return text;
}

}  // namespace

std::string to_string(const HierarchySpec& h) {
  if (!h.defined()) return "detect";
  std::string out;
  const std::pair<const char*, std::uint32_t> levels[] = {
      {"cache", h.workers_per_cache}, {"numa", h.workers_per_numa}, {"socket", h.workers_per_socket}};
  for (const auto& [name, size] : levels) {
    if (size == 0) continue;
    if (!out.empty()) out += ',';
    out += name;
    out += '=';
    out += std::to_string(size);
  }
  return out;
}

HierarchySpec parse_hierarchy(const std::string& text) {
  constexpr const char* flag = "--hierarchy";
  if (text.empty() || text == "detect") return {};
  const std::string spec = text[0] == '@' ? read_spec_file(text.substr(1), flag) : text;
  HierarchySpec h;
  for (const auto& [level, value] : items(spec, flag)) {
    std::uint32_t* slot = level == "cache"    ? &h.workers_per_cache
                          : level == "numa"   ? &h.workers_per_numa
                          : level == "socket" ? &h.workers_per_socket
                                              : nullptr;
    if (slot == nullptr)
      throw OptionError(std::string(flag) + ": unknown level '" + level + "' (cache, numa, socket: workers per domain)");
    *slot = parse_count(value, flag, "workers per " + level);
  }
  if (!h.defined()) throw OptionError(std::string(flag) + ": '" + text + "' names no level");
  // Nesting: each set size is a multiple of every set size below it.
  std::uint32_t below = 1;
  const char* below_name = "worker";
  const std::pair<const char*, std::uint32_t> levels[] = {
      {"cache", h.workers_per_cache}, {"numa", h.workers_per_numa}, {"socket", h.workers_per_socket}};
  for (const auto& [name, size] : levels) {
    if (size == 0) continue;
    if (size % below != 0)
      throw OptionError(std::string(flag) + ": " + name + "=" + std::to_string(size) + " is not a multiple of " +
                        below_name + "=" + std::to_string(below) + " (domains must nest)");
    below = size;
    below_name = name;
  }
  return h;
}

}  // namespace heist
