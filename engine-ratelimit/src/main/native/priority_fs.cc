// The RocksDB-facing part of the Sluice priority Env: a FileSystemWrapper whose files pass every I/O through one
// classify -> fault check -> schedule -> (emulated device) -> real I/O -> account pipeline.
//
// Classification (docs/architecture.md §3.3): file name first (WAL, MANIFEST and other metadata files), then
// IOOptions::io_activity, then the calling thread's name (cached per native thread). Compaction I/O is split by level:
// each thread keeps the lowest and highest "rank" (0 = L0, 1 = base level, 2 = next, ...) of the compaction input files
// it has read recently, using the file-number -> level map pushed from Java plus the files this Env saw written by a
// flush; the rank span of one compaction is at most 1, so a read outside it starts a new span. Output files inherit
// the class of the thread's current span. Compaction I/O that RocksDB marks IO_USER (during a write stall) keeps its
// class for accounting but is scheduled as foreground and bypasses class caps.
#include "priority_fs.h"

#include <sys/prctl.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace sluice {

using rocksdb::DataVerificationInfo;
using rocksdb::Env;
using rocksdb::FileOptions;
using rocksdb::FileSystem;
using rocksdb::FSRandomAccessFile;
using rocksdb::FSRandomRWFile;
using rocksdb::FSReadRequest;
using rocksdb::FSSequentialFile;
using rocksdb::FSWritableFile;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

