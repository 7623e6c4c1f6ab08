// Engine-neutral parts of the Sluice priority Env: partitions and level maps, class caps, the node scheduler, the
// contract-device model and the fault injector. No RocksDB headers: this file is plain C++17.
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "sluice_io.h"

namespace sluice {

void SleepUntil(uint64_t deadline_ns) {
  timespec ts;
  ts.tv_sec = static_cast<time_t>(deadline_ns / 1000000000UL);
  ts.tv_nsec = static_cast<long>(deadline_ns % 1000000000UL);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// ------------------------------------------------------------------------------------------------ partitions ----

int Partition::RankOf(uint64_t file_number) {
  std::shared_lock<std::shared_mutex> l(levels_mu);
  int lvl;
  auto it = levels.find(file_number);
  if (it != levels.end()) {
    lvl = it->second;
  } else if (flushed.count(file_number) != 0) {
    lvl = 0;
  } else {
    return -1;
  }
  if (lvl <= 0) return 0;
  int r = lvl - base_level + 1;
  return r < 1 ? 1 : r;
}

void Partition::NoteFlushed(uint64_t file_number) {
  std::unique_lock<std::shared_mutex> l(levels_mu);
  if (flushed.size() > 100000) flushed.clear();  // bound memory if Java never pushes a map
  if (flushed.insert(file_number).second) level_gen.fetch_add(1, std::memory_order_release);
}

void Partition::SetLevelLocked(uint64_t number, int level) {
  level = std::min(std::max(level, 0), kMaxLevels - 1);
  auto it = levels.find(number);
  if (it != levels.end()) {
    files_at[it->second]--;
    it->second = level;
  } else {
    levels.emplace(number, level);
  }
  files_at[level]++;
  flushed.erase(number);
}

void Partition::RecomputeBaseLocked() {
  int base = 0;
  for (int l = 1; l < kMaxLevels; l++) {
    if (files_at[l] > 0) {
      base = l;
      break;
    }
  }
  base_level = base == 0 ? 1 : base;
}

void Partition::UpdateLevels(const uint64_t* numbers, const int* lvls, size_t n, bool replace) {
  std::unique_lock<std::shared_mutex> l(levels_mu);
  if (replace) {
    levels.clear();
    for (auto& c : files_at) c = 0;
    levels.reserve(n * 2);
  }
  for (size_t i = 0; i < n; i++) SetLevelLocked(numbers[i], lvls[i]);
  RecomputeBaseLocked();
  has_levels.store(true, std::memory_order_relaxed);
  level_gen.fetch_add(1, std::memory_order_release);
}

void Partition::ForgetFile(uint64_t file_number) {
  std::unique_lock<std::shared_mutex> l(levels_mu);
  bool changed = flushed.erase(file_number) != 0;
  auto it = levels.find(file_number);
  if (it != levels.end()) {
    files_at[it->second]--;
    levels.erase(it);
    RecomputeBaseLocked();
    changed = true;
  }
  if (changed) level_gen.fetch_add(1, std::memory_order_release);
}

int EnvState::Register(const std::string& name, const std::vector<std::string>& dirs) {
  std::lock_guard<std::mutex> l(parts_mu);
  for (size_t i = 0; i < parts.size(); i++) {
    if (parts[i]->name == name) {
      parts[i]->prefixes = dirs;
      return static_cast<int>(i);
    }
  }
  auto p = std::make_unique<Partition>();
  p->name = name;
  p->prefixes = dirs;
  parts.push_back(std::move(p));
  return static_cast<int>(parts.size() - 1);
}

Partition* EnvState::Lookup(const std::string& fname) {
  std::lock_guard<std::mutex> l(parts_mu);
  Partition* best = &unattributed;
  size_t best_len = 0;
  for (auto& p : parts) {
    for (auto& pre : p->prefixes) {
      if (pre.size() > best_len && fname.compare(0, pre.size(), pre) == 0) {
        best = p.get();
        best_len = pre.size();
      }
    }
  }
  return best;
}

Partition* EnvState::ByIndex(int idx) {
  std::lock_guard<std::mutex> l(parts_mu);
  if (idx < 0 || static_cast<size_t>(idx) >= parts.size()) return idx == -1 ? &unattributed : nullptr;
  return parts[idx].get();
}

int EnvState::PartitionCount() {
  std::lock_guard<std::mutex> l(parts_mu);
  return static_cast<int>(parts.size());
}

void EnvState::ReadStats(int idx, long* out) {
  for (int i = 0; i < kNumClasses * kStatFields; i++) out[i] = 0;
  auto add = [out](Partition* p) {
    for (int c = 0; c < kNumClasses; c++) {
      for (int f = 0; f < kStatFields; f++) {
        out[c * kStatFields + f] += static_cast<long>(p->cls[c].f[f].load(std::memory_order_relaxed));
      }
    }
  };
  if (idx == -2) {
    std::lock_guard<std::mutex> l(parts_mu);
    add(&unattributed);
    for (auto& p : parts) add(p.get());
    return;
  }
  Partition* p = ByIndex(idx);
  if (p != nullptr) add(p);
}

uint64_t EnvState::Schedule(int cls, bool urgent, bool write, uint64_t bytes, uint32_t ops, uint64_t units,
                            int* tier, bool* release, Partition* part) {
  // A foreground I/O may hold RocksDB's write-group leadership (WAL) or a user thread: its total wait is bounded.
  const bool fg = urgent || cls == kWal || cls == kUserGet || cls == kUserScan || cls == kMeta;
  const uint64_t max_wait = fg ? fg_max_wait_ns.load(std::memory_order_relaxed) : 0;
  const uint64_t deadline = max_wait == 0 ? 0 : NowNanos() + max_wait;
  bool overrun = false;
  uint64_t w = 0;
  if (!urgent && caps[cls].active.load(std::memory_order_relaxed)) {
    w += caps[cls].Acquire(bytes, ops, deadline, &overrun);
  }
  if (!urgent && part != nullptr && IsBackground(cls) && part->bg_cap.active.load(std::memory_order_relaxed)) {
    w += part->bg_cap.Acquire(bytes, ops, 0, &overrun);
  }
  if (sched.Active()) {
    bool late = false;
    w += sched.Acquire(cls, urgent, write, bytes, units, overrun ? NowNanos() : deadline, tier, release, &late);
    overrun = overrun || late;
  }
  if (overrun) overruns.fetch_add(1, std::memory_order_relaxed);
  return w;
}

void EnvState::SetClassLimit(int cls, double ops, double bytes) {
  std::lock_guard<std::mutex> l(caps_mu);
  caps[cls].Set(ops, bytes);
  int n = 0;
  for (auto& c : caps) n += c.active.load(std::memory_order_relaxed) ? 1 : 0;
  caps_on.store(n, std::memory_order_relaxed);
}

void EnvState::SetPartitionBackgroundLimit(Partition* p, double bytes) {
  std::lock_guard<std::mutex> l(caps_mu);
  bool was = p->bg_cap.active.load(std::memory_order_relaxed);
  p->bg_cap.Set(0, bytes);
  bool now = p->bg_cap.active.load(std::memory_order_relaxed);
  if (was != now) part_caps_on.fetch_add(now ? 1 : -1, std::memory_order_relaxed);
}

// ------------------------------------------------------------------------------------------------ class caps ----

namespace {
constexpr uint64_t kCapBurstNs = 20000000UL;  // a class may burst 20 ms worth of its rate after being idle

// GCRA reservation: returns the time at which a request of `cost` may start.
uint64_t Reserve(std::atomic<uint64_t>& tat, double rate, double cost, uint64_t now) {
  uint64_t inc = static_cast<uint64_t>(cost * 1e9 / rate);
  uint64_t old = tat.load(std::memory_order_relaxed);
  for (;;) {
    uint64_t base = old > now ? old : now;
    if (tat.compare_exchange_weak(old, base + inc, std::memory_order_relaxed)) {
      return base > now + kCapBurstNs ? base - kCapBurstNs : now;
    }
  }
}
}  // namespace

void ClassCap::Set(double ops_per_sec, double bytes_per_sec) {
  if (!(ops_per_sec > 0) || std::isinf(ops_per_sec)) ops_per_sec = 0;
  if (!(bytes_per_sec > 0) || std::isinf(bytes_per_sec)) bytes_per_sec = 0;
  ops_rate.store(ops_per_sec, std::memory_order_relaxed);
  bytes_rate.store(bytes_per_sec, std::memory_order_relaxed);
  ops_tat.store(0, std::memory_order_relaxed);
  bytes_tat.store(0, std::memory_order_relaxed);
  gen.fetch_add(1, std::memory_order_release);
  active.store(ops_per_sec > 0 || bytes_per_sec > 0, std::memory_order_relaxed);
}

uint64_t ClassCap::Acquire(uint64_t bytes, uint32_t ops, uint64_t deadline_ns, bool* overrun) {
  const uint64_t t0 = NowNanos();
  bool waited = false;
  for (;;) {
    uint32_t g = gen.load(std::memory_order_acquire);
    double orate = ops_rate.load(std::memory_order_relaxed);
    double brate = bytes_rate.load(std::memory_order_relaxed);
    uint64_t now = NowNanos();
    uint64_t start = now;
    if (orate > 0) start = std::max(start, Reserve(ops_tat, orate, ops, now));
    if (brate > 0 && bytes > 0) start = std::max(start, Reserve(bytes_tat, brate, static_cast<double>(bytes), now));
    bool changed = false;
    for (;;) {
      now = NowNanos();
      if (now >= start) break;
      if (deadline_ns != 0 && now >= deadline_ns) {
        *overrun = true;
        return NowNanos() - t0;
      }
      if (gen.load(std::memory_order_acquire) != g) {
        changed = true;
        break;
      }
      waited = true;
      uint64_t until = std::min(start, now + 50000000UL);  // re-check for a changed limit every 50 ms
      if (deadline_ns != 0) until = std::min(until, deadline_ns);
      SleepUntil(until);
    }
    if (!changed) return waited ? NowNanos() - t0 : 0;
  }
}

// ------------------------------------------------------------------------------------------- node scheduler ----

namespace {
constexpr double kNodeBurstSeconds = 0.02;
// Default burst of the write-bytes budget (env.policy.node.write.burst.ms sets it per Env). Whatever the scheduler releases beyond the device's write bandwidth waits in the
// device's FIFO write queue (ContractDevice::Admit, write_free_), and a WAL write arriving then completes only after
// it: the bucket's content is the extra latency a WAL write can see. The byte bucket's 20 ms would allow 20 ms of
// such queueing on top of the chunk in flight; 2 ms keeps the worst case near one chunk time (64 KiB at 40 MiB/s is
// 1.6 ms) while still absorbing the scheduler's wake-up lateness (~0.1 ms) on a busy machine, so the budget is not
// wasted. A grant only needs tokens > 0 (a chunk may take the bucket negative), so the burst need not hold a whole
// chunk. Measured on flex-noisy-neighbour (docs/benchmarks.md, "Tenants and quotas"): with 5 ms and 256-KiB chunks a
// WAL write waited up to ~28 ms behind queued flush and compaction chunks.
constexpr double kDefaultWriteBurstSeconds = 0.002;
}

namespace {
// Start of the CLOCK_MONOTONIC second holding `now`. The Calcspar allocator's seconds and the emulated device's refill
// seconds both start on these boundaries, so the paid tokens the allocator hands out in one second are the regular
// tokens the device has in that same second (Calcspar §4.1's stabilizer). Misaligned by up to a second, one device
// second could receive the end of one allocator second and the start of the next: CalcsparStabilizerTest measured 32
// overdraft I/Os in 2 s at 400 paid IOPS that way.
inline uint64_t SecondFloor(uint64_t now) { return now - now % 1000000000UL; }
}  // namespace

NodeScheduler::NodeScheduler() : write_burst_s_(kDefaultWriteBurstSeconds) {
  last_refill_ = NowNanos();
  sec_start_ = SecondFloor(last_refill_);
}

void NodeScheduler::SetPolicy(const PolicyParams& in) {
  std::unique_lock<std::mutex> l(mu_);
  PolicyParams p = in;
  for (int c = 0; c < kNumClasses; c++) p.tier_of[c] = std::min(std::max(p.tier_of[c], 0), kMaxTiers - 1);
  for (int t = 0; t < kMaxTiers; t++) {
    if (!(p.weight[t] > 0)) p.weight[t] = 1;
  }
  if (!(p.node_ops > 0) || std::isinf(p.node_ops)) p.node_ops = 0;
  if (!(p.node_bytes > 0) || std::isinf(p.node_bytes)) p.node_bytes = 0;
  if (!(p.node_write_bytes > 0) || std::isinf(p.node_write_bytes)) p.node_write_bytes = 0;
  if (!(p.paid_iops > 0) || std::isinf(p.paid_iops)) p.paid_iops = 0;
  p.min_window = std::min(std::max(p.min_window, 0.0), 1.0);
  if (!(p.pace_s > 0) || std::isinf(p.pace_s)) p.pace_s = 0;
  p_ = p;
  uint64_t now = NowNanos();
  last_refill_ = now;
  tok_ops_ = p_.node_ops * kNodeBurstSeconds;
  tok_bytes_ = p_.node_bytes * kNodeBurstSeconds;
  tok_wbytes_ = p_.node_write_bytes * write_burst_s_;
  sec_start_ = SecondFloor(now);
  sec_tokens_ = p_.paid_iops;
  for (int t = 0; t < kMaxTiers; t++) {
    alloc_[t] = 0;
    demand_[t] = 0;
    reserve_[t] = 0;
    starved_[t] = false;
    // no history yet: lower tiers start conservatively, in the last min_window of the second
    win_start_[t] = t == 0 ? 0 : 1.0 - p_.min_window;
    pass_[t] = 0;
    // inflight_ is kept: I/Os granted under the previous policy are still in the device and will Release()
  }
  vtime_ = 0;
  kind_.store(p_.kind, std::memory_order_relaxed);
  if (p_.kind == kPassThrough) {
    for (auto& q : q_) {
      for (Waiter* w : q) {
        inflight_[w->tier]++;  // released by its Acquire's caller like any grant
        w->granted = true;
        w->cv.notify_one();
      }
      q.clear();
    }
    waiting_ = 0;
  } else {
    Dispatch(now);
    for (auto& q : q_) {
      for (Waiter* w : q) w->cv.notify_one();  // recompute wake-up times under the new parameters
    }
  }
  waiting_atomic_.store(waiting_, std::memory_order_relaxed);
}

void NodeScheduler::SetWriteBurst(double seconds) {
  std::lock_guard<std::mutex> l(mu_);
  if (!(seconds > 0) || std::isinf(seconds)) return;
  write_burst_s_ = seconds;
  tok_wbytes_ = std::min(tok_wbytes_, p_.node_write_bytes * write_burst_s_);
}

PolicyParams NodeScheduler::Policy() {
  std::lock_guard<std::mutex> l(mu_);
  return p_;
}

void NodeScheduler::Refill(uint64_t now) {
  if ((RateMode() || p_.node_write_bytes > 0) && now > last_refill_) {
    double dt = static_cast<double>(now - last_refill_) / 1e9;
    if (p_.node_ops > 0) tok_ops_ = std::min(tok_ops_ + dt * p_.node_ops, p_.node_ops * kNodeBurstSeconds);
    if (p_.node_bytes > 0) tok_bytes_ = std::min(tok_bytes_ + dt * p_.node_bytes, p_.node_bytes * kNodeBurstSeconds);
    if (p_.node_write_bytes > 0) {
      tok_wbytes_ = std::min(tok_wbytes_ + dt * p_.node_write_bytes, p_.node_write_bytes * write_burst_s_);
    }
    last_refill_ = now;
  }
  if (p_.kind == kTimeWindows && now >= sec_start_ + 1000000000UL) {
    uint64_t secs = (now - sec_start_) / 1000000000UL;
    // Tier q's window opens at the share of the paid tokens that the more urgent tiers asked for in the previous
    // second (tail-aligned nested windows, Calcspar §4.2's example [0,1), [0.7,1), [0.9,1)), leaving it at least
    // min_window of the second; an idle previous second opens every window at 0.
    // A tier whose requests found the tokens exhausted is counted as wanting the whole budget: its arrivals understate
    // its demand (a blocked closed-loop client arrives once), and it must not stay starved.
    double cum = 0;
    for (int t = 1; t < kMaxTiers; t++) {
      cum += secs == 1 ? (starved_[t - 1] ? p_.paid_iops : demand_[t - 1]) : 0;
      reserve_[t] = cum;
      win_start_[t] = p_.paid_iops > 0 ? std::min(cum / p_.paid_iops, 1.0 - p_.min_window) : 0;
    }
    for (auto& d : demand_) d = 0;
    for (auto& s : starved_) s = false;
    win_start_[0] = 0;
    for (auto& a : alloc_) a = 0;
    sec_tokens_ = p_.paid_iops;
    sec_start_ += secs * 1000000000UL;
  }
}

bool NodeScheduler::Eligible(int tier, uint64_t now, bool starving) const {
  switch (p_.kind) {
    case kTimeWindows: {
      if (p_.paid_iops <= 0) return true;
      double frac = static_cast<double>(now - sec_start_) / 1e9;
      // Pacing: by a point `frac` into the second, at most paid * (frac + pace) tokens are granted, so one tier-0
      // burst (a flush, an L0 compaction) cannot take the whole second's tokens at its start and leave user reads
      // waiting for the next refill. The second's total stays at most paid, so the contract holds either way.
      if (p_.pace_s > 0 && p_.paid_iops - sec_tokens_ >= p_.paid_iops * (frac + p_.pace_s)) return false;
      if (!starving && tier > 0) {
        if (frac < win_start_[tier]) return false;
        // inside its window a lower tier takes only tokens beyond what the more urgent tiers are expected to need
        // for the rest of the second (their previous-second demand, pro rata)
        if (sec_tokens_ <= (1.0 - frac) * reserve_[tier]) return false;
      }
      return sec_tokens_ > 0;
    }
    default:
      if (RateMode()) return (p_.node_ops <= 0 || tok_ops_ > 0) && (p_.node_bytes <= 0 || tok_bytes_ > 0);
      if (InflightMode() && !starving) {
        for (int t = 0; t < tier; t++) {
          if (inflight_[t] > 0 || Candidate(t) != nullptr) return false;
        }
      }
      return true;
  }
}

NodeScheduler::Waiter* NodeScheduler::Candidate(int t) const {
  for (Waiter* w : q_[t]) {
    if (!WriteBlocked(w->tier, w->write)) return w;
  }
  return nullptr;
}

void NodeScheduler::Consume(int tier, bool write, uint64_t bytes, uint64_t units, uint64_t now) {
  if (p_.node_ops > 0) tok_ops_ -= static_cast<double>(units);
  if (p_.node_bytes > 0) tok_bytes_ -= static_cast<double>(bytes);
  if (write) {
    // tier 0 takes write tokens even when there are none (it never waits for them): the debt holds back the other
    // tiers' writes until the device has absorbed the foreground bytes
    if (p_.node_write_bytes > 0) tok_wbytes_ -= static_cast<double>(bytes);
    granted_wbytes_ += bytes;
  }
  if (p_.kind == kTimeWindows) {
    sec_tokens_ -= static_cast<double>(units);
    alloc_[tier] += static_cast<double>(units);
  }
  if (p_.kind == kWeightedFair) {
    double cost = p_.node_bytes > 0 ? static_cast<double>(bytes) : static_cast<double>(units);
    vtime_ = std::max(vtime_, pass_[tier]);
    pass_[tier] += cost / p_.weight[tier];
  }
  inflight_[tier]++;  // every grant is released once, whatever the policy is by then
  granted_units_ += units;
  granted_bytes_ += bytes;
  uint64_t sec = now / 1000000000UL;
  if (sec != cur_sec_) {
    prev_use_ = sec == cur_sec_ + 1 ? UseOf(cur_u_, cur_b_) : 0;
    prev_sec_ = sec - 1;
    cur_sec_ = sec;
    cur_u_ = cur_b_ = 0;
  }
  cur_u_ += static_cast<double>(units);
  cur_b_ += static_cast<double>(bytes);
}

double NodeScheduler::UseOf(double u, double b) const {
  double use = 0;
  if (p_.node_ops > 0) use = std::max(use, u / p_.node_ops);
  if (p_.node_bytes > 0) use = std::max(use, b / p_.node_bytes);
  if (p_.kind == kTimeWindows && p_.paid_iops > 0) use = std::max(use, u / p_.paid_iops);
  return use;
}

double NodeScheduler::BudgetUse(uint64_t now) {
  std::lock_guard<std::mutex> l(mu_);
  if (p_.kind == kPassThrough) return 0;
  uint64_t sec = now / 1000000000UL;
  if (sec == cur_sec_ + 1) return UseOf(cur_u_, cur_b_);
  if (sec == cur_sec_ && prev_sec_ == sec - 1) return prev_use_;
  return 0;
}

void NodeScheduler::Grant(Waiter* w, uint64_t now) {
  waiting_--;
  Consume(w->tier, w->write, w->bytes, w->units, now);
  w->granted = true;
  w->cv.notify_one();
}

bool NodeScheduler::DispatchOne(uint64_t now) {
  if (waiting_ == 0) return false;
  // Each tier is represented by its Candidate: its oldest waiter that is not a write held back by the write budget.
  // Without a write budget (or with write tokens left) that is the queue's head, as before. A tier whose waiters are
  // all held back by the write budget is skipped, so a read never waits for write tokens, not even behind a write of
  // its own or of a more urgent tier.
  Waiter* cand[kMaxTiers];
  for (int t = 0; t < kMaxTiers; t++) cand[t] = Candidate(t);
  int pick = -1;
  // Anti-starvation: the oldest candidate that has waited past the bound goes first (still subject to tokens).
  if (p_.starvation_ns > 0) {
    uint64_t oldest = UINT64_MAX;
    for (int t = 1; t < kMaxTiers; t++) {
      if (cand[t] != nullptr && now - cand[t]->enq_ns >= p_.starvation_ns && cand[t]->enq_ns < oldest) {
        oldest = cand[t]->enq_ns;
        pick = t;
      }
    }
    if (pick >= 0 && !Eligible(pick, now, true)) pick = -1;
  }
  if (pick < 0) {
    switch (p_.kind) {
      case kStrictPriority:
        for (int t = 0; t < kMaxTiers; t++) {
          if (cand[t] != nullptr) {
            if (Eligible(t, now, false)) pick = t;
            break;
          }
        }
        break;
      case kWeightedFair:
        if (p_.strict_top && cand[0] != nullptr) {
          if (Eligible(0, now, false)) pick = 0;
        } else {
          int best = -1;
          for (int t = p_.strict_top ? 1 : 0; t < kMaxTiers; t++) {
            if (cand[t] != nullptr && (best < 0 || pass_[t] < pass_[best])) best = t;
          }
          if (best >= 0 && Eligible(best, now, false)) pick = best;
        }
        break;
      case kTimeWindows:
        for (int t = 0; t < kMaxTiers; t++) {
          if (cand[t] != nullptr && Eligible(t, now, false)) {
            pick = t;
            break;
          }
        }
        break;
      default:
        for (int t = 0; t < kMaxTiers; t++) {
          if (cand[t] != nullptr) {
            pick = t;
            break;
          }
        }
    }
  }
  if (pick < 0) return false;
  Waiter* w = cand[pick];
  auto& q = q_[pick];
  q.erase(std::find(q.begin(), q.end(), w));
  Grant(w, now);
  return true;
}

void NodeScheduler::Dispatch(uint64_t now) {
  while (DispatchOne(now)) {
  }
  waiting_atomic_.store(waiting_, std::memory_order_relaxed);
}

uint64_t NodeScheduler::NextWake(uint64_t now, const Waiter* w) const {
  uint64_t wake = now + 10000000UL;
  if (RateMode()) {
    double need = 0;
    if (p_.node_ops > 0 && tok_ops_ <= 0) need = std::max(need, (-tok_ops_ + 1e-6) / p_.node_ops);
    if (p_.node_bytes > 0 && tok_bytes_ <= 0) need = std::max(need, (-tok_bytes_ + 1e-6) / p_.node_bytes);
    wake = std::min(wake, now + static_cast<uint64_t>(need * 1e9) + 1000);
  }
  if (WriteBlocked(w->tier, w->write)) {
    double need = (-tok_wbytes_ + 1e-6) / p_.node_write_bytes;
    wake = std::min(wake, now + static_cast<uint64_t>(need * 1e9) + 1000);
  }
  if (p_.kind == kTimeWindows && p_.paid_iops > 0) {
    wake = std::min(wake, sec_start_ + 1000000000UL);
    uint64_t open = sec_start_ + static_cast<uint64_t>(win_start_[w->tier] * 1e9);
    if (open > now) wake = std::min(wake, open);
    if (p_.pace_s > 0) {
      // when the paced allowance passes what is already granted
      double at = (p_.paid_iops - sec_tokens_) / p_.paid_iops - p_.pace_s;
      uint64_t paced = sec_start_ + static_cast<uint64_t>(std::max(0.0, at) * 1e9) + 1000;
      if (paced > now) wake = std::min(wake, paced);
    }
  }
  if (p_.starvation_ns > 0 && w->tier > 0) {
    uint64_t due = w->enq_ns + p_.starvation_ns;
    if (due > now) wake = std::min(wake, due);
  }
  return std::max(wake, now + 20000UL);
}

uint64_t NodeScheduler::Acquire(int cls, bool urgent, bool write, uint64_t bytes, uint64_t units, uint64_t deadline_ns,
                               int* tier, bool* release, bool* overrun) {
  std::unique_lock<std::mutex> l(mu_);
  *release = false;
  *overrun = false;
  if (p_.kind == kPassThrough) return 0;
  // Calcspar's stabilizer (§4.1): every I/O holds a paid token before it reaches the volume. A foreground I/O that
  // left at the wait bound would go to the device without one and pay its punitive overdraft latency instead
  // (CalcsparStabilizerTest: 333 of ~800 device I/Os in 2 s at 400 paid IOPS). Its wait is bounded anyway: tier 0
  // may take tokens during the whole second, so it waits at most for the next second's refill.
  if (p_.kind == kTimeWindows && p_.paid_iops > 0) deadline_ns = 0;
  const uint64_t t0 = NowNanos();
  uint64_t now = t0;
  int t = urgent ? 0 : p_.tier_of[cls];
  *tier = t;
  Refill(now);
  demand_[t] += static_cast<double>(units);
  if (waiting_ == 0 && Eligible(t, now, false) && !WriteBlocked(t, write)) {
    Consume(t, write, bytes, units, now);
    *release = true;
    return 0;
  }
  Waiter w;
  w.tier = t;
  w.write = write;
  w.bytes = bytes;
  w.units = units;
  w.enq_ns = now;
  if (p_.kind == kWeightedFair && q_[t].empty()) pass_[t] = std::max(pass_[t], vtime_);
  q_[t].push_back(&w);
  waiting_++;
  Dispatch(now);
  while (!w.granted) {
    if (p_.kind == kTimeWindows && sec_tokens_ <= 0) starved_[t] = true;
    uint64_t wake = NextWake(now, &w);
    if (deadline_ns != 0) wake = std::min(wake, std::max(deadline_ns, now + 1000));
    w.cv.wait_for(l, std::chrono::nanoseconds(wake - now));
    if (w.granted) break;
    now = NowNanos();
    Refill(now);
    Dispatch(now);
    if (w.granted) break;
    if (deadline_ns != 0 && now >= deadline_ns) {
      // the bound of a foreground wait: leave the queue and proceed, charged as if granted
      auto& q = q_[w.tier];
      q.erase(std::find(q.begin(), q.end(), &w));
      waiting_--;
      Consume(w.tier, write, bytes, units, now);
      w.granted = true;
      *overrun = true;
      Dispatch(now);
    }
  }
  *tier = w.tier;
  *release = true;
  return NowNanos() - t0;
}

void NodeScheduler::Release(int tier) {
  std::lock_guard<std::mutex> l(mu_);
  if (tier >= 0 && tier < kMaxTiers && inflight_[tier] > 0) inflight_[tier]--;
  if (waiting_ > 0) {
    uint64_t now = NowNanos();
    Refill(now);
    Dispatch(now);
  }
}

void NodeScheduler::Snapshot(long* out) {
  std::lock_guard<std::mutex> l(mu_);
  out[0] = static_cast<long>(granted_units_);
  out[1] = static_cast<long>(granted_bytes_);
  out[2] = waiting_;
  for (int t = 0; t < kMaxTiers; t++) out[3 + t] = static_cast<long>(win_start_[t] * 1e6);  // micro-fractions
  for (int t = 0; t < kMaxTiers; t++) out[3 + kMaxTiers + t] = inflight_[t];
  out[3 + 2 * kMaxTiers] = static_cast<long>(granted_wbytes_);
}

// --------------------------------------------------------------------------------------------------- device ----

void ContractDevice::Configure(const DeviceParams& in) {
  std::lock_guard<std::mutex> l(mu_);
  p_ = in;
  if (!(p_.iops > 0) || std::isinf(p_.iops)) p_.iops = 0;
  if (!(p_.read_bps > 0) || std::isinf(p_.read_bps)) p_.read_bps = 0;
  if (!(p_.write_bps > 0) || std::isinf(p_.write_bps)) p_.write_bps = 0;
  if (!(p_.pool > 0)) p_.pool = p_.iops;
  if (p_.unit_bytes == 0) p_.unit_bytes = 262144;
  sec_end_ = 0;
  regular_ = p_.iops;
  debt_ = 0;
  lane_free_ = read_free_ = write_free_ = 0;
  unit_bytes_.store(p_.unit_bytes, std::memory_order_relaxed);
  enabled_.store(p_.enabled, std::memory_order_relaxed);
}

DeviceParams ContractDevice::Params() {
  std::lock_guard<std::mutex> l(mu_);
  return p_;
}

void ContractDevice::Roll(uint64_t now) {
  if (sec_end_ == 0) {
    sec_end_ = SecondFloor(now) + 1000000000UL;  // aligned with the Calcspar allocator's seconds
    regular_ = p_.iops;
    debt_ = 0;
    return;
  }
  int n = 0;
  while (now >= sec_end_) {
    // Each second A new tokens arrive; they repay the borrowing pool first (Calcspar §2.3).
    double repay = std::min(p_.iops, debt_);
    debt_ -= repay;
    regular_ = p_.iops - repay;
    sec_end_ += 1000000000UL;
    if (++n > 16) {
      debt_ = 0;
      regular_ = p_.iops;
      sec_end_ = SecondFloor(now) + 1000000000UL;
      break;
    }
  }
}

uint64_t ContractDevice::Admit(int op, uint64_t bytes, uint64_t units, uint32_t ops, uint64_t now) {
  std::lock_guard<std::mutex> l(mu_);
  if (!p_.enabled) return now;
  // per-second usage for budgetUse
  uint64_t sec = now / 1000000000UL;
  if (sec != cur_sec_) {
    double use = 0;
    if (p_.iops > 0) use = std::max(use, cur_units_ / p_.iops);
    if (p_.read_bps > 0) use = std::max(use, cur_rb_ / p_.read_bps);
    if (p_.write_bps > 0) use = std::max(use, cur_wb_ / p_.write_bps);
    prev_use_ = sec == cur_sec_ + 1 ? use : 0;
    prev_sec_ = sec - 1;
    cur_sec_ = sec;
    cur_units_ = cur_rb_ = cur_wb_ = 0;
  }
  if (op == kOpSync) {
    c_[kDSyncOps]++;
    return now + p_.base_ns;
  }
  Roll(now);
  const bool read = op == kOpRead;
  double bps = read ? p_.read_bps : p_.write_bps;
  uint64_t& pipe = read ? read_free_ : write_free_;
  uint64_t bw_done = now;
  if (bps > 0 && bytes > 0) {
    uint64_t start = std::max(now, pipe);
    pipe = start + static_cast<uint64_t>(static_cast<double>(bytes) * 1e9 / bps);
    bw_done = pipe;
  }
  uint64_t done = bw_done + p_.base_ns;
  const double u = static_cast<double>(units);
  if (p_.iops <= 0 || regular_ >= u) {
    if (p_.iops > 0) regular_ -= u;
    c_[kDRegularOps] += ops;
    c_[kDRegularDelayNs] += (done - now) * ops;
  } else {
    // Overdraft: borrow what the regular bucket lacks; overdrawn I/Os are served one after another at 1/A seconds
    // per unit, so L concurrent requesters each see W = L/A.
    double borrow = u - regular_;
    regular_ = 0;
    uint64_t start = std::max(now, lane_free_);
    if (debt_ + borrow > p_.pool) {
      start = std::max(start, sec_end_);  // pool empty: blocked until the next refill
      c_[kDPoolWaits]++;
    }
    debt_ += borrow;
    lane_free_ = start + static_cast<uint64_t>(u * 1e9 / p_.iops);
    done = std::max(lane_free_, done);
    c_[kDOverdraftOps] += ops;
    c_[kDOverdraftDelayNs] += (done - now) * ops;
  }
  c_[kDUnits] += units;
  if (read) {
    c_[kDReadBytes] += bytes;
    cur_rb_ += static_cast<double>(bytes);
  } else {
    c_[kDWriteBytes] += bytes;
    cur_wb_ += static_cast<double>(bytes);
  }
  cur_units_ += u;
  return done;
}

void ContractDevice::Read(long* out) {
  std::lock_guard<std::mutex> l(mu_);
  for (int i = 0; i < kDFields; i++) out[i] = static_cast<long>(c_[i]);
}

double ContractDevice::BudgetUse(uint64_t now) {
  std::lock_guard<std::mutex> l(mu_);
  if (!p_.enabled) return 0;
  uint64_t sec = now / 1000000000UL;
  double use = 0;
  if (sec == cur_sec_ + 1) {
    if (p_.iops > 0) use = std::max(use, cur_units_ / p_.iops);
    if (p_.read_bps > 0) use = std::max(use, cur_rb_ / p_.read_bps);
    if (p_.write_bps > 0) use = std::max(use, cur_wb_ / p_.write_bps);
    return use;
  }
  if (sec == cur_sec_ && prev_sec_ == sec - 1) return prev_use_;
  return 0;
}

// ----------------------------------------------------------------------------------------------- power cut ----

std::shared_ptr<DurableFile> PowerState::Track(const std::string& fname, uint64_t durable_len) {
  auto d = std::make_shared<DurableFile>();
  d->fname = fname;
  d->synced = durable_len;
  std::lock_guard<std::mutex> l(mu_);
  auto& slot = files_[fname];
  if (slot) slot->tracked = false;
  slot = d;
  return d;
}

bool PowerState::Synced(DurableFile* f, uint64_t len) {
  std::lock_guard<std::mutex> l(mu_);
  if (Off()) return false;
  if (len > f->synced) f->synced = len;
  return true;
}

void PowerState::Renamed(const std::string& src, const std::string& dst) {
  std::lock_guard<std::mutex> l(mu_);
  auto dit = files_.find(dst);
  if (dit != files_.end()) {
    dit->second->tracked = false;
    files_.erase(dit);
  }
  auto sit = files_.find(src);
  if (sit == files_.end()) return;  // a file not written through this Env: its content counts as durable
  std::shared_ptr<DurableFile> d = sit->second;
  files_.erase(sit);
  d->fname = dst;
  files_[dst] = d;
}

void PowerState::Deleted(const std::string& fname) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = files_.find(fname);
  if (it == files_.end()) return;
  it->second->tracked = false;
  files_.erase(it);
}

bool PowerState::ShrinkTo(const std::string& fname, uint64_t len, uint64_t* dropped) {
  struct stat sb;
  if (stat(fname.c_str(), &sb) != 0) return false;
  uint64_t size = static_cast<uint64_t>(sb.st_size);
  if (size <= len) return false;  // never extend a file
  if (truncate(fname.c_str(), static_cast<off_t>(len)) != 0) return false;
  *dropped += size - len;
  return true;
}

void PowerState::Cut(uint64_t* files, uint64_t* bytes) {
  std::lock_guard<std::mutex> l(mu_);
  off_.store(true, std::memory_order_release);
  *files = 0;
  *bytes = 0;
  for (auto& e : files_) {
    if (ShrinkTo(e.second->fname, e.second->synced, bytes)) (*files)++;
  }
}

void PowerState::Retruncate(DurableFile* f) {
  std::lock_guard<std::mutex> l(mu_);
  uint64_t ignored = 0;
  if (f->tracked) ShrinkTo(f->fname, f->synced, &ignored);
}

uint64_t PowerState::TrackedFiles() {
  std::lock_guard<std::mutex> l(mu_);
  return files_.size();
}

// --------------------------------------------------------------------------------------------------- faults ----

int FaultInjector::Add(const FaultRule& r) {
  std::lock_guard<std::mutex> l(mu_);
  FaultRule copy = r;
  copy.id = next_id_++;
  copy.seen = copy.hits = 0;
  rules_.push_back(copy);
  active_.store(static_cast<int>(rules_.size()), std::memory_order_relaxed);
  return copy.id;
}

bool FaultInjector::Remove(int id) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = std::find_if(rules_.begin(), rules_.end(), [id](const FaultRule& r) { return r.id == id; });
  if (it == rules_.end()) return false;
  rules_.erase(it);
  active_.store(static_cast<int>(rules_.size()), std::memory_order_relaxed);
  return true;
}

