// Sluice priority Env: the engine-neutral part (no RocksDB headers here).
//
// I/O classes, counters, the node scheduler, the contract-device model and the fault injector. The RocksDB-facing
// FileSystemWrapper lives in priority_fs.cc, the JNI entry points in jni_bridge.cc. See DEVICE.md (the device model, "Scheduling policies")
// next to the Java package dev.sluice.ratelimit.env for the equations and policies.
//
// Locking: per-I/O accounting uses relaxed atomics only. NodeScheduler::mu_ (only when a node policy is active),
// ContractDevice::mu_ (only when the device is enabled), FaultInjector::mu_ (only while rules exist) and
// Partition::levels_mu (only when a file's cached level is stale) are leaves: no code holds two of them at once.
#pragma once

#include <time.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace sluice {

// Must match dev.sluice.core.sensor.IoClass (ordinals).
enum IoClass : int {
  kWal = 0,
  kUserGet,
  kUserScan,
  kFlush,
  kCompactionL0,
  kCompactionHigh,
  kCompactionDeep,
  kPrefetch,
  kMeta,
  kNumClasses
};

inline bool IsBackground(int c) {
  return c == kFlush || c == kCompactionL0 || c == kCompactionHigh || c == kCompactionDeep || c == kPrefetch;
}

// File kinds (bit positions in fault-rule masks). Must match FaultRule.FileKind in Java.
enum FileKind : int { kWalFile = 0, kSstFile, kBlobFile, kManifestFile, kOtherFile, kNumFileKinds };

// Operation kinds (bit positions in fault-rule masks). Must match FaultRule.Op in Java.
enum OpKind : int { kOpRead = 0, kOpWrite, kOpSync, kOpFlush, kNumOps };

inline uint64_t NowNanos() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000UL + static_cast<uint64_t>(ts.tv_nsec);
}

void SleepUntil(uint64_t deadline_ns);

// ---------------------------------------------------------------------------------------------------------------
// Counters. One ClassCounters per (partition, class). Layout of the exported long[] must match NativeStats.java.
// ---------------------------------------------------------------------------------------------------------------
constexpr int kHistBuckets = 24;  // bucket i < 23: device latency < 2^i microseconds; bucket 23: the rest
enum StatField : int {
  kFOps = 0,      // data operations (reads, writes; a multi-read counts each request)
  kFBytes,        // bytes transferred
  kFWaitNs,       // nanoseconds spent waiting in the scheduler (class caps + node policy)
  kFDeviceNs,     // nanoseconds in the device for data operations (emulated delay + real file system)
  kFSyncOps,      // sync / fsync / range-sync calls
  kFSyncNs,       // nanoseconds in those calls
  kFUrgentOps,    // operations RocksDB marked IO_USER (compaction/flush raised during a write stall)
  kFDelayedOps,   // operations that waited in the scheduler at all
  kFFaults,       // operations failed or delayed by the fault injector
  kFHist0,        // kHistBuckets histogram counters follow
  kStatFields = kFHist0 + kHistBuckets
};

struct alignas(64) ClassCounters {
  std::atomic<uint64_t> f[kStatFields];
  ClassCounters() {
    for (auto& x : f) x.store(0, std::memory_order_relaxed);
  }
};

inline int HistBucket(uint64_t ns) {
  uint64_t us = ns / 1000;
  if (us == 0) return 0;
  int b = 64 - __builtin_clzll(us);  // us in [2^(b-1), 2^b)
  return b < kHistBuckets - 1 ? b : kHistBuckets - 1;
}

// ---------------------------------------------------------------------------------------------------------------
// Per-class caps (and a partition's background cap): two GCRA buckets (ops/s, bytes/s), lock-free.
// ---------------------------------------------------------------------------------------------------------------
struct ClassCap {
  std::atomic<double> ops_rate{0};
  std::atomic<double> bytes_rate{0};
  std::atomic<uint64_t> ops_tat{0};
  std::atomic<uint64_t> bytes_tat{0};
  std::atomic<uint32_t> gen{0};
  std::atomic<bool> active{false};
  // Returns nanoseconds waited. deadline_ns != 0: stop waiting then and set *overrun (the reservation stays charged).
  uint64_t Acquire(uint64_t bytes, uint32_t ops, uint64_t deadline_ns, bool* overrun);
  void Set(double ops_per_sec, double bytes_per_sec);
};

