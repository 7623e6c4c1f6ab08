package dev.sluice.ratelimit.env;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Optional;
import org.rocksdb.RocksDB;

/**
 * Loads the native priority Env once per class loader (native-env-notes.md, way B):
 *
 * <ol>
 *   <li>{@code RocksDB.loadLibrary()} — RocksDB extracts and loads its JNI library as usual (RTLD_LOCAL);
 *   <li>copies {@code native/linux-x86_64/libsluice_promote.so} and {@code libsluice_env.so} from the jar to a private
 *       temp directory (mode 700);
 *   <li>loads the promote helper and lets it re-open the loaded JNI library with {@code RTLD_NOLOAD|RTLD_GLOBAL}, so its
 *       {@code rocksdb::} symbols become visible to libraries loaded later;
 *   <li>{@code System.load}s the plugin, checks its ABI version, and deletes the temp copies (the mappings stay).
 * </ol>
 *
 * The outcome (success or the reason of failure) is cached: a failed load is not retried.
 */
final class NativeLoader {
    static final String RESOURCE_DIR = "/native/linux-x86_64/";
    static final String PROMOTE_LIB = "libsluice_promote.so";
    static final String ENV_LIB = "libsluice_env.so";

    private static Optional<String> failure;

    private NativeLoader() {}

    /** Empty when the plugin is loaded and usable; otherwise why it is not. */
    static synchronized Optional<String> load() {
        if (failure == null) {
            failure = tryLoad();
        }
        return failure;
    }

    /** Whether this platform is one the plugin is built for. */
    static boolean supportedPlatform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64"));
    }

    private static Optional<String> tryLoad() {
        if (!supportedPlatform()) {
            return Optional.of("the native priority Env is built for linux-x86_64 only; this JVM runs on "
                    + System.getProperty("os.name") + "-" + System.getProperty("os.arch"));
        }
        if (NativeLoader.class.getResource(RESOURCE_DIR + ENV_LIB) == null
                || NativeLoader.class.getResource(RESOURCE_DIR + PROMOTE_LIB) == null) {
            return Optional.of("the jar has no " + RESOURCE_DIR + ENV_LIB + " (engine-ratelimit was built without its"
                    + " native library, e.g. on a non-linux-x86_64 machine)");
        }
        Path dir = null;
        try {
            RocksDB.loadLibrary();
            dir = Files.createTempDirectory(
                    "sluice-native-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path promote = extract(dir, PROMOTE_LIB);
            Path plugin = extract(dir, ENV_LIB);
            System.load(promote.toString());
            String promoted = promote("librocksdbjni");
            if (promoted == null) {
                return Optional.of("could not find the loaded RocksDB JNI library (librocksdbjni*) to promote it to"
                        + " RTLD_GLOBAL; was RocksDB loaded from a custom path?");
            }
            System.load(plugin.toString());
            int abi = NativeBridge.abiVersion();
            if (abi != NativeBridge.ABI_VERSION
                    || NativeBridge.statFields() != NativeBridge.STAT_FIELDS
                    || NativeBridge.deviceFields() != NativeBridge.DEVICE_FIELDS) {
                return Optional.of("native priority Env ABI mismatch: library " + abi + "/" + NativeBridge.statFields()
                        + ", Java " + NativeBridge.ABI_VERSION + "/" + NativeBridge.STAT_FIELDS);
            }
            return Optional.empty();
        } catch (IOException | RuntimeException | UnsatisfiedLinkError e) {
            return Optional.of("loading the native priority Env failed: " + e);
        } finally {
            if (dir != null) {
                deleteQuietly(dir.resolve(PROMOTE_LIB));
                deleteQuietly(dir.resolve(ENV_LIB));
                deleteQuietly(dir);
            }
        }
    }

    private static Path extract(Path dir, String name) throws IOException {
        Path target = dir.resolve(name);
        try (InputStream in = NativeLoader.class.getResourceAsStream(RESOURCE_DIR + name)) {
            if (in == null) {
                throw new IOException("resource " + RESOURCE_DIR + name + " disappeared");
            }
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
        return target;
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a leftover file in a private temp directory is harmless
        }
    }

    /** Implemented in promote.c: returns the promoted library's path, or null. */
    private static native String promote(String needle);
}