void FaultInjector::Clear() {
  std::lock_guard<std::mutex> l(mu_);
  rules_.clear();
  active_.store(0, std::memory_order_relaxed);
}

int64_t FaultInjector::Hits(int id) {
  std::lock_guard<std::mutex> l(mu_);
  for (auto& r : rules_) {
    if (r.id == id) return static_cast<int64_t>(r.hits);
  }
  return -1;
}

FaultDecision FaultInjector::Check(int cls, int kind, int op) {
  FaultDecision d;
  std::lock_guard<std::mutex> l(mu_);
  for (auto& r : rules_) {
    if (((r.class_mask >> cls) & 1u) == 0 || ((r.kind_mask >> kind) & 1u) == 0 || ((r.op_mask >> op) & 1u) == 0) {
      continue;
    }
    r.seen++;
    if (r.seen <= r.after) continue;
    if (r.max_hits >= 0 && static_cast<int64_t>(r.hits) >= r.max_hits) continue;
    if (r.probability < 1.0) {
      double x = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
      if (x >= r.probability) continue;
    }
    r.hits++;
    d.rule = r.id;
    if (r.action == kFaultDelay) {
      d.delay_ns = r.delay_ns;
    } else {
      d.fail = true;
      d.retryable = r.action == kFaultEioRetryable;
    }
    return d;
  }
  return d;
}

}  // namespace sluice
