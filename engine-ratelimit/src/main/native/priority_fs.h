// The RocksDB FileSystemWrapper of the Sluice priority Env.
#pragma once

#include <memory>

#include "rocksdb/file_system.h"
#include "sluice_io.h"

namespace sluice {

std::shared_ptr<rocksdb::FileSystem> NewPriorityFileSystem(const std::shared_ptr<rocksdb::FileSystem>& base,
                                                           const std::shared_ptr<EnvState>& state);

// Micro-measurement of the per-I/O interposition cost (see PriorityEnv#measureOverhead). mode 0: classify + account
// only; mode 1: the full pipeline (classify, fault check, pass-through scheduler, device check, two clock reads,
// account) around an empty I/O. Returns the total nanoseconds for `iterations` calls.
uint64_t MeasureInterposition(const std::shared_ptr<EnvState>& state, int mode, int64_t iterations);

// Runs one synthetic I/O of class `cls` through the whole pipeline (fault check, caps, node policy, device model,
// accounting into the unattributed bucket) without touching a file. For tests and benchmarks. Returns the elapsed
// nanoseconds, or -1 when a fault rule failed it.
int64_t SyntheticIo(const std::shared_ptr<EnvState>& state, int cls, int op, uint64_t bytes, bool urgent);

}  // namespace sluice
