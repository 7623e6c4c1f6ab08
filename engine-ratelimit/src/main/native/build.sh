#!/usr/bin/env bash
# Builds the Sluice priority Env native libraries (called by Maven in engine-ratelimit, phase process-classes).
#
#   build.sh <out-dir> <rocksdb-version> <headers-deb> <rocksdbjni-jar> <java-home> <work-dir>
#
# 1. Fetches the RocksDB public headers of exactly <rocksdb-version> from Debian's <headers-deb> package with a private
#    apt configuration (the system's apt state is not touched) and caches them under $SLUICE_CACHE_DIR
#    (default ~/.cache/sluice), outside target/, so `mvn clean` does not refetch.
# 2. Compiles libsluice_env.so (the FileSystem plugin; no DT_NEEDED on the JNI library) and libsluice_promote.so (the
#    helper that promotes the loaded JNI library to RTLD_GLOBAL).
# 3. Link check: links the same objects with -Wl,-z,defs against a copy of librocksdbjni-linux64.so unzipped from the
#    rocksdbjni jar, proving every symbol resolves.
# On anything but linux-x86_64 it prints why and exits 0 (the jar then carries no native code; tests that need it skip).
set -euo pipefail

out=$1 rocksdb_version=$2 headers_deb=$3 jni_jar=$4 java_home=$5 work=$6
here=$(cd "$(dirname "$0")" && pwd)
log() { echo "[sluice-native] $*"; }

os=$(uname -s) arch=$(uname -m)
if [[ "$os" != "Linux" || "$arch" != "x86_64" ]]; then
  log "SKIPPING the native priority Env build: it is built for linux-x86_64 only, this is $os-$arch."
  log "The jar will contain no native library; PriorityEnvProvider reports itself unavailable and Sluice uses RocksDB's default Env."
  exit 0
fi

for tool in g++ gcc apt-get dpkg; do
  command -v "$tool" >/dev/null || { log "ERROR: '$tool' is needed to build the native priority Env"; exit 1; }
done
[[ -f "$java_home/include/jni.h" ]] || { log "ERROR: no JNI headers under $java_home/include (need a JDK, not a JRE)"; exit 1; }

