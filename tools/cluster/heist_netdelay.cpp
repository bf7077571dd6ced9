// heist-netdelay: a userspace Ethernet switch that delays every frame by a
// fixed one-way latency and can limit the rate of each host's link — what
// `tc qdisc add dev eth0 root netem delay D rate R` does on each host, for
// kernels built without sch_netem. tools/cluster/heist-cluster starts it when
// netem is missing (or when asked with --net switch).
//
// Model: K hosts, each attached by one full-duplex link, a TAP device this
// program creates (named <prefix>t<i>; heist-cluster moves it into host i's
// network namespace). A frame host A sends is serialised on A's uplink (at
// --rate-mbit, if set), switched store-and-forward to the port of its
// destination MAC (learned from source addresses; broadcast, multicast and
// unknown destinations are flooded), serialised on that port's downlink and
// delivered --delay-us after it left the downlink. So one direction of a
// host pair sees D + size/R (twice size/R through the two links), and a
// round trip 2D + ...: the same as netem with `delay D` on every host's egress.
// Frames to one host leave in the order they arrived (one FIFO per output
// port; due times never decrease along it). A full output queue drops the
// frame, as a switch does; TCP retransmits.
//
// Timing: no frame leaves before it is due (as with netem). The loop sleeps in
// ppoll() until the next frame is due (timer slack 1 ns) or a frame arrives,
// so it takes no core from the job it shares the machine with; a frame then
// leaves late by the kernel's wake-up latency (tens of microseconds in a
// loaded VM). With --spin-us S the loop wakes S microseconds early and polls
// without a timeout for the rest: precise when S covers the wake-up latency,
// at the cost of up to S microseconds of CPU time per wake-up (the counters
// printed at exit include the switch's CPU time). `heist-cluster ping`
// measures the round trip.
// The switch runs at real-time priority (SCHED_FIFO, --priority): a frame must
// not wait for a time slice behind the ranks it connects, which busy-poll in
// MPI on the same cores (a NIC or netem does not wait for a core either).
//
// Single-threaded; no state is shared with anything but the kernel.
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::size_t kReadBuffer = 65536 + 64;  // any MTU a TAP accepts, plus the Ethernet header
constexpr std::size_t kEthernetHeader = 14;
constexpr int kReadBurst = 64;  // frames read from one port before the others get a turn

struct Config {
  std::string prefix;
  int ports = 2;
  std::int64_t delay_ns = 0;
  double rate_mbit = 0;  // 0: unlimited
  std::size_t queue_frames = 4096;
  std::int64_t spin_ns = 0;  // busy-wait instead of sleeping when the next frame is due this soon
  int priority = 10;         // SCHED_FIFO priority; 0: the normal scheduler
};

struct Frame {
  std::int64_t due_ns;
  std::vector<std::byte> bytes;
};

// One host's link. Written only by the loop.
struct Port {
  int fd = -1;
  std::string name;
  std::int64_t uplink_free_ns = 0;    // host -> switch direction busy until then
  std::int64_t downlink_free_ns = 0;  // switch -> host direction busy until then
  std::deque<Frame> out;              // frames for this host, due times non-decreasing
  std::uint64_t received = 0, delivered = 0, dropped = 0;
};

using Mac = std::array<std::uint8_t, 6>;

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "heist-netdelay: %s\n(heist-netdelay --help for usage)\n", message.c_str());
  std::exit(2);
}

[[noreturn]] void system_error(const std::string& what) {
  std::fprintf(stderr, "heist-netdelay: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

std::int64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

template <typename T>
T parse_number(std::string_view text, T low, T high, const char* flag) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < low || value > high)
    usage_error(std::string(flag) + " takes a number from " + std::to_string(low) + " to " + std::to_string(high) +
                ", not '" + std::string(text) + "'");
  return value;
}

constexpr const char* kUsage =
    "usage: heist-netdelay --prefix P --ports K [--delay-us D] [--rate-mbit R] [--queue-frames N]\n"
    "                      [--spin-us S] [--priority P]\n"
    "Creates TAP devices Pt0 .. Pt(K-1) and switches Ethernet frames between them,\n"
    "each delayed by D microseconds (one way; default 0) and, with R > 0, limited to\n"
    "R Mbit/s per link and direction. Prints 'ready' when the devices exist; runs\n"
    "until SIGTERM or SIGINT, then prints its counters. Needs CAP_NET_ADMIN.\n"
    "With S > 0 it wakes S microseconds before a frame is due and busy-polls for\n"
    "the rest: exact delays, at the cost of CPU time. It runs with\n"
    "SCHED_FIFO priority P (default 10; 0: normal scheduling).\n";

