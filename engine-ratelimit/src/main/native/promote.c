/*
 * Promote helper: makes the symbols of the already loaded RocksDB JNI library globally visible, so that the priority
 * Env plugin (built without a DT_NEEDED on it) can resolve rocksdb:: symbols when System.load()ed afterwards.
 *
 * The JVM loads JNI libraries with RTLD_LOCAL; re-opening the same object with RTLD_NOLOAD|RTLD_GLOBAL promotes it
 * without loading a second copy. The handle is intentionally never closed (the JNI library stays loaded anyway).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

struct search {
  const char* needle;
  char* found;
};

static int visit(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct search* s = (struct search*)data;
  if (info->dlpi_name != NULL && strstr(info->dlpi_name, s->needle) != NULL) {
    s->found = strdup(info->dlpi_name);
    return 1;
  }
  return 0;
}

/* Returns the path of the promoted library, or null when no loaded object matches or dlopen fails. */
JNIEXPORT jstring JNICALL Java_dev_sluice_ratelimit_env_NativeLoader_promote(JNIEnv* env, jclass cls, jstring needle) {
  (void)cls;
  const char* n = (*env)->GetStringUTFChars(env, needle, NULL);
  if (n == NULL) return NULL;
  struct search s = {n, NULL};
  dl_iterate_phdr(visit, &s);
  (*env)->ReleaseStringUTFChars(env, needle, n);
  if (s.found == NULL) return NULL;
  void* h = dlopen(s.found, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  jstring out = h == NULL ? NULL : (*env)->NewStringUTF(env, s.found);
  free(s.found);
  return out;
}
