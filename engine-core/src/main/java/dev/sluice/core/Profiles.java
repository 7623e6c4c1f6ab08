package dev.sluice.core;

import dev.sluice.core.spi.Profile;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The registry of named profiles: core's {@code rocksdb-default} plus every {@link Profile} found through
 * ServiceLoader on the classpath. Two profiles with the same name are an error.
 */
public final class Profiles {
    private Profiles() {}

    /** All profiles by name. */
    public static Map<String, Profile> all() {
        Map<String, Profile> m = new TreeMap<>();
        m.put(RocksDbDefaultProfile.NAME, new RocksDbDefaultProfile());
        for (Profile p : ServiceLoader.load(Profile.class, Profiles.class.getClassLoader())) {
            Profile prev = m.putIfAbsent(p.name(), p);
            if (prev != null && prev.getClass() != p.getClass()) {
                throw new ConfigException("two profiles are named '" + p.name() + "': "
                        + prev.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        return m;
    }

    /** The profile named {@code name}; {@link ConfigException} listing the known names otherwise. */
    public static Profile get(String name) {
        Map<String, Profile> all = all();
        Profile p = all.get(name);
        if (p == null) {
            throw new ConfigException(
                    SluiceConfig.PROFILE + " = '" + name + "' is not a known profile; known: " + all.keySet());
        }
        return p;
    }

    /** Stock RocksDB 9.10 settings: the baseline every benchmark compares against. */
    static final class RocksDbDefaultProfile implements Profile {
        static final String NAME = "rocksdb-default";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "Stock RocksDB 9.10.0 options, untouched (write_buffer_size 64 MiB, max_write_buffer_number 2, L0 triggers"
                    + " 4/20/36, max_background_jobs 2, level_compaction_dynamic_level_bytes true). The baseline.";
        }

        @Override
        public void apply(org.rocksdb.Options options, org.rocksdb.BlockBasedTableConfig tableConfig) {
            // Deliberately nothing: RocksDB's own defaults are the baseline.
        }
    }
}