struct Partition {
  std::string name;
  std::vector<std::string> prefixes;  // absolute directory paths, each ending with '/'
  ClassCounters cls[kNumClasses];
  // FlexEngine partition level (§4.2): a bytes/s cap on this partition's background I/O (flush, compaction, prefetch),
  // its Eq. 3 budget, set from Java; inactive = no cap. IO_USER (raised during a stall) bypasses it like class caps.
  ClassCap bg_cap;

  // file number -> level, pushed from Java; plus numbers of files this Env saw written by a flush (L0 until the map
  // says otherwise). base_level = smallest non-zero level holding files in the whole map (dynamic level bytes puts
  // L0's target there), kept from per-level file counts. Deleted table files leave the map (ForgetFile).
  static constexpr int kMaxLevels = 64;
  std::shared_mutex levels_mu;
  std::unordered_map<uint64_t, int> levels;
  std::unordered_set<uint64_t> flushed;
  uint64_t files_at[kMaxLevels] = {0};
  int base_level = 1;
  std::atomic<uint64_t> level_gen{1};
  std::atomic<bool> has_levels{false};

  // "Rank" of a level: 0 for L0, 1 for the base level, 2 for the next, ... ; -1 when unknown.
  int RankOf(uint64_t file_number);
  void NoteFlushed(uint64_t file_number);
  // Adds or updates the given entries (replace = false: a listener's single-file update; the other files keep their
  // levels) or replaces the whole map (replace = true: a full push). The base level is recomputed from the whole map.
  void UpdateLevels(const uint64_t* numbers, const int* lvls, size_t n, bool replace);
  void ForgetFile(uint64_t file_number);

 private:
  void SetLevelLocked(uint64_t number, int level);
  void RecomputeBaseLocked();

 public:
};

// ---------------------------------------------------------------------------------------------------------------
// Node scheduler: arbitration between tiers of classes under a node budget (see DEVICE.md, "Scheduling policies").
// ---------------------------------------------------------------------------------------------------------------
enum PolicyKind : int { kPassThrough = 0, kStrictPriority = 1, kWeightedFair = 2, kTimeWindows = 3 };
constexpr int kMaxTiers = 4;

struct PolicyParams {
  int kind = kPassThrough;
  int tier_of[kNumClasses] = {0, 0, 0, 1, 1, 2, 2, 2, 0};
  double weight[kMaxTiers] = {1, 10, 1, 1};
  bool strict_top = true;
  uint64_t starvation_ns = 50000000UL;
  double node_ops = 0;    // units per second, 0 = unlimited
  double node_bytes = 0;  // bytes per second, 0 = unlimited
  // Write-bytes budget (DEVICE.md, "The write budget"): bytes per second of write I/O (appends, positioned writes; not
  // reads, not syncs), 0 = none. Tier 0 takes write tokens without waiting for them; other tiers' writes wait for them.
  double node_write_bytes = 0;
  double paid_iops = 0;   // time windows: tokens per second
  double min_window = 0.1;
  double pace_s = 0;      // time windows: at most paid * (elapsed + pace_s) tokens granted by each point of a second (0 = none)
};

class NodeScheduler {
 public:
  NodeScheduler();
  void SetPolicy(const PolicyParams& p);
  // Burst of the write budget in seconds of node_write_bytes (DEVICE.md, "The write budget"); > 0. Kept across
  // SetPolicy; a smaller burst trims the bucket at once.
  void SetWriteBurst(double seconds);
  PolicyParams Policy();
  bool Active() const { return kind_.load(std::memory_order_relaxed) != kPassThrough; }
  // Waits until the request may proceed. Returns nanoseconds waited. *release is set when Release(tier) must follow
  // (every grant of a node policy: in-flight counts are kept across policy switches, so each grant is released once).
  // deadline_ns != 0: at that time the request leaves the queue, is charged as if granted and sets *overrun.
  // `write`: the I/O is a write (kOpWrite); only writes take write-budget tokens and only they can wait for them.
  uint64_t Acquire(int cls, bool urgent, bool write, uint64_t bytes, uint64_t units, uint64_t deadline_ns, int* tier,
                   bool* release, bool* overrun);
  void Release(int tier);
  // Units / bytes granted in the last full second, and the configured budget (0 = none).
  // [granted units total, granted bytes total, waiting now, window starts x kMaxTiers, in flight x kMaxTiers,
  //  granted write bytes total]
  static constexpr int kSnapshotFields = 4 + 2 * kMaxTiers;
  void Snapshot(long* out);
  // Fraction of the node budget (node rates or paid IOPS) granted in the last full second; 0 without a budget.
  double BudgetUse(uint64_t now);