cache=${SLUICE_CACHE_DIR:-$HOME/.cache/sluice}
deb_version=${headers_deb#*=}
hdr_root=$cache/rocksdb-headers/$deb_version
mkdir -p "$cache" "$work" "$out"

# ---- 1. headers (cached; serialised with flock so parallel builds do not race) ----------------------------------
exec 9>"$cache/.lock"
flock 9
if [[ ! -f "$hdr_root/hdr/usr/include/rocksdb/version.h" ]]; then
  log "fetching RocksDB $rocksdb_version headers ($headers_deb from Debian trixie) into $hdr_root"
  rm -rf "$hdr_root.tmp"
  d=$hdr_root.tmp/apt
  mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
  echo 'deb http://deb.debian.org/debian trixie main' >"$d/sources.list"
  o=(-o "Dir::Etc::SourceList=$d/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$d/lists"
     -o "Dir::Cache=$d/cache" -o APT::Sandbox::User=root -o Debug::NoLocking=1)
  apt-get -q "${o[@]}" update >"$hdr_root.tmp/apt-update.log" 2>&1 \
    || { cat "$hdr_root.tmp/apt-update.log"; log "ERROR: apt-get update (private config) failed"; exit 1; }
  (cd "$hdr_root.tmp" && apt-get -q "${o[@]}" download "$headers_deb" >apt-download.log 2>&1) \
    || { cat "$hdr_root.tmp/apt-download.log"; log "ERROR: could not download $headers_deb"; exit 1; }
  dpkg -x "$hdr_root.tmp"/librocksdb-dev_*.deb "$hdr_root.tmp/hdr"
  rm -rf "$hdr_root.tmp/apt" "$hdr_root.tmp"/*.deb
  rm -rf "$hdr_root"
  mv "$hdr_root.tmp" "$hdr_root"
fi
inc=$hdr_root/hdr/usr/include
v=$(awk '/#define ROCKSDB_MAJOR/{a=$3} /#define ROCKSDB_MINOR/{b=$3} /#define ROCKSDB_PATCH/{c=$3} END{print a"."b"."c}' \
  "$inc/rocksdb/version.h")
if [[ "$v" != "$rocksdb_version" ]]; then
  log "ERROR: cached headers are RocksDB $v but rocksdbjni is $rocksdb_version; bump rocksdb.version and rocksdb.headers.deb together"
  exit 1
fi

# ---- the JNI library copy for the link check (cached per version) -------------------------------------------------
jni_dir=$cache/rocksdbjni/$rocksdb_version
if [[ ! -f "$jni_dir/librocksdbjni-linux64.so" ]]; then
  mkdir -p "$jni_dir"
  if command -v unzip >/dev/null; then
    unzip -q -o "$jni_jar" librocksdbjni-linux64.so -d "$jni_dir.tmp"
  else
    (mkdir -p "$jni_dir.tmp" && cd "$jni_dir.tmp" && "$java_home/bin/jar" xf "$jni_jar" librocksdbjni-linux64.so)
  fi
  mv "$jni_dir.tmp/librocksdbjni-linux64.so" "$jni_dir/" && rm -rf "$jni_dir.tmp"
fi
flock -u 9

# ---- 2. compile (skipped when sources, flags and versions are unchanged) ----------------------------------------
cxxflags=(-std=c++17 -O2 -fPIC -fno-rtti -D_GLIBCXX_USE_CXX11_ABI=0 -DNDEBUG -Wall -Wextra -Wno-unused-parameter
          -fvisibility=hidden -isystem "$inc" -I"$java_home/include" -I"$java_home/include/linux")
stamp=$( (cat "$here"/*.h "$here"/*.cc "$here"/*.c "$here/build.sh"; echo "${cxxflags[*]} $rocksdb_version $deb_version") \
  | sha256sum | cut -c1-16)
if [[ -f "$out/libsluice_env.so" && -f "$out/libsluice_promote.so" && "$(cat "$work/.stamp" 2>/dev/null)" == "$stamp" ]]; then
  log "native libraries up to date ($out)"
  exit 0
fi

log "compiling against RocksDB $v headers ($(g++ -dumpfullversion))"
pids=()
for src in sluice_core priority_fs jni_bridge; do
  g++ "${cxxflags[@]}" -c "$here/$src.cc" -o "$work/$src.o" &
  pids+=($!)
done
gcc -std=c11 -O2 -fPIC -Wall -I"$java_home/include" -I"$java_home/include/linux" -c "$here/promote.c" -o "$work/promote.o" &
pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done

objs=("$work/sluice_core.o" "$work/priority_fs.o" "$work/jni_bridge.o")
# The shipped plugin: no DT_NEEDED on the JNI library (its symbols come from the promoted, already loaded copy).
g++ -shared -o "$work/libsluice_env.so" "${objs[@]}" -Wl,--as-needed -lpthread -Wl,-soname,libsluice_env.so
gcc -shared -o "$work/libsluice_promote.so" "$work/promote.o" -ldl -Wl,-z,defs -Wl,-soname,libsluice_promote.so

# ---- 3. link check: every symbol must resolve against this exact JNI library ------------------------------------
g++ -shared -o "$work/link-check.so" "${objs[@]}" -L"$jni_dir" -l:librocksdbjni-linux64.so -lpthread -Wl,-z,defs \
  || { log "ERROR: link check against librocksdbjni-linux64.so $rocksdb_version failed (symbols above are missing)"; exit 1; }
rm -f "$work/link-check.so"

cp "$work/libsluice_env.so" "$work/libsluice_promote.so" "$out/"
echo "$stamp" >"$work/.stamp"
log "built $out/libsluice_env.so and libsluice_promote.so (link check with -z defs passed)"
