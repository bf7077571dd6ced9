// Text forms of the locality options (include/heist/options.hpp): chunks per
// level, victim selection, balancing, the user-defined hierarchy. Every
// parser throws OptionError naming its flag.
#include <charconv>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "heist/options.hpp"
#include "policy/topology.hpp"

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

// A level named in an option: cache .. machine (the worker level has no victims).
int level_index(const std::string& name, const char* flag) {
  for (int l = 1; l < kHierarchyLevels; ++l)
    if (name == policy::to_string(policy::level_at(l))) return l;
  throw OptionError(std::string(flag) + ": unknown level '" + name + "' (cache, numa, socket, process, node, machine)");
}

std::string chunk_value(std::uint32_t v) { return v == ChunkSpec::kHalf ? "half" : std::to_string(v); }

}  // namespace

// ---------------------------------------------------------------- chunks

std::string to_string(const ChunkSpec& chunk) {
  switch (chunk.kind) {
    case ChunkSpec::Kind::fixed: return std::to_string(chunk.k);
    case ChunkSpec::Kind::half: return "half";
    case ChunkSpec::Kind::hcs: break;
  }
  std::string out = "hcs:" + std::to_string(chunk.k);
  for (int l = 1; l < kHierarchyLevels; ++l) {
    const std::uint32_t v = chunk.levels[static_cast<std::size_t>(l)];
    if (v == 0) continue;
    out += ',';
    out += policy::to_string(policy::level_at(l));
    out += '=';
    out += chunk_value(v);
  }
  return out;
}

ChunkSpec parse_chunk(const std::string& text) {
  constexpr const char* flag = "--chunk";
  ChunkSpec c;
  if (text == "half") {
    c.kind = ChunkSpec::Kind::half;
    c.k = 0;
    return c;
  }
  if (text.rfind("hcs", 0) != 0) {
    c.k = parse_count(text, flag, "chunk");
    return c;
  }
  c.kind = ChunkSpec::Kind::hcs;
  if (text == "hcs") return c;
  if (text[3] != ':' || text.size() == 4)
    throw OptionError(std::string(flag) + ": '" + text + "' is not hcs[:K][,LEVEL=K|half]...");
  std::string rest = text.substr(4);
  // A leading count (no '=') is K, the chunk inside a node.
  const std::size_t comma = rest.find(',');
  const std::string first = rest.substr(0, comma);
  if (!first.empty() && first.find('=') == std::string::npos) {
    c.k = parse_count(first, flag, "hcs chunk");
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  for (const auto& [level, value] : items(rest, flag))
    c.levels[static_cast<std::size_t>(level_index(level, flag))] =
        value == "half" ? ChunkSpec::kHalf : parse_count(value, flag, "chunk at " + level);
  return c;
}

// ---------------------------------------------------------------- victims

const char* to_string(VictimSpec::Kind kind) noexcept {
  switch (kind) {
    case VictimSpec::Kind::random: return "random";
    case VictimSpec::Kind::hvs: return "hvs";
    case VictimSpec::Kind::success_only: return "success-only";
  }
  return "?";
}

std::string to_string(const HvsCounts& counts) {
  std::string out;
  for (int l = 1; l < kHierarchyLevels; ++l) {
    const std::uint32_t v = counts.attempts[static_cast<std::size_t>(l)];
    if (v == 0) continue;
    if (!out.empty()) out += ',';
    out += policy::to_string(policy::level_at(l));
    out += '=';
    out += std::to_string(v);
  }
  return out.empty() ? "default" : out;
}

HvsCounts parse_hvs_counts(const std::string& text) {
  constexpr const char* flag = "--hvs-attempts";
  HvsCounts counts;
  if (text == "default") return counts;
  const auto parsed = items(text, flag);
  if (parsed.empty()) throw OptionError(std::string(flag) + ": '" + text + "' names no level");
  for (const auto& [level, value] : parsed)
    counts.attempts[static_cast<std::size_t>(level_index(level, flag))] =
        parse_count(value, flag, "attempts at " + level);
  return counts;
}

const char* to_string(BalanceMode mode) noexcept { return mode == BalanceMode::push ? "push" : "steal"; }

const char* to_string(RemoteStealMode mode) noexcept {
  return mode == RemoteStealMode::sequential ? "sequential" : "parallel";
}

// ---------------------------------------------------------------- hierarchy

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