 private:
  struct Waiter {
    int tier;
    bool write;
    uint64_t bytes, units, enq_ns;
    bool granted = false;
    std::condition_variable cv;
  };
  bool RateMode() const { return p_.node_ops > 0 || p_.node_bytes > 0; }
  bool InflightMode() const { return p_.kind == kStrictPriority && !RateMode(); }
  void Refill(uint64_t now);
  bool Eligible(int tier, uint64_t now, bool starving) const;
  // A write of a tier below 0 while the write budget is exhausted: it waits, but nothing else waits for it.
  bool WriteBlocked(int tier, bool write) const {
    return write && tier > 0 && p_.node_write_bytes > 0 && tok_wbytes_ <= 0;
  }
  // The waiter of tier t that dispatch considers: the oldest one not WriteBlocked (reads pass write-blocked writes of
  // their own tier), nullptr if none.
  Waiter* Candidate(int t) const;
  bool DispatchOne(uint64_t now);
  void Dispatch(uint64_t now);
  void Grant(Waiter* w, uint64_t now);
  void Consume(int tier, bool write, uint64_t bytes, uint64_t units, uint64_t now);
  uint64_t NextWake(uint64_t now, const Waiter* w) const;

  std::mutex mu_;
  PolicyParams p_;
  std::atomic<int> kind_{kPassThrough};
  std::deque<Waiter*> q_[kMaxTiers];
  int waiting_ = 0;
  int inflight_[kMaxTiers] = {0, 0, 0, 0};
  std::atomic<int> waiting_atomic_{0};
  double tok_ops_ = 0, tok_bytes_ = 0, tok_wbytes_ = 0;
  double write_burst_s_;
  uint64_t last_refill_ = 0;
  double pass_[kMaxTiers] = {0, 0, 0, 0};
  double vtime_ = 0;
  uint64_t sec_start_ = 0;
  double sec_tokens_ = 0;
  double alloc_[kMaxTiers] = {0, 0, 0, 0};
  double demand_[kMaxTiers] = {0, 0, 0, 0};   // units requested this second (granted or not)
  double reserve_[kMaxTiers] = {0, 0, 0, 0};  // more urgent tiers' demand in the previous second
  bool starved_[kMaxTiers] = {false, false, false, false};  // a request of the tier found the second's tokens gone
  double win_start_[kMaxTiers] = {0, 0, 0, 0};
  uint64_t granted_units_ = 0, granted_bytes_ = 0, granted_wbytes_ = 0;
  uint64_t cur_sec_ = 0, prev_sec_ = 0;
  double cur_u_ = 0, cur_b_ = 0, prev_use_ = 0;
  double UseOf(double u, double b) const;
};

// ---------------------------------------------------------------------------------------------------------------
// Contract device (Calcspar §2.2-2.3), see DEVICE.md.
// ---------------------------------------------------------------------------------------------------------------
struct DeviceParams {
  bool enabled = false;
  double iops = 0;        // paid IOPS A; 0 = no IOPS contract
  double read_bps = 0;    // 0 = unlimited
  double write_bps = 0;   // 0 = unlimited
  uint64_t base_ns = 0;   // base latency L0
  double pool = 0;        // borrowing pool (overdraft tokens); 0 = equal to iops
  uint64_t unit_bytes = 262144;
};

enum DeviceField : int {
  kDRegularOps = 0,
  kDOverdraftOps,
  kDOverdraftDelayNs,  // sum over overdraft I/Os of (completion - arrival)
  kDRegularDelayNs,    // sum over regular I/Os of (completion - arrival)
  kDPoolWaits,         // overdraft I/Os that found the borrowing pool empty and waited for the next refill
  kDUnits,
  kDReadBytes,
  kDWriteBytes,
  kDSyncOps,
  kDFields
};

class ContractDevice {
 public:
  void Configure(const DeviceParams& p);
  DeviceParams Params();
  bool Enabled() const { return enabled_.load(std::memory_order_relaxed); }
  uint64_t UnitBytes() const { return unit_bytes_.load(std::memory_order_relaxed); }
  // Returns the model's completion time for an I/O of `ops` requests (a MultiRead's count, else 1) arriving at `now`;
  // the caller sleeps until then. The requests are admitted together: Σ units tokens, one bandwidth transfer.
  uint64_t Admit(int op, uint64_t bytes, uint64_t units, uint32_t ops, uint64_t now);
  void Read(long* out);
  double BudgetUse(uint64_t now);