namespace {

// ------------------------------------------------------------------------------------------- file context ----

struct FileCtx {
  std::shared_ptr<EnvState> st;
  Partition* part = nullptr;
  int kind = kOtherFile;
  uint64_t number = 0;
  std::string fname;
  bool direct = false;
  mutable std::atomic<uint64_t> rank_gen{0};
  mutable std::atomic<int> rank{-1};
};

void ParseName(const std::string& path, int* kind, uint64_t* number) {
  size_t slash = path.rfind('/');
  const char* base = path.c_str() + (slash == std::string::npos ? 0 : slash + 1);
  *number = 0;
  *kind = kOtherFile;
  size_t i = 0;
  uint64_t n = 0;
  while (base[i] >= '0' && base[i] <= '9') {
    n = n * 10 + static_cast<uint64_t>(base[i] - '0');
    i++;
  }
  if (i > 0 && base[i] == '.') {
    const char* ext = base + i + 1;
    if (strcmp(ext, "sst") == 0 || strcmp(ext, "ldb") == 0) {
      *kind = kSstFile;
      *number = n;
    } else if (strcmp(ext, "blob") == 0) {
      *kind = kBlobFile;
      *number = n;
    } else if (strcmp(ext, "log") == 0) {
      *kind = kWalFile;
      *number = n;
    }
  } else if (strncmp(base, "MANIFEST-", 9) == 0) {
    *kind = kManifestFile;
  }
}

void InitCtx(FileCtx* c, const std::shared_ptr<EnvState>& st, const std::string& fname, bool direct) {
  c->st = st;
  c->fname = fname;
  c->direct = direct;
  ParseName(fname, &c->kind, &c->number);
  c->part = st->Lookup(fname);
}

// ------------------------------------------------------------------------------------------ thread context ----

enum ThreadKind : int { kTkOther = 0, kTkHigh, kTkLow, kTkBottom, kTkPrefetch };

struct ThreadCtx {
  int kind = -1;
  const Partition* cpart = nullptr;
  int cmin = -1, cmax = -1;
};

thread_local ThreadCtx tl_ctx;

int ThreadKindNow() {
  ThreadCtx& t = tl_ctx;
  if (t.kind < 0) {
    char name[32] = {0};
    prctl(PR_GET_NAME, name, 0, 0, 0);
    if (strncmp(name, "rocksdb:high", 12) == 0) {
      t.kind = kTkHigh;
    } else if (strncmp(name, "rocksdb:low", 11) == 0) {
      t.kind = kTkLow;
    } else if (strncmp(name, "rocksdb:bottom", 14) == 0) {
      t.kind = kTkBottom;
    } else if (strncmp(name, "sluice-prefetch", 15) == 0) {
      t.kind = kTkPrefetch;
    } else {
      t.kind = kTkOther;
    }
  }
  return t.kind;
}

int RankCached(const FileCtx& f) {
  uint64_t g = f.part->level_gen.load(std::memory_order_acquire);
  if (f.rank_gen.load(std::memory_order_relaxed) == g) return f.rank.load(std::memory_order_relaxed);
  int r = f.part->RankOf(f.number);
  f.rank.store(r, std::memory_order_relaxed);
  f.rank_gen.store(g, std::memory_order_relaxed);
  return r;
}

int CompactionClass(const FileCtx& f, bool input_read) {
  ThreadCtx& t = tl_ctx;
  if (t.cpart != f.part) {
    t.cpart = f.part;
    t.cmin = t.cmax = -1;
  }
  if (input_read && (f.kind == kSstFile || f.kind == kBlobFile)) {
    int r = RankCached(f);
    if (r >= 0) {
      if (t.cmin < 0) {
        t.cmin = t.cmax = r;
      } else if (r < t.cmin) {
        if (t.cmax - r <= 1) {
          t.cmin = r;
        } else {
          t.cmin = t.cmax = r;
        }
      } else if (r > t.cmax) {
        if (r - t.cmin <= 1) {
          t.cmax = r;
        } else {
          t.cmin = t.cmax = r;
        }
      }
    }
  }
  if (t.cmin < 0) return kCompactionHigh;  // no level information (no map pushed yet)
  return t.cmin == 0 ? kCompactionL0 : (t.cmin == 1 ? kCompactionHigh : kCompactionDeep);
}

int UserClass(int fg, bool prefetch_call) {
  return prefetch_call || ThreadKindNow() == kTkPrefetch ? kPrefetch : fg;
}

int Classify(const FileCtx& f, const IOOptions& o, int op, bool prefetch_call, bool* urgent) {
  *urgent = false;
  if (f.kind == kWalFile) return kWal;
  if (f.kind == kManifestFile || f.kind == kOtherFile) return kMeta;
  int c;
  switch (o.io_activity) {
    case Env::IOActivity::kFlush:
      c = kFlush;
      break;
    case Env::IOActivity::kCompaction:
      c = CompactionClass(f, op == kOpRead);
      break;
    case Env::IOActivity::kGet:
    case Env::IOActivity::kMultiGet:
    case Env::IOActivity::kGetEntity:
    case Env::IOActivity::kMultiGetEntity:
      return UserClass(kUserGet, prefetch_call);
    case Env::IOActivity::kDBIterator:
      return UserClass(kUserScan, prefetch_call);
    case Env::IOActivity::kDBOpen:
    case Env::IOActivity::kVerifyDBChecksum:
    case Env::IOActivity::kVerifyFileChecksums:
    case Env::IOActivity::kReadManifest:
      return kMeta;
    default:
      switch (ThreadKindNow()) {
        case kTkHigh:
          c = kFlush;
          break;
        case kTkLow:
        case kTkBottom:
          c = CompactionClass(f, op == kOpRead);
          break;
        case kTkPrefetch:
          return kPrefetch;
        default:
          if (op == kOpRead) return prefetch_call ? kPrefetch : kUserGet;
          c = kFlush;  // an SST written from a foreground thread (e.g. SstFileWriter): new data like a flush
      }
  }
  *urgent = o.rate_limiter_priority == Env::IO_USER;
  return c;
}

// ---------------------------------------------------------------------------------------------- pipeline ----

struct IoOutcome {
  IOStatus st;
  uint64_t bytes;
};

const char* const kClassNames[kNumClasses] = {"WAL",           "USER_GET",        "USER_SCAN",
                                              "FLUSH",         "COMPACTION_L0",   "COMPACTION_HIGH",
                                              "COMPACTION_DEEP", "PREFETCH",      "META"};
const char* const kOpNames[kNumOps] = {"read", "write", "sync", "flush"};

IOStatus FaultStatus(const FaultDecision& d, int cls, int op, const FileCtx& f) {
  std::string msg = "sluice fault injection (rule " + std::to_string(d.rule) + "): injected EIO on " +
                    kClassNames[cls] + " " + kOpNames[op] + " of " + f.fname;
  IOStatus s = IOStatus::IOError(msg);
  if (d.retryable) s.SetRetryable(true);
  return s;
}

// The status of every mutating operation after PriorityEnv.powerCut(): the emulated machine is off.
IOStatus PowerOffStatus(const char* what, const std::string& fname) {
  return IOStatus::IOError(std::string("sluice power cut: the emulated machine is off, EIO on ") + what + " of " +
                           fname);
}

// Returns a non-OK status when a fault rule fails the operation; sleeps for delay rules.
inline IOStatus CheckFault(const FileCtx& f, int cls, int op) {
  EnvState& s = *f.st;
  if (!s.faults.Active()) return IOStatus::OK();
  FaultDecision d = s.faults.Check(cls, f.kind, op);
  if (d.rule == 0) return IOStatus::OK();
  f.part->cls[cls].f[kFFaults].fetch_add(1, std::memory_order_relaxed);
  if (d.fail) return FaultStatus(d, cls, op, f);
  if (d.delay_ns != 0) SleepUntil(NowNanos() + d.delay_ns);
  return IOStatus::OK();
}

template <class Fn>
IOStatus RunIo(const FileCtx& f, int cls, bool urgent, int op, uint64_t req_bytes, uint32_t nops, uint64_t units,
               bool emulate, Fn&& fn) {
  EnvState& s = *f.st;
  IOStatus fault = CheckFault(f, cls, op);
  if (!fault.ok()) return fault;
  uint64_t wait = 0;
  int tier = -1;
  bool release = false;
  if (s.SchedulingOn()) wait = s.Schedule(cls, urgent, op == kOpWrite, req_bytes, nops, units, &tier, &release, f.part);
  const uint64_t t0 = NowNanos();
  if (emulate && s.device.Enabled()) SleepUntil(s.device.Admit(op, req_bytes, units, nops == 0 ? 1 : nops, t0));
  IoOutcome out = fn();
  const uint64_t t1 = NowNanos();
  if (release) s.sched.Release(tier);
  if (op == kOpSync) {
    AccountSync(f.part, cls, wait, t1 - t0, urgent);
  } else {
    Account(f.part, cls, out.bytes, nops, wait, t1 - t0, urgent);
  }
  return out.st;
}

size_t ChunkFor(const FileCtx& f, int cls, size_t n) {
  if (f.direct || !IsBackground(cls)) return 0;
  EnvState& s = *f.st;
  const int64_t own = s.class_chunk_bytes[cls].load(std::memory_order_relaxed);
  uint64_t c = own >= 0 ? static_cast<uint64_t>(own) : s.chunk_bytes.load(std::memory_order_relaxed);
  if (c == 0 || n <= c) return 0;
  if (!s.SchedulingOn() && !s.device.Enabled()) return 0;
  return static_cast<size_t>(c);
}

// --------------------------------------------------------------------------------------------------- files ----

class PriorityRandomAccessFile : public rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  PriorityRandomAccessFile(std::unique_ptr<FSRandomAccessFile>&& t, const std::shared_ptr<EnvState>& st,
                           const std::string& fname, bool direct)
      : FSRandomAccessFileOwnerWrapper(std::move(t)) {
    InitCtx(&f_, st, fname, direct);
  }

