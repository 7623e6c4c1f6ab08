// JNI entry points of dev.sluice.ratelimit.env.NativeBridge. Java reads aggregate counters here (never per I/O).
//
// Handles: a "state handle" is a heap-allocated std::shared_ptr<EnvState> (freed by destroy); an "env handle" is the
// rocksdb::Env* returned by NewCompositeEnv(...).release() (freed by deleteEnv, called from org.rocksdb.SluiceEnvHandle
// disposal). The Env's FileSystem holds its own reference to the state, so either may be freed first.
#include <jni.h>

#include <memory>
#include <string>
#include <vector>

#include "priority_fs.h"
#include "rocksdb/env.h"
#include "sluice_io.h"

using sluice::EnvState;

namespace {

std::shared_ptr<EnvState>& State(jlong h) { return *reinterpret_cast<std::shared_ptr<EnvState>*>(h); }

std::string ToString(JNIEnv* env, jstring s) {
  if (s == nullptr) return std::string();
  const char* c = env->GetStringUTFChars(s, nullptr);
  std::string out(c == nullptr ? "" : c);
  if (c != nullptr) env->ReleaseStringUTFChars(s, c);
  return out;
}

void ThrowIllegalArgument(JNIEnv* env, const std::string& msg) {
  jclass c = env->FindClass("java/lang/IllegalArgumentException");
  if (c != nullptr) env->ThrowNew(c, msg.c_str());
}

}  // namespace