 private:
  void Roll(uint64_t now);
  std::mutex mu_;
  DeviceParams p_;
  std::atomic<bool> enabled_{false};
  std::atomic<uint64_t> unit_bytes_{262144};
  uint64_t sec_end_ = 0;
  double regular_ = 0, debt_ = 0;
  uint64_t lane_free_ = 0, read_free_ = 0, write_free_ = 0;
  uint64_t c_[kDFields] = {0};
  // usage of the current and previous second, for budgetUse
  uint64_t cur_sec_ = 0;
  double cur_units_ = 0, cur_rb_ = 0, cur_wb_ = 0;
  double prev_use_ = 0;
  uint64_t prev_sec_ = 0;
};

// ---------------------------------------------------------------------------------------------------------------
// Fault injection.
// ---------------------------------------------------------------------------------------------------------------
enum FaultAction : int { kFaultEio = 0, kFaultEioRetryable = 1, kFaultDelay = 2 };

struct FaultRule {
  int id = 0;
  uint32_t class_mask = 0, kind_mask = 0, op_mask = 0;
  uint64_t after = 0;   // matching operations to let through first
  int64_t max_hits = -1;  // -1 = unlimited
  double probability = 1.0;
  int action = kFaultEio;
  uint64_t delay_ns = 0;
  uint64_t seen = 0, hits = 0;
};

struct FaultDecision {
  bool fail = false;
  bool retryable = false;
  uint64_t delay_ns = 0;
  int rule = 0;
};

class FaultInjector {
 public:
  bool Active() const { return active_.load(std::memory_order_relaxed) > 0; }
  int Add(const FaultRule& r);
  bool Remove(int id);
  void Clear();
  int64_t Hits(int id);
  FaultDecision Check(int cls, int kind, int op);

 private:
  std::mutex mu_;
  std::vector<FaultRule> rules_;
  std::atomic<int> active_{0};
  int next_id_ = 1;
  std::mt19937_64 rng_{0x5eed5eedull};
};

// ---------------------------------------------------------------------------------------------------------------
// Power-cut emulation (see DEVICE.md, "Power-cut emulation"). Every file written through the Env is tracked with its
// length at the last successful Sync/Fsync (RangeSync and Close are not durable). Cut() switches the "machine" off
// (every later write, sync, flush, rename, delete, truncate or file creation fails with EIO) and truncates every
// tracked file to that length. Files still open when the power goes are truncated again when they are closed, so a
// late write or a close-time ftruncate cannot bring lost bytes back. mu_ is a leaf lock, taken only on file creation,
// sync, rename, delete and Cut (never per read or write).
// ---------------------------------------------------------------------------------------------------------------
struct DurableFile {
  std::string fname;     // current name (renames move it)
  uint64_t synced = 0;   // length at the last successful Sync/Fsync
  bool tracked = true;   // false once deleted or replaced by a rename
};

class PowerState {
 public:
  bool Off() const { return off_.load(std::memory_order_acquire); }
  // Starts tracking a file created (durable length 0) or reopened (its existing length is durable) through the Env.
  std::shared_ptr<DurableFile> Track(const std::string& fname, uint64_t durable_len);
  // Records a successful Sync/Fsync that covered `len` bytes. False when the power went off meanwhile (the sync does
  // not count).
  bool Synced(DurableFile* f, uint64_t len);
  void Renamed(const std::string& src, const std::string& dst);
  void Deleted(const std::string& fname);
  // Switches the machine off and truncates every tracked file to its durable length. Returns files shortened and bytes
  // dropped. Idempotent (a second call truncates again).
  void Cut(uint64_t* files, uint64_t* bytes);
  // After a cut: truncates one file (being closed) to its durable length again.
  void Retruncate(DurableFile* f);
  uint64_t TrackedFiles();

 private:
  static bool ShrinkTo(const std::string& fname, uint64_t len, uint64_t* dropped);
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<DurableFile>> files_;
  std::atomic<bool> off_{false};
};

// ---------------------------------------------------------------------------------------------------------------
// The state one PriorityEnv shares between its FileSystem, its files and Java.
// ---------------------------------------------------------------------------------------------------------------
struct EnvState {
  std::mutex parts_mu;
  std::deque<std::unique_ptr<Partition>> parts;
  Partition unattributed;