  IOStatus Read(uint64_t offset, size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* dbg) const override {
    bool urgent;
    int cls = Classify(f_, o, kOpRead, false, &urgent);
    size_t chunk = scratch == nullptr ? 0 : ChunkFor(f_, cls, n);
    if (chunk == 0) {
      return RunIo(f_, cls, urgent, kOpRead, n, 1, f_.st->Units(n), true, [&]() {
        IOStatus s = target()->Read(offset, n, o, result, scratch, dbg);
        return IoOutcome{s, s.ok() ? result->size() : 0};
      });
    }
    size_t done = 0;
    IOStatus s;
    while (done < n) {
      size_t len = std::min(chunk, n - done);
      Slice part;
      s = RunIo(f_, cls, urgent, kOpRead, len, 1, f_.st->Units(len), true, [&]() {
        IOStatus r = target()->Read(offset + done, len, o, &part, scratch + done, dbg);
        return IoOutcome{r, r.ok() ? part.size() : 0};
      });
      if (!s.ok()) break;
      if (part.size() != 0 && part.data() != scratch + done) memmove(scratch + done, part.data(), part.size());
      done += part.size();
      if (part.size() < len) break;  // end of file
    }
    *result = Slice(scratch, done);
    return s;
  }

  IOStatus MultiRead(FSReadRequest* reqs, size_t num_reqs, const IOOptions& o, IODebugContext* dbg) override {
    bool urgent;
    int cls = Classify(f_, o, kOpRead, false, &urgent);
    uint64_t bytes = 0, units = 0;
    for (size_t i = 0; i < num_reqs; i++) {
      bytes += reqs[i].len;
      units += f_.st->Units(reqs[i].len);
    }
    IOStatus s = RunIo(f_, cls, urgent, kOpRead, bytes, static_cast<uint32_t>(num_reqs), units, true, [&]() {
      IOStatus r = target()->MultiRead(reqs, num_reqs, o, dbg);
      uint64_t got = 0;
      for (size_t i = 0; i < num_reqs; i++) {
        if (reqs[i].status.ok()) got += reqs[i].result.size();
      }
      return IoOutcome{r, got};
    });
    if (!s.ok()) {
      for (size_t i = 0; i < num_reqs; i++) {
        if (reqs[i].status.ok() && reqs[i].result.size() == 0) reqs[i].status = s;
      }
    }
    return s;
  }