extern "C" {

#define BRIDGE(ret, name) JNIEXPORT ret JNICALL Java_dev_sluice_ratelimit_env_NativeBridge_##name

BRIDGE(jint, abiVersion)(JNIEnv*, jclass) { return 3; }

BRIDGE(jint, statFields)(JNIEnv*, jclass) { return sluice::kStatFields; }

BRIDGE(jint, deviceFields)(JNIEnv*, jclass) { return sluice::kDFields; }

BRIDGE(jlong, create)(JNIEnv*, jclass) {
  auto* h = new std::shared_ptr<EnvState>(std::make_shared<EnvState>());
  return reinterpret_cast<jlong>(h);
}

BRIDGE(void, destroy)(JNIEnv*, jclass, jlong h) { delete reinterpret_cast<std::shared_ptr<EnvState>*>(h); }

BRIDGE(jlong, newEnv)(JNIEnv*, jclass, jlong h) {
  std::shared_ptr<rocksdb::FileSystem> fs = sluice::NewPriorityFileSystem(rocksdb::FileSystem::Default(), State(h));
  std::unique_ptr<rocksdb::Env> env = rocksdb::NewCompositeEnv(fs);
  return reinterpret_cast<jlong>(env.release());
}

BRIDGE(void, deleteEnv)(JNIEnv*, jclass, jlong env) { delete reinterpret_cast<rocksdb::Env*>(env); }

BRIDGE(jint, registerPartition)(JNIEnv* env, jclass, jlong h, jstring name, jobjectArray dirs) {
  std::vector<std::string> prefixes;
  jsize n = env->GetArrayLength(dirs);
  for (jsize i = 0; i < n; i++) {
    auto s = static_cast<jstring>(env->GetObjectArrayElement(dirs, i));
    std::string p = ToString(env, s);
    env->DeleteLocalRef(s);
    if (p.empty()) continue;
    if (p.back() != '/') p.push_back('/');
    prefixes.push_back(p);
  }
  return State(h)->Register(ToString(env, name), prefixes);
}

BRIDGE(void, updateFileLevels)
(JNIEnv* env, jclass, jlong h, jint part, jlongArray numbers, jintArray levels, jboolean replace) {
  sluice::Partition* p = State(h)->ByIndex(part);
  if (p == nullptr) {
    ThrowIllegalArgument(env, "unknown partition index " + std::to_string(part));
    return;
  }
  jsize n = env->GetArrayLength(numbers);
  if (env->GetArrayLength(levels) != n) {
    ThrowIllegalArgument(env, "file numbers and levels differ in length");
    return;
  }
  std::vector<uint64_t> nums(static_cast<size_t>(n));
  std::vector<int> lv(static_cast<size_t>(n));
  if (n > 0) {
    env->GetLongArrayRegion(numbers, 0, n, reinterpret_cast<jlong*>(nums.data()));
    env->GetIntArrayRegion(levels, 0, n, reinterpret_cast<jint*>(lv.data()));
  }
  p->UpdateLevels(nums.data(), lv.data(), nums.size(), replace);
}

BRIDGE(jint, fileRank)(JNIEnv* env, jclass, jlong h, jint part, jlong number) {
  sluice::Partition* p = State(h)->ByIndex(part);
  if (p == nullptr) {
    ThrowIllegalArgument(env, "unknown partition index " + std::to_string(part));
    return -1;
  }
  return p->RankOf(static_cast<uint64_t>(number));
}

BRIDGE(void, powerCut)(JNIEnv* env, jclass, jlong h, jlongArray out) {
  uint64_t files = 0, bytes = 0;
  State(h)->power.Cut(&files, &bytes);
  jlong buf[2] = {static_cast<jlong>(files), static_cast<jlong>(bytes)};
  env->SetLongArrayRegion(out, 0, 2, buf);
}

BRIDGE(jboolean, poweredOff)(JNIEnv*, jclass, jlong h) { return State(h)->power.Off(); }

BRIDGE(jlong, trackedFiles)(JNIEnv*, jclass, jlong h) { return static_cast<jlong>(State(h)->power.TrackedFiles()); }

BRIDGE(jint, partitionCount)(JNIEnv*, jclass, jlong h) { return State(h)->PartitionCount(); }

BRIDGE(void, readStats)(JNIEnv* env, jclass, jlong h, jint part, jlongArray out) {
  std::vector<long> buf(sluice::kNumClasses * sluice::kStatFields);
  State(h)->ReadStats(part, buf.data());
  env->SetLongArrayRegion(out, 0, static_cast<jsize>(buf.size()), reinterpret_cast<const jlong*>(buf.data()));
}

BRIDGE(void, setClassLimit)(JNIEnv* env, jclass, jlong h, jint cls, jdouble ops, jdouble bytes) {
  if (cls < 0 || cls >= sluice::kNumClasses) {
    ThrowIllegalArgument(env, "unknown I/O class ordinal " + std::to_string(cls));
    return;
  }
  State(h)->SetClassLimit(cls, ops, bytes);
}

BRIDGE(jint, capsOn)(JNIEnv*, jclass, jlong h) { return State(h)->caps_on.load(); }

BRIDGE(void, setPartitionBackgroundLimit)(JNIEnv* env, jclass, jlong h, jint part, jdouble bytes) {
  sluice::Partition* p = part < 0 ? nullptr : State(h)->ByIndex(part);
  if (p == nullptr) {
    ThrowIllegalArgument(env, "unknown partition index " + std::to_string(part));
    return;
  }
  State(h)->SetPartitionBackgroundLimit(p, bytes);
}

BRIDGE(void, setForegroundMaxWait)(JNIEnv*, jclass, jlong h, jlong ns) {
  State(h)->fg_max_wait_ns.store(ns < 0 ? 0 : static_cast<uint64_t>(ns));
}

BRIDGE(void, setPolicy)
(JNIEnv* env, jclass, jlong h, jint kind, jintArray tiers, jdoubleArray weights, jboolean strict_top,
 jlong starvation_ns, jdouble node_ops, jdouble node_bytes, jdouble node_write_bytes, jdouble paid_iops,
 jdouble min_window, jdouble pace_s) {
  sluice::PolicyParams p;
  p.kind = kind;
  jint t[sluice::kNumClasses];
  env->GetIntArrayRegion(tiers, 0, sluice::kNumClasses, t);
  for (int i = 0; i < sluice::kNumClasses; i++) p.tier_of[i] = t[i];
  jdouble w[sluice::kMaxTiers];
  env->GetDoubleArrayRegion(weights, 0, sluice::kMaxTiers, w);
  for (int i = 0; i < sluice::kMaxTiers; i++) p.weight[i] = w[i];
  p.strict_top = strict_top;
  p.starvation_ns = starvation_ns < 0 ? 0 : static_cast<uint64_t>(starvation_ns);
  p.node_ops = node_ops;
  p.node_bytes = node_bytes;
  p.node_write_bytes = node_write_bytes;
  p.paid_iops = paid_iops;
  p.min_window = min_window;
  p.pace_s = pace_s;
  State(h)->sched.SetPolicy(p);
}

BRIDGE(void, setWriteBurstNanos)(JNIEnv*, jclass, jlong h, jlong ns) {
  if (ns > 0) State(h)->sched.SetWriteBurst(static_cast<double>(ns) / 1e9);
}

BRIDGE(void, setChunkBytes)(JNIEnv*, jclass, jlong h, jlong bytes) {
  State(h)->chunk_bytes.store(bytes < 0 ? 0 : static_cast<uint64_t>(bytes));
}

BRIDGE(void, setClassChunkBytes)(JNIEnv*, jclass, jlong h, jint cls, jlong bytes) {
  if (cls < 0 || cls >= sluice::kNumClasses) return;
  State(h)->class_chunk_bytes[cls].store(bytes < 0 ? -1 : static_cast<int64_t>(bytes));
}

BRIDGE(void, configureDevice)
(JNIEnv*, jclass, jlong h, jboolean enabled, jdouble iops, jdouble read_bps, jdouble write_bps, jlong base_ns,
 jdouble pool, jlong unit_bytes) {
  sluice::DeviceParams p;
  p.enabled = enabled;
  p.iops = iops;
  p.read_bps = read_bps;
  p.write_bps = write_bps;
  p.base_ns = base_ns < 0 ? 0 : static_cast<uint64_t>(base_ns);
  p.pool = pool;
  p.unit_bytes = unit_bytes <= 0 ? 262144 : static_cast<uint64_t>(unit_bytes);
  State(h)->device.Configure(p);
}

BRIDGE(void, readDeviceStats)(JNIEnv* env, jclass, jlong h, jlongArray out) {
  long buf[sluice::kDFields];
  State(h)->device.Read(buf);
  env->SetLongArrayRegion(out, 0, sluice::kDFields, reinterpret_cast<const jlong*>(buf));
}

BRIDGE(void, readSchedulerStats)(JNIEnv* env, jclass, jlong h, jlongArray out) {
  constexpr int n = sluice::NodeScheduler::kSnapshotFields + 1;
  long buf[n];
  State(h)->sched.Snapshot(buf);
  buf[n - 1] = static_cast<long>(State(h)->overruns.load());
  env->SetLongArrayRegion(out, 0, n, reinterpret_cast<const jlong*>(buf));
}

BRIDGE(jdouble, budgetUse)(JNIEnv*, jclass, jlong h) {
  EnvState& s = *State(h);
  uint64_t now = sluice::NowNanos();
  if (s.device.Enabled()) return s.device.BudgetUse(now);
  return s.sched.BudgetUse(now);
}

BRIDGE(jint, addFault)
(JNIEnv*, jclass, jlong h, jint class_mask, jint kind_mask, jint op_mask, jlong after, jlong max_hits,
 jdouble probability, jint action, jlong delay_ns) {
  sluice::FaultRule r;
  r.class_mask = static_cast<uint32_t>(class_mask);
  r.kind_mask = static_cast<uint32_t>(kind_mask);
  r.op_mask = static_cast<uint32_t>(op_mask);
  r.after = after < 0 ? 0 : static_cast<uint64_t>(after);
  r.max_hits = max_hits;
  r.probability = probability;
  r.action = action;
  r.delay_ns = delay_ns < 0 ? 0 : static_cast<uint64_t>(delay_ns);
  return State(h)->faults.Add(r);
}

BRIDGE(jboolean, removeFault)(JNIEnv*, jclass, jlong h, jint id) { return State(h)->faults.Remove(id); }

BRIDGE(void, clearFaults)(JNIEnv*, jclass, jlong h) { State(h)->faults.Clear(); }

BRIDGE(jlong, faultHits)(JNIEnv*, jclass, jlong h, jint id) { return State(h)->faults.Hits(id); }

BRIDGE(jlong, measureInterposition)(JNIEnv*, jclass, jlong h, jint mode, jlong iterations) {
  return static_cast<jlong>(sluice::MeasureInterposition(State(h), mode, iterations));
}

BRIDGE(jlong, syntheticIo)(JNIEnv*, jclass, jlong h, jint cls, jint op, jlong bytes, jboolean urgent) {
  return sluice::SyntheticIo(State(h), cls, op, bytes < 0 ? 0 : static_cast<uint64_t>(bytes), urgent);
}

}  // extern "C"