Config parse(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (i + 1 >= argc) usage_error("missing value after " + std::string(flag));
    const std::string_view value = argv[++i];
    if (flag == "--prefix") c.prefix = value;
    else if (flag == "--ports") c.ports = parse_number<int>(value, 2, 250, "--ports");
    else if (flag == "--delay-us") c.delay_ns = std::int64_t{parse_number<int>(value, 0, 10'000'000, "--delay-us")} * 1000;
    else if (flag == "--rate-mbit") c.rate_mbit = parse_number<double>(value, 0.0, 1e6, "--rate-mbit");
    else if (flag == "--queue-frames") c.queue_frames = parse_number<std::size_t>(value, 16, 1u << 20, "--queue-frames");
    else if (flag == "--priority") c.priority = parse_number<int>(value, 0, 99, "--priority");
    else if (flag == "--spin-us") c.spin_ns = std::int64_t{parse_number<int>(value, 0, 1000, "--spin-us")} * 1000;
    else usage_error("unknown option " + std::string(flag));
  }
  if (c.prefix.empty()) usage_error("--prefix is required");
  if (c.prefix.size() + 1 + std::to_string(c.ports - 1).size() >= IFNAMSIZ)
    usage_error("--prefix '" + c.prefix + "' is too long for an interface name");
  return c;
}

int open_tap(const std::string& name) {
  const int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) system_error("cannot open /dev/net/tun (needs root or CAP_NET_ADMIN, and the tun driver)");
  ifreq request{};
  request.ifr_flags = IFF_TAP | IFF_NO_PI;
  std::memcpy(request.ifr_name, name.c_str(), name.size() + 1);
  if (ioctl(fd, TUNSETIFF, &request) < 0) system_error("cannot create TAP device " + name);
  return fd;
}

class Switch {
 public:
  explicit Switch(const Config& c) : config_(c), ports_(static_cast<std::size_t>(c.ports)) {
    for (int i = 0; i < c.ports; ++i) {
      Port& p = ports_[static_cast<std::size_t>(i)];
      p.name = c.prefix + "t" + std::to_string(i);
      p.fd = open_tap(p.name);
    }
  }

  // Runs until a signal arrives on `signal_fd`.
  void run(int signal_fd) {
    std::vector<pollfd> fds(ports_.size() + 1);
    for (std::size_t i = 0; i < ports_.size(); ++i) fds[i] = {ports_[i].fd, POLLIN, 0};
    fds.back() = {signal_fd, POLLIN, 0};
    std::vector<std::byte> buffer(kReadBuffer);
    for (;;) {
      const std::int64_t due = deliver(now_ns());
      timespec wait{};
      const timespec* timeout = nullptr;
      if (due >= 0) {
        std::int64_t left = std::max<std::int64_t>(0, due - now_ns());
        left = left > config_.spin_ns ? left - config_.spin_ns : 0;  // wake early, then poll until it is due
        wait = {static_cast<time_t>(left / 1'000'000'000), static_cast<long>(left % 1'000'000'000)};
        timeout = &wait;
      }
      if (ppoll(fds.data(), fds.size(), timeout, nullptr) < 0) {
        if (errno == EINTR) continue;
        system_error("ppoll");
      }
      if (fds.back().revents != 0) return;
      for (std::size_t i = 0; i < ports_.size(); ++i)
        if ((fds[i].revents & POLLIN) != 0) receive(i, buffer);
    }
  }

  void print_counters() const {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
    std::fprintf(stderr, "heist-netdelay: cpu time %.3f s user, %.3f s system\n", seconds(usage.ru_utime),
                 seconds(usage.ru_stime));
    for (const Port& p : ports_)
      std::fprintf(stderr, "heist-netdelay: %s: %llu frames in, %llu out, %llu dropped\n", p.name.c_str(),
                   static_cast<unsigned long long>(p.received), static_cast<unsigned long long>(p.delivered),
                   static_cast<unsigned long long>(p.dropped));
  }

 private:
  // Time to put `bytes` on one link at the configured rate.
  std::int64_t serialisation_ns(std::size_t bytes) const {
    if (config_.rate_mbit <= 0) return 0;
    return static_cast<std::int64_t>(static_cast<double>(bytes) * 8.0 * 1000.0 / config_.rate_mbit);
  }