  // A readahead hint (readahead(2)) transfers nothing itself. Passed through, it lets RocksDB read a compaction input
  // or a scanned file block by block out of the page cache; this Env would then schedule and charge every 4-16 KiB
  // block as one device I/O, which no real disk sees under OS readahead (measured: compaction I/Os averaged 8.5 KiB
  // on the emulated disk, and under the CruiseDB policy each waited for the anti-starvation bound). So while the device
  // model or a scheduling policy is active, hints are refused (NotSupported, as any file system without readahead
  // does), and RocksDB falls back to its own readahead buffer (compaction_readahead_size, 2 MiB by default), whose
  // large reads pass through here, chunked and charged like any background I/O. Otherwise hints are classified for
  // fault rules and passed through uncharged (charging them would count the bytes twice).
  IOStatus Prefetch(uint64_t offset, size_t n, const IOOptions& o, IODebugContext* dbg) override {
    bool urgent;
    int cls = Classify(f_, o, kOpRead, true, &urgent);
    IOStatus fault = CheckFault(f_, cls, kOpRead);
    if (!fault.ok()) return fault;
    if (f_.st->device.Enabled() || f_.st->SchedulingOn()) {
      return IOStatus::NotSupported("sluice priority Env: readahead goes through RocksDB's own buffer");
    }
    return target()->Prefetch(offset, n, o, dbg);
  }

  // Reads are always synchronous through this Env (async I/O is not advertised by the file system).
  IOStatus ReadAsync(FSReadRequest& req, const IOOptions& opts, std::function<void(FSReadRequest&, void*)> cb,
                     void* cb_arg, void** /*io_handle*/, rocksdb::IOHandleDeleter* /*del_fn*/,
                     IODebugContext* dbg) override {
    req.status = Read(req.offset, req.len, opts, &(req.result), req.scratch, dbg);
    cb(req, cb_arg);
    return IOStatus::OK();
  }

 private:
  FileCtx f_;
};

class PriorityWritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  PriorityWritableFile(std::unique_ptr<FSWritableFile>&& t, const std::shared_ptr<EnvState>& st,
                       const std::string& fname, bool direct, std::shared_ptr<DurableFile> durable, uint64_t size)
      : FSWritableFileOwnerWrapper(std::move(t)), durable_(std::move(durable)), size_(size) {
    InitCtx(&f_, st, fname, direct);
  }

  // After a power cut the base file is closed here (a close-time ftruncate would otherwise re-extend the file) and the
  // file is cut back to its durable length.
  ~PriorityWritableFile() override {
    if (f_.st->power.Off() && !closed_) {
      IOOptions o;
      target()->Close(o, nullptr);
      f_.st->power.Retruncate(durable_.get());
    }
  }

  IOStatus Close(const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = target()->Close(o, dbg);
    closed_ = true;
    if (f_.st->power.Off()) {
      f_.st->power.Retruncate(durable_.get());
      return PowerOffStatus("close", f_.fname);
    }
    return s;
  }

  IOStatus Truncate(uint64_t size, const IOOptions& o, IODebugContext* dbg) override {
    if (f_.st->power.Off()) return PowerOffStatus("truncate", f_.fname);
    IOStatus s = target()->Truncate(size, o, dbg);
    if (s.ok()) size_.store(size, std::memory_order_relaxed);
    return s;
  }

  IOStatus Append(const Slice& data, const IOOptions& o, IODebugContext* dbg) override {
    return DoWrite(data, o, nullptr, false, 0, dbg);
  }
  IOStatus Append(const Slice& data, const IOOptions& o, const DataVerificationInfo& vi,
                  IODebugContext* dbg) override {
    return DoWrite(data, o, &vi, false, 0, dbg);
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o, IODebugContext* dbg) override {
    return DoWrite(data, o, nullptr, true, offset, dbg);
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o, const DataVerificationInfo& vi,
                            IODebugContext* dbg) override {
    return DoWrite(data, o, &vi, true, offset, dbg);
  }

  // A user-space flush: classified and subject to fault rules, but not an I/O for accounting or scheduling.
  IOStatus Flush(const IOOptions& o, IODebugContext* dbg) override {
    if (f_.st->power.Off()) return PowerOffStatus("flush", f_.fname);
    bool urgent;
    int cls = Classify(f_, o, kOpFlush, false, &urgent);
    IOStatus fault = CheckFault(f_, cls, kOpFlush);
    if (!fault.ok()) return fault;
    return target()->Flush(o, dbg);
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* dbg) override {
    return DoSync(o, true, [&]() { return target()->Sync(o, dbg); });
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override {
    return DoSync(o, true, [&]() { return target()->Fsync(o, dbg); });
  }
  // sync_file_range(2) makes no durability promise (no metadata, no device cache flush): not durable in the model.
  IOStatus RangeSync(uint64_t offset, uint64_t nbytes, const IOOptions& o, IODebugContext* dbg) override {
    return DoSync(o, false, [&]() { return target()->RangeSync(offset, nbytes, o, dbg); });
  }

 private:
  template <class Fn>
  IOStatus DoSync(const IOOptions& o, bool durable, Fn&& fn) {
    if (f_.st->power.Off()) return PowerOffStatus("sync", f_.fname);
    const uint64_t len = size_.load(std::memory_order_acquire);  // bytes the sync is sure to cover
    bool urgent;
    int cls = Classify(f_, o, kOpSync, false, &urgent);
    IOStatus s = RunIo(f_, cls, urgent, kOpSync, 0, 1, 0, true, [&]() { return IoOutcome{fn(), 0}; });
    if (s.ok() && durable && !f_.st->power.Synced(durable_.get(), len)) return PowerOffStatus("sync", f_.fname);
    return s;
  }

  void Grew(uint64_t end) {
    uint64_t cur = size_.load(std::memory_order_relaxed);
    while (end > cur && !size_.compare_exchange_weak(cur, end, std::memory_order_acq_rel)) {
    }
  }

  IOStatus DoWrite(const Slice& data, const IOOptions& o, const DataVerificationInfo* vi, bool positioned,
                   uint64_t offset, IODebugContext* dbg) {
    if (f_.st->power.Off()) return PowerOffStatus("write", f_.fname);
    IOStatus s = DoWriteOn(data, o, vi, positioned, offset, dbg);
    if (s.ok()) {
      if (positioned) {
        Grew(offset + data.size());
      } else {
        size_.fetch_add(data.size(), std::memory_order_acq_rel);
      }
    }
    return s;
  }

  IOStatus DoWriteOn(const Slice& data, const IOOptions& o, const DataVerificationInfo* vi, bool positioned,
                     uint64_t offset, IODebugContext* dbg) {
    bool urgent;
    int cls = Classify(f_, o, kOpWrite, false, &urgent);
    if (cls == kFlush && !noted_flush_ && f_.kind == kSstFile) {
      f_.part->NoteFlushed(f_.number);
      noted_flush_ = true;
    }
    auto one = [&](const Slice& d, uint64_t off, bool whole) {
      return RunIo(f_, cls, urgent, kOpWrite, d.size(), 1, f_.st->Units(d.size()), true, [&]() {
        IOStatus s;
        if (positioned) {
          s = whole && vi != nullptr ? target()->PositionedAppend(d, off, o, *vi, dbg)
                                     : target()->PositionedAppend(d, off, o, dbg);
        } else {
          s = whole && vi != nullptr ? target()->Append(d, o, *vi, dbg) : target()->Append(d, o, dbg);
        }
        return IoOutcome{s, s.ok() ? d.size() : 0};
      });
    };
    size_t chunk = ChunkFor(f_, cls, data.size());
    if (chunk == 0) return one(data, offset, true);
    for (size_t done = 0; done < data.size();) {
      size_t len = std::min(chunk, data.size() - done);
      IOStatus s = one(Slice(data.data() + done, len), offset + done, false);
      if (!s.ok()) return s;
      done += len;
    }
    return IOStatus::OK();
  }

  FileCtx f_;
  bool noted_flush_ = false;
  std::shared_ptr<DurableFile> durable_;
  std::atomic<uint64_t> size_;  // bytes written so far (end of the file as this Env wrote it)
  bool closed_ = false;
};