  ClassCap caps[kNumClasses];
  std::atomic<int> caps_on{0};
  std::mutex caps_mu;  // serialises SetClassLimit and SetPartitionBackgroundLimit (caps_on, part_caps_on)
  std::atomic<int> part_caps_on{0};  // partitions with an active background cap
  // Longest scheduler wait (class cap + node policy) of a foreground I/O (WAL, user reads, META, IO_USER) before it
  // proceeds anyway and counts as an overrun; 0 = unbounded.
  std::atomic<uint64_t> fg_max_wait_ns{100000000UL};
  std::atomic<uint64_t> overruns{0};
  NodeScheduler sched;
  ContractDevice device;
  FaultInjector faults;
  PowerState power;
  std::atomic<uint64_t> chunk_bytes{262144};
  // Per-class chunk size of background I/O (bytes); -1 = chunk_bytes. A write chunk in the device's write queue is what
  // a WAL write waits behind, so a paced class (whose rate a small chunk does not limit) can take smaller chunks than
  // an unpaced compaction, whose throughput pays the device's per-I/O latency once per chunk.
  std::atomic<int64_t> class_chunk_bytes[kNumClasses];

  EnvState() {
    unattributed.name = "";
    for (auto& c : class_chunk_bytes) c.store(-1);
  }
  int Register(const std::string& name, const std::vector<std::string>& dirs);
  Partition* Lookup(const std::string& fname);  // longest registered prefix, or &unattributed
  Partition* ByIndex(int idx);                  // -1 -> unattributed
  int PartitionCount();
  void ReadStats(int idx, long* out);           // idx == -2: node total
  void SetClassLimit(int cls, double ops, double bytes);
  void SetPartitionBackgroundLimit(Partition* p, double bytes);
  bool SchedulingOn() const {
    return caps_on.load(std::memory_order_relaxed) > 0 || part_caps_on.load(std::memory_order_relaxed) > 0 ||
           sched.Active();
  }
  // Class caps then node policy. `ops` data operations (a MultiRead's request count) of `bytes` in total cost `units`
  // I/O units (Σ Units(request bytes); 0 for a sync), the same number the device model is charged. Returns wait ns.
  // `part`'s background cap (if any) applies to its background I/O, after the class caps.
  // `write`: a data write (the node scheduler's write budget applies).
  uint64_t Schedule(int cls, bool urgent, bool write, uint64_t bytes, uint32_t ops, uint64_t units, int* tier,
                    bool* release, Partition* part = nullptr);
  // The one place where bytes become I/O units (device.io.unit.kb): a request of up to one unit costs 1.
  uint64_t Units(uint64_t bytes) const {
    uint64_t u = device.UnitBytes();
    return bytes == 0 ? 1 : (bytes + u - 1) / u;
  }
};

inline void Account(Partition* p, int cls, uint64_t bytes, uint32_t ops, uint64_t wait_ns, uint64_t dev_ns,
                    bool urgent) {
  auto& f = p->cls[cls].f;
  f[kFOps].fetch_add(ops, std::memory_order_relaxed);
  f[kFBytes].fetch_add(bytes, std::memory_order_relaxed);
  f[kFDeviceNs].fetch_add(dev_ns, std::memory_order_relaxed);
  f[kFHist0 + HistBucket(dev_ns)].fetch_add(1, std::memory_order_relaxed);
  if (wait_ns != 0) {
    f[kFWaitNs].fetch_add(wait_ns, std::memory_order_relaxed);
    f[kFDelayedOps].fetch_add(1, std::memory_order_relaxed);
  }
  if (urgent) f[kFUrgentOps].fetch_add(ops, std::memory_order_relaxed);
}

inline void AccountSync(Partition* p, int cls, uint64_t wait_ns, uint64_t dev_ns, bool urgent) {
  auto& f = p->cls[cls].f;
  f[kFSyncOps].fetch_add(1, std::memory_order_relaxed);
  f[kFSyncNs].fetch_add(dev_ns, std::memory_order_relaxed);
  if (wait_ns != 0) {
    f[kFWaitNs].fetch_add(wait_ns, std::memory_order_relaxed);
    f[kFDelayedOps].fetch_add(1, std::memory_order_relaxed);
  }
  if (urgent) f[kFUrgentOps].fetch_add(1, std::memory_order_relaxed);
}

}  // namespace sluice