  void receive(std::size_t from, std::vector<std::byte>& buffer) {
    Port& in = ports_[from];
    for (int n = 0; n < kReadBurst; ++n) {
      const ssize_t got = read(in.fd, buffer.data(), buffer.size());
      if (got < 0) {
        if (errno == EAGAIN || errno == EINTR) return;
        if (errno == EIO) return;  // the interface is down: nothing to read
        system_error("read from " + in.name);
      }
      const auto size = static_cast<std::size_t>(got);
      if (size < kEthernetHeader) continue;
      ++in.received;
      const std::int64_t now = now_ns();
      in.uplink_free_ns = std::max(now, in.uplink_free_ns) + serialisation_ns(size);
      Mac destination{}, source{};
      std::memcpy(destination.data(), buffer.data(), 6);
      std::memcpy(source.data(), buffer.data() + 6, 6);
      learn(source, from);
      const int to = lookup(destination);
      if (to >= 0) {
        if (static_cast<std::size_t>(to) != from) enqueue(static_cast<std::size_t>(to), buffer.data(), size, in.uplink_free_ns);
      } else {
        for (std::size_t p = 0; p < ports_.size(); ++p)
          if (p != from) enqueue(p, buffer.data(), size, in.uplink_free_ns);
      }
    }
  }

  void enqueue(std::size_t to, const std::byte* data, std::size_t size, std::int64_t at_switch_ns) {
    Port& out = ports_[to];
    if (out.out.size() >= config_.queue_frames) {
      ++out.dropped;
      return;
    }
    out.downlink_free_ns = std::max(at_switch_ns, out.downlink_free_ns) + serialisation_ns(size);
    std::vector<std::byte> bytes = spare_bytes();
    bytes.assign(data, data + size);
    out.out.push_back(Frame{out.downlink_free_ns + config_.delay_ns, std::move(bytes)});
  }

  // Writes every frame due by `now`; returns the next due time, or -1.
  std::int64_t deliver(std::int64_t now) {
    std::int64_t next = -1;
    for (Port& p : ports_) {
      while (!p.out.empty() && p.out.front().due_ns <= now) {
        Frame& f = p.out.front();
        if (write(p.fd, f.bytes.data(), f.bytes.size()) < 0) {
          if (errno != EAGAIN && errno != EIO && errno != EINTR) system_error("write to " + p.name);
          ++p.dropped;  // the host's queue is full or its interface is down
        } else {
          ++p.delivered;
        }
        spare_.push_back(std::move(f.bytes));
        p.out.pop_front();
      }
      if (!p.out.empty() && (next < 0 || p.out.front().due_ns < next)) next = p.out.front().due_ns;
    }
    return next;
  }

  std::vector<std::byte> spare_bytes() {
    if (spare_.empty()) return {};
    std::vector<std::byte> b = std::move(spare_.back());
    spare_.pop_back();
    return b;
  }

  void learn(const Mac& mac, std::size_t port) {
    if ((mac[0] & 1) != 0) return;  // a group address is never a source
    for (auto& [known, at] : macs_)
      if (known == mac) {
        at = static_cast<int>(port);
        return;
      }
    macs_.emplace_back(mac, static_cast<int>(port));
  }

  int lookup(const Mac& mac) const {
    if ((mac[0] & 1) != 0) return -1;  // broadcast or multicast: flood
    for (const auto& [known, at] : macs_)
      if (known == mac) return at;
    return -1;
  }

  Config config_;
  std::vector<Port> ports_;
  std::vector<std::pair<Mac, int>> macs_;       // a few hosts: a linear table beats hashing
  std::vector<std::vector<std::byte>> spare_;  // frame buffers to reuse
};

}  // namespace

int main(int argc, char** argv) {
  const Config config = parse(argc, argv);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  if (sigprocmask(SIG_BLOCK, &signals, nullptr) < 0) system_error("sigprocmask");
  const int signal_fd = signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd < 0) system_error("signalfd");
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);  // wake up when the next frame is due, not up to 50 us later
  if (config.priority > 0) {
    const sched_param param{config.priority};
    if (sched_setscheduler(0, SCHED_FIFO, &param) < 0)
      std::fprintf(stderr, "heist-netdelay: warning: no real-time priority (%s); frames may wait for a time slice\n",
                   std::strerror(errno));
  }

  Switch sw(config);
  std::printf("ready: %d ports, delay %lld us, spin %lld us, rate %s\n", config.ports,
              static_cast<long long>(config.delay_ns / 1000), static_cast<long long>(config.spin_ns / 1000),
              config.rate_mbit > 0 ? (std::to_string(config.rate_mbit) + " Mbit/s").c_str() : "unlimited");
  std::fflush(stdout);
  sw.run(signal_fd);
  sw.print_counters();
  return 0;
}
