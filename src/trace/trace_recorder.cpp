#include "trace/trace_recorder.hpp"

#include <cinttypes>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

#include "task/task_registry.hpp"
#include "task/task_slot.hpp"

namespace heist::trace {

namespace {

// A JSON string literal (quotes included) of `text`.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Flow ids unique over a job: 13 bits of rank, 12 of worker, 28 of sequence
// (below 2^53, so every JSON reader keeps them exact).
std::uint64_t flow_id(int rank, int worker, std::uint64_t seq) {
  return (static_cast<std::uint64_t>(rank & 0x1FFF) << 40) | (static_cast<std::uint64_t>(worker & 0xFFF) << 28) |
         (seq & 0xFFFFFFF);
}

class JsonEvents {
 public:
  explicit JsonEvents(std::FILE* f) : f_(f) {}
  // One event object; `body` is its fields without braces.
  void add(const std::string& body) {
    std::fputs(first_ ? "\n" : ",\n", f_);
    first_ = false;
    std::fputc('{', f_);
    std::fputs(body.c_str(), f_);
    std::fputc('}', f_);
  }

 private:
  std::FILE* f_;
  bool first_ = true;
};

std::string us(std::int64_t ns) {
  char text[40];
  std::snprintf(text, sizeof text, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
  return text;
}

std::string where(int pid, int tid) { return "\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid); }

}  // namespace

TraceRecorder::TraceRecorder(const Options& options, int workers) : file_(options.trace_file) {
  // The file is written when the run ends: a path that cannot be written
  // is refused now, before any work (under mpirun every rank's file goes
  // beside it, path()).
  const std::size_t slash = file_.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : file_.substr(0, slash);
  struct stat info {};
  const char* why = nullptr;
  if (::stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) why = "its folder does not exist";
  else if (::access(folder.c_str(), W_OK) != 0) why = "its folder is not writable";
  else if (::stat(file_.c_str(), &info) == 0 && (S_ISDIR(info.st_mode) || ::access(file_.c_str(), W_OK) != 0))
    why = S_ISDIR(info.st_mode) ? "it is a folder" : "it is not writable";
  if (why != nullptr) throw OptionError("--trace: cannot write '" + file_ + "': " + why);
  const std::int64_t min_ns = static_cast<std::int64_t>(options.trace_min_us) * 1000;
  const std::int64_t queue_ns = static_cast<std::int64_t>(options.trace_queue_us) * 1000;
  for (int i = 0; i < workers; ++i)
    workers_.push_back(std::make_unique<WorkerTrace>(min_ns, queue_ns, options.trace_max_events));
}

std::string TraceRecorder::path() const {
  if (!several_ranks_) return file_;
  const std::size_t slash = file_.find_last_of('/');
  const std::size_t dot = file_.find_last_of('.');
  const std::string tag = ".rank" + std::to_string(rank_);
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return file_ + tag;
  return file_.substr(0, dot) + tag + file_.substr(dot);
}

void TraceRecorder::write(const task::TaskRegistry& registry) const {
  const std::string target = path();
  std::FILE* f = std::fopen(target.c_str(), "w");
  if (f == nullptr) throw std::runtime_error("heist: cannot write the trace file '" + target + "'");
  std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
  JsonEvents out(f);
  const int pid = rank_;
  out.add("\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(pid) + ",\"args\":{\"name\":\"rank " +
          std::to_string(pid) + "\"}");
  out.add("\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + std::to_string(pid) +
          ",\"args\":{\"sort_index\":" + std::to_string(pid) + "}");
  std::set<std::pair<int, int>> named;  // (pid, tid) tracks with a thread_name
  auto name_track = [&](int p, int t) {
    if (!named.emplace(p, t).second) return;
    const std::string name = t == kPublicQueueTrack ? "public queue (rank " + std::to_string(p) + ")"
                                                    : "worker " + std::to_string(t);
    out.add("\"ph\":\"M\",\"name\":\"thread_name\"," + where(p, t) + ",\"args\":{\"name\":" + quoted(name) + "}");
    out.add("\"ph\":\"M\",\"name\":\"thread_sort_index\"," + where(p, t) + ",\"args\":{\"sort_index\":" +
            std::to_string(t) + "}");
  };
  std::uint64_t dropped = 0;
  for (std::size_t wi = 0; wi < workers_.size(); ++wi) {
    const int tid = static_cast<int>(wi);
    name_track(pid, tid);
    const WorkerTrace& w = *workers_[wi];
    dropped += w.dropped();
    std::uint64_t seq = 0;
    for (const Event& e : w.events()) {
      switch (e.kind) {
        case Event::Kind::task: {
          std::string name = e.value == task::kClosureFn ? "closure"
                             : e.value < registry.size() ? registry[e.value].name
                                                         : "task " + std::to_string(e.value);
          if (static_cast<int>(e.from_rank) != pid) name += " (from rank " + std::to_string(e.from_rank) + ")";
          out.add("\"ph\":\"X\",\"cat\":\"task\",\"name\":" + quoted(name) + "," + where(pid, tid) +
                  ",\"ts\":" + us(e.begin_ns) + ",\"dur\":" + us(e.end_ns - e.begin_ns));
          break;
        }
        case Event::Kind::steal: {
          const std::uint64_t id = flow_id(pid, tid, ++seq);
          const std::int64_t mid = e.begin_ns + (e.end_ns - e.begin_ns) / 2;
          const bool remote = e.victim_rank != pid;
          name_track(e.victim_rank, e.victim_track);
          const std::string victim = remote ? "rank " + std::to_string(e.victim_rank)
                                            : "worker " + std::to_string(e.victim_track);
          const std::string thief = remote ? "rank " + std::to_string(pid) + " worker " + std::to_string(tid)
                                           : "worker " + std::to_string(tid);
          const std::string args = ",\"args\":{\"tasks\":" + std::to_string(e.value) + "}";
          out.add("\"ph\":\"X\",\"cat\":\"steal\",\"name\":" +
                  quoted("steal " + std::to_string(e.value) + " from " + victim) + "," + where(pid, tid) +
                  ",\"ts\":" + us(e.begin_ns) + ",\"dur\":" + us(e.end_ns - e.begin_ns) + args);
          out.add("\"ph\":\"X\",\"cat\":\"steal\",\"name\":" + quoted("stolen by " + thief) + "," +
                  where(e.victim_rank, e.victim_track) + ",\"ts\":" + us(mid) + ",\"dur\":0" + args);
          out.add("\"ph\":\"s\",\"cat\":\"steal\",\"name\":\"steal\",\"id\":" + std::to_string(id) + "," +
                  where(e.victim_rank, e.victim_track) + ",\"ts\":" + us(mid));
          out.add("\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"steal\",\"name\":\"steal\",\"id\":" + std::to_string(id) + "," +
                  where(pid, tid) + ",\"ts\":" + us(mid));
          break;
        }
        case Event::Kind::queue:
          out.add("\"ph\":\"C\",\"name\":" + quoted("queue length, worker " + std::to_string(tid)) + "," +
                  where(pid, tid) + ",\"ts\":" + us(e.begin_ns) + ",\"args\":{\"tasks\":" + std::to_string(e.value) +
                  "}");
          break;
      }
    }
  }
  std::fputs("\n],\"otherData\":{", f);
  std::fprintf(f, "\"rank\":%d,\"workers\":%zu,\"dropped_events\":%" PRIu64 "}}\n", rank_, workers_.size(),
               dropped);
  const bool failed = std::ferror(f) != 0;
  if (std::fclose(f) != 0 || failed) throw std::runtime_error("heist: writing the trace file '" + target + "' failed");
  if (dropped > 0)
    std::fprintf(stderr,
                 "heist: the trace '%s' is missing %" PRIu64
                 " events past --trace-max-events per worker; raise it or --trace-min-us\n",
                 target.c_str(), dropped);
}

}  // namespace heist::trace