class PrioritySequentialFile : public rocksdb::FSSequentialFileOwnerWrapper {
 public:
  PrioritySequentialFile(std::unique_ptr<FSSequentialFile>&& t, const std::shared_ptr<EnvState>& st,
                         const std::string& fname, bool direct)
      : FSSequentialFileOwnerWrapper(std::move(t)) {
    InitCtx(&f_, st, fname, direct);
  }

  IOStatus Read(size_t n, const IOOptions& o, Slice* result, char* scratch, IODebugContext* dbg) override {
    bool urgent;
    int cls = Classify(f_, o, kOpRead, false, &urgent);
    return RunIo(f_, cls, urgent, kOpRead, n, 1, f_.st->Units(n), true, [&]() {
      IOStatus s = target()->Read(n, o, result, scratch, dbg);
      return IoOutcome{s, s.ok() ? result->size() : 0};
    });
  }
  IOStatus PositionedRead(uint64_t offset, size_t n, const IOOptions& o, Slice* result, char* scratch,
                          IODebugContext* dbg) override {
    bool urgent;
    int cls = Classify(f_, o, kOpRead, false, &urgent);
    return RunIo(f_, cls, urgent, kOpRead, n, 1, f_.st->Units(n), true, [&]() {
      IOStatus s = target()->PositionedRead(offset, n, o, result, scratch, dbg);
      return IoOutcome{s, s.ok() ? result->size() : 0};
    });
  }

 private:
  FileCtx f_;
};

class PriorityRandomRWFile : public rocksdb::FSRandomRWFileOwnerWrapper {
 public:
  PriorityRandomRWFile(std::unique_ptr<FSRandomRWFile>&& t, const std::shared_ptr<EnvState>& st,
                       const std::string& fname, bool direct)
      : FSRandomRWFileOwnerWrapper(std::move(t)) {
    InitCtx(&f_, st, fname, direct);
  }

  IOStatus Write(uint64_t offset, const Slice& data, const IOOptions& o, IODebugContext* dbg) override {
    if (f_.st->power.Off()) return PowerOffStatus("write", f_.fname);
    bool urgent;
    int cls = Classify(f_, o, kOpWrite, false, &urgent);
    return RunIo(f_, cls, urgent, kOpWrite, data.size(), 1, f_.st->Units(data.size()), true, [&]() {
      IOStatus s = target()->Write(offset, data, o, dbg);
      return IoOutcome{s, s.ok() ? data.size() : 0};
    });
  }
  IOStatus Read(uint64_t offset, size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* dbg) const override {
    bool urgent;
    int cls = Classify(f_, o, kOpRead, false, &urgent);
    return RunIo(f_, cls, urgent, kOpRead, n, 1, f_.st->Units(n), true, [&]() {
      IOStatus s = target()->Read(offset, n, o, result, scratch, dbg);
      return IoOutcome{s, s.ok() ? result->size() : 0};
    });
  }
  IOStatus Flush(const IOOptions& o, IODebugContext* dbg) override {
    if (f_.st->power.Off()) return PowerOffStatus("flush", f_.fname);
    return target()->Flush(o, dbg);
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* dbg) override {
    if (f_.st->power.Off()) return PowerOffStatus("sync", f_.fname);
    bool urgent;
    int cls = Classify(f_, o, kOpSync, false, &urgent);
    return RunIo(f_, cls, urgent, kOpSync, 0, 1, 0, true, [&]() { return IoOutcome{target()->Sync(o, dbg), 0}; });
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override {
    if (f_.st->power.Off()) return PowerOffStatus("sync", f_.fname);
    bool urgent;
    int cls = Classify(f_, o, kOpSync, false, &urgent);
    return RunIo(f_, cls, urgent, kOpSync, 0, 1, 0, true, [&]() { return IoOutcome{target()->Fsync(o, dbg), 0}; });
  }

 private:
  FileCtx f_;
};

// ---------------------------------------------------------------------------------------------- file system ----

class PriorityFileSystem : public rocksdb::FileSystemWrapper {
 public:
  PriorityFileSystem(const std::shared_ptr<FileSystem>& base, const std::shared_ptr<EnvState>& st)
      : FileSystemWrapper(base), st_(st) {}

  static const char* kClassName() { return "SluicePriorityFileSystem"; }
  const char* Name() const override { return kClassName(); }

  IOStatus NewSequentialFile(const std::string& f, const FileOptions& fo, std::unique_ptr<FSSequentialFile>* r,
                             IODebugContext* dbg) override {
    std::unique_ptr<FSSequentialFile> base;
    IOStatus s = target()->NewSequentialFile(f, fo, &base, dbg);
    if (s.ok()) r->reset(new PrioritySequentialFile(std::move(base), st_, f, fo.use_direct_reads));
    return s;
  }
  IOStatus NewRandomAccessFile(const std::string& f, const FileOptions& fo, std::unique_ptr<FSRandomAccessFile>* r,
                               IODebugContext* dbg) override {
    std::unique_ptr<FSRandomAccessFile> base;
    IOStatus s = target()->NewRandomAccessFile(f, fo, &base, dbg);
    if (s.ok()) r->reset(new PriorityRandomAccessFile(std::move(base), st_, f, fo.use_direct_reads));
    return s;
  }
  IOStatus NewWritableFile(const std::string& f, const FileOptions& fo, std::unique_ptr<FSWritableFile>* r,
                           IODebugContext* dbg) override {
    if (st_->power.Off()) return PowerOffStatus("create", f);
    std::unique_ptr<FSWritableFile> base;
    IOStatus s = target()->NewWritableFile(f, fo, &base, dbg);
    if (s.ok()) {
      r->reset(new PriorityWritableFile(std::move(base), st_, f, fo.use_direct_writes, st_->power.Track(f, 0), 0));
    }
    return s;
  }
  // The existing content of a reopened file counts as durable (it was there before this Env wrote to it).
  IOStatus ReopenWritableFile(const std::string& f, const FileOptions& fo, std::unique_ptr<FSWritableFile>* r,
                              IODebugContext* dbg) override {
    if (st_->power.Off()) return PowerOffStatus("reopen", f);
    uint64_t size = 0;
    if (!target()->GetFileSize(f, fo.io_options, &size, dbg).ok()) size = 0;
    std::unique_ptr<FSWritableFile> base;
    IOStatus s = target()->ReopenWritableFile(f, fo, &base, dbg);
    if (s.ok()) {
      r->reset(
          new PriorityWritableFile(std::move(base), st_, f, fo.use_direct_writes, st_->power.Track(f, size), size));
    }
    return s;
  }
  IOStatus ReuseWritableFile(const std::string& f, const std::string& old, const FileOptions& fo,
                             std::unique_ptr<FSWritableFile>* r, IODebugContext* dbg) override {
    if (st_->power.Off()) return PowerOffStatus("reuse", f);
    std::unique_ptr<FSWritableFile> base;
    IOStatus s = target()->ReuseWritableFile(f, old, fo, &base, dbg);
    if (s.ok()) {
      st_->power.Deleted(old);
      r->reset(new PriorityWritableFile(std::move(base), st_, f, fo.use_direct_writes, st_->power.Track(f, 0), 0));
    }
    return s;
  }
  IOStatus NewRandomRWFile(const std::string& f, const FileOptions& fo, std::unique_ptr<FSRandomRWFile>* r,
                           IODebugContext* dbg) override {
    if (st_->power.Off()) return PowerOffStatus("create", f);
    std::unique_ptr<FSRandomRWFile> base;
    IOStatus s = target()->NewRandomRWFile(f, fo, &base, dbg);
    if (s.ok()) r->reset(new PriorityRandomRWFile(std::move(base), st_, f, fo.use_direct_reads));
    return s;
  }

  // Name-space operations: refused after a power cut; renames and deletes keep the power-cut tracking (and the level
  // map) in step. Directory entries themselves are not modelled (see DEVICE.md).
  IOStatus RenameFile(const std::string& src, const std::string& dst, const IOOptions& o,
                      IODebugContext* dbg) override {
    if (st_->power.Off()) return PowerOffStatus("rename", src);
    IOStatus s = target()->RenameFile(src, dst, o, dbg);
    if (s.ok()) {
      st_->power.Renamed(src, dst);
      Forget(src);  // e.g. a table file moved to trash by RocksDB's delete scheduler
    }
    return s;
  }
  IOStatus LinkFile(const std::string& src, const std::string& dst, const IOOptions& o, IODebugContext* dbg) override {
    if (st_->power.Off()) return PowerOffStatus("link", src);
    return target()->LinkFile(src, dst, o, dbg);
  }
  IOStatus DeleteFile(const std::string& f, const IOOptions& o, IODebugContext* dbg) override {
    if (st_->power.Off()) return PowerOffStatus("delete", f);
    IOStatus s = target()->DeleteFile(f, o, dbg);
    if (s.ok()) {
      st_->power.Deleted(f);
      Forget(f);
    }
    return s;
  }
  IOStatus Truncate(const std::string& f, size_t size, const IOOptions& o, IODebugContext* dbg) override {
    if (st_->power.Off()) return PowerOffStatus("truncate", f);
    return target()->Truncate(f, size, o, dbg);
  }
  IOStatus CreateDir(const std::string& d, const IOOptions& o, IODebugContext* dbg) override {
    if (st_->power.Off()) return PowerOffStatus("mkdir", d);
    return target()->CreateDir(d, o, dbg);
  }
  IOStatus CreateDirIfMissing(const std::string& d, const IOOptions& o, IODebugContext* dbg) override {
    if (st_->power.Off()) return PowerOffStatus("mkdir", d);
    return target()->CreateDirIfMissing(d, o, dbg);
  }
  IOStatus DeleteDir(const std::string& d, const IOOptions& o, IODebugContext* dbg) override {
    if (st_->power.Off()) return PowerOffStatus("rmdir", d);
    return target()->DeleteDir(d, o, dbg);
  }

  // Every read goes through the synchronous pipeline; do not let RocksDB issue async reads and poll for them.
  void SupportedOps(int64_t& supported_ops) override {
    target()->SupportedOps(supported_ops);
    supported_ops &= ~(int64_t{1} << rocksdb::FSSupportedOps::kAsyncIO);
  }

 private:
  // A deleted table file leaves the partition's level map (file numbers are never reused).
  void Forget(const std::string& f) {
    int kind;
    uint64_t number;
    ParseName(f, &kind, &number);
    if (kind == kSstFile || kind == kBlobFile) st_->Lookup(f)->ForgetFile(number);
  }

  std::shared_ptr<EnvState> st_;
};

}  // namespace

std::shared_ptr<FileSystem> NewPriorityFileSystem(const std::shared_ptr<FileSystem>& base,
                                                  const std::shared_ptr<EnvState>& state) {
  return std::make_shared<PriorityFileSystem>(base, state);
}

uint64_t MeasureInterposition(const std::shared_ptr<EnvState>& state, int mode, int64_t iterations) {
  FileCtx f;
  InitCtx(&f, state, "/sluice-overhead-probe/000001.sst", false);
  Partition probe;  // counts go here, not into the Env's statistics
  f.part = &probe;
  IOOptions o;
  o.io_activity = Env::IOActivity::kGet;
  const uint64_t t0 = NowNanos();
  for (int64_t i = 0; i < iterations; i++) {
    bool urgent;
    int cls = Classify(f, o, kOpRead, false, &urgent);
    if (mode == 0) {
      Account(f.part, cls, 4096, 1, 0, 0, urgent);
    } else {
      IOStatus s = RunIo(f, cls, urgent, kOpRead, 4096, 1, 1, true, [&]() { return IoOutcome{IOStatus::OK(), 4096}; });
      if (!s.ok()) break;
    }
  }
  return NowNanos() - t0;
}

int64_t SyntheticIo(const std::shared_ptr<EnvState>& state, int cls, int op, uint64_t bytes, bool urgent) {
  FileCtx f;
  InitCtx(&f, state, "/sluice-synthetic/000001.sst", false);
  f.part = &state->unattributed;
  const uint64_t t0 = NowNanos();
  IOStatus s = RunIo(f, cls, urgent, op, bytes, 1, op == kOpSync ? 0 : state->Units(bytes), true,
                     [&]() { return IoOutcome{IOStatus::OK(), op == kOpSync ? 0 : bytes}; });
  return s.ok() ? static_cast<int64_t>(NowNanos() - t0) : -1;
}

}  // namespace sluice
