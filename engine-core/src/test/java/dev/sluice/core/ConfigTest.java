package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.config.Option;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigTest {
    @TempDir
    Path dir;

    /** A comma-separated list passed to the varargs builder says how to call it (a README walkthrough, 2026-11-29). */
    @Test
    void aCommaSeparatedListGivenToTheBuilderSaysOneNamePerArgument() {
        assertThatThrownBy(() -> SluiceConfig.builder(Path.of("d")).controls("admission, adoc"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'admission, adoc'")
                .hasMessageContaining("one name per argument");
        assertThat(SluiceConfig.builder(Path.of("d"))
                        .controls("admission", "adoc")
                        .build()
                        .controls())
                .containsExactly("admission", "adoc");
    }

    @Test
    void validateNamesTheBadKeyAndTouchesNoDisk() {
        Path fresh = dir.resolve("never-created");
        SluiceConfig unknownController =
                SluiceConfig.builder(fresh).controls("no-such-loop").build();
        assertThatThrownBy(() -> Sluice.validate(unknownController))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("controls")
                .hasMessageContaining("no-such-loop");
        SluiceConfig envOnDefault = SluiceConfig.builder(fresh)
                .env("default")
                .envOption("policy", "cruisedb")
                .build();
        assertThatThrownBy(() -> Sluice.validate(envOnDefault))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("env = default");
        assertThatThrownBy(() -> Sluice.validate(null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("null");
        SluiceConfig badGain = SluiceConfig.builder(fresh)
                .controls("scripted-a")
                .controlOption("scripted-a", "gain", "eleven")
                .build();
        assertThatThrownBy(() -> Sluice.validate(badGain))
                .isInstanceOf(ConfigException.class)
                .hasMessage("control.scripted-a.gain = 'eleven' is not a number (allowed: 0 to 10)");
        Sluice.validate(SluiceConfig.defaults(fresh));
        assertThat(fresh).doesNotExist();
    }

    @Test
    void defaultsAreDocumented() {
        SluiceConfig c = SluiceConfig.defaults(dir);
        assertThat(c.partitions()).containsExactly("default");
        assertThat(c.profile()).isEqualTo("rocksdb-default");
        assertThat(c.controls()).isEmpty();
        assertThat(c.tickPeriod()).isEqualTo(Duration.ofSeconds(1));
        // Every default in OPTIONS matches the builder's default.
        for (Option<?> o : SluiceConfig.OPTIONS.options()) {
            String actual = switch (o.name()) {
                case SluiceConfig.DATA_DIR -> "(required)";
                case SluiceConfig.PARTITIONS -> String.join(",", c.partitions());
                case SluiceConfig.PROFILE -> c.profile();
                case SluiceConfig.CONTROLS -> c.controls().isEmpty() ? "(none)" : String.join(",", c.controls());
                case SluiceConfig.TICK_PERIOD_MS -> Long.toString(c.tickPeriod().toMillis());
                case SluiceConfig.BLOCK_CACHE_BYTES -> Long.toString(c.blockCacheBytes());
                case SluiceConfig.WRITE_BUFFER_MANAGER_BYTES -> Long.toString(c.writeBufferManagerBytes());
                case SluiceConfig.ENV -> c.env();
                case SluiceConfig.MAX_KEY_BYTES -> Integer.toString(c.maxKeyBytes());
                case SluiceConfig.MAX_VALUE_BYTES -> Integer.toString(c.maxValueBytes());
                case SluiceConfig.SYNC_WRITES -> Boolean.toString(c.syncWrites());
                case SluiceConfig.ASYNC_THREADS -> Integer.toString(c.asyncThreads());
                case SluiceConfig.ASYNC_QUEUE_CAPACITY -> Integer.toString(c.asyncQueueCapacity());
                case SluiceConfig.ASYNC_PARTITION_THREADS -> Integer.toString(c.asyncPartitionThreads());
                case SluiceConfig.EVENTS_CAPACITY -> Integer.toString(c.controlEventsCapacity());
                case SluiceConfig.EVENTS_FILE ->
                    c.controlEventsFile().map(Path::toString).orElse("(none)");
                default -> throw new AssertionError("option " + o.name() + " not covered by this test");
            };
            assertThat(actual).as(o.name()).isEqualTo(o.defaultText());
        }
    }

    @Test
    void hugeTickPeriodIsAConfigErrorNotAnArithmeticOverflow() {
        assertThatThrownBy(() -> SluiceConfig.builder(dir).tickPeriod(Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("tick.period.ms")
                .hasMessageContaining("10 to 60000");
    }

    @Test
    void emptyDataDirInAPropertiesFileIsRefused() throws IOException {
        Path file = dir.resolve("sluice.properties");
        Files.writeString(file, "data.dir =\n");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(file))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("data.dir is empty");
        Files.writeString(file, "data.dir =   \n");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(file))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("data.dir is empty");
    }

    @Test
    void badValuesNameTheFieldTheValueAndTheRange() {
        assertThatThrownBy(() -> SluiceConfig.builder(dir).tickPeriod(Duration.ofMillis(5)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("tick.period.ms = 5 is out of range (allowed: 10 to 60000 ms)");
        assertThatThrownBy(() -> SluiceConfig.builder(dir).maxKeyBytes(0))
                .hasMessageContaining("limits.max.key.bytes = 0");
        assertThatThrownBy(() -> SluiceConfig.builder(dir).partitions("a", "a"))
                .hasMessageContaining("partitions = a,a lists 'a' twice");
        assertThatThrownBy(() -> SluiceConfig.builder(dir).partitions("bad name"))
                .hasMessageContaining("'bad name'");
        assertThatThrownBy(() -> SluiceConfig.builder(dir).env("fast"))
                .hasMessageContaining("env = fast is not allowed (allowed: auto, priority, default)");
        assertThatThrownBy(() -> SluiceConfig.builder(null)).hasMessageContaining("data.dir must be set");
        assertThatThrownBy(() -> SluiceConfig.builder(dir)
                        .controlOption("adoc", "k", "1")
                        .build())
                .hasMessageContaining("not in controls");
    }

    @Test
    void propertiesFileLoadsAndResolvesRelativePaths() throws IOException {
        Path f = dir.resolve("node.properties");
        Files.writeString(
                f,
                String.join(
                        "\n",
                        "data.dir = store",
                        "partitions = [t1, t2]",
                        "tick.period.ms=250",
                        "writes.sync=true",
                        "env=default",
                        "control.events.file=events.jsonl"));
        SluiceConfig c = SluiceConfig.fromProperties(f);
        assertThat(c.dataDir()).isEqualTo(dir.resolve("store"));
        assertThat(c.partitions()).containsExactly("t1", "t2");
        assertThat(c.tickPeriod()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.syncWrites()).isTrue();
        assertThat(c.controlEventsFile()).contains(dir.resolve("events.jsonl"));
    }

    @Test
    void unknownKeysAndBadValuesInAFileAreErrorsNamingFileAndKey() throws IOException {
        Path f = dir.resolve("bad.properties");
        Files.writeString(f, "data.dir=x\nblock.cache.size=5\n");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(f))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("bad.properties")
                .hasMessageContaining("unknown configuration key(s) [block.cache.size]");
        Files.writeString(f, "data.dir=x\nwrites.sync=yes\n");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(f))
                .hasMessageContaining("writes.sync = 'yes' is not true or false (allowed: true, false)");
        Files.writeString(f, "data.dir=x\nasync.threads=many\n");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(f))
                .hasMessageContaining("async.threads = 'many' is not a whole number (allowed: 1 to 256 threads)");
        Files.writeString(f, "partitions=a\n");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(f)).hasMessageContaining("data.dir must be set");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(dir.resolve("missing.properties")))
                .hasMessageContaining("missing.properties does not exist");
    }

    /** Properties.load keeps the last of two equal keys silently; a config file must not (a second data.dir opened another store). */
    @Test
    void aKeyGivenTwiceIsAnErrorNamingItAndBothValues() throws IOException {
        Path f = dir.resolve("twice.properties");
        Files.writeString(f, "data.dir = prod\npartitions = a,b\ndata.dir = prd\n");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(f))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("twice.properties")
                .hasMessageContaining("key data.dir is given twice ('prod', then 'prd'); give it once");
        Files.writeString(f, "data.dir = prod\npartitions = a\npartitions = b\n");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(f)).hasMessageContaining("key partitions is given twice");
        assertThat(dir.resolve("prod")).doesNotExist();
        assertThat(dir.resolve("prd")).doesNotExist();
        Files.writeString(f, "data.dir = prod\npartitions = a\n");
        assertThat(SluiceConfig.fromProperties(f).partitions()).containsExactly("a"); // once is fine
    }

    @Test
    void unknownProfileControllerAndEnvOptionsFailAtOpenWithoutCreatingData() {
        Path store = dir.resolve("s");
        assertThatThrownBy(() ->
                        Sluice.open(SluiceConfig.builder(store).profile("turbo").build()))
                .hasMessageContaining("profile = 'turbo' is not a known profile")
                .hasMessageContaining("rocksdb-default");
        assertThatThrownBy(() -> Sluice.open(
                        SluiceConfig.builder(store).controls(List.of("nope")).build()))
                .hasMessageContaining("'nope' is not a known controller");
        assertThatThrownBy(() -> Sluice.open(SluiceConfig.builder(store)
                        .env("default")
                        .envOption("device.iops", "10")
                        .build()))
                .hasMessageContaining("env = default");
        assertThat(store).doesNotExist();
    }

    @Test
    void theCanonicalConstructorValidatesLikeTheBuilder() {
        SluiceConfig ok = SluiceConfig.defaults(dir);
        assertThatThrownBy(() -> copyWith(ok, "partitions", List.of("../../escaped")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("has an invalid partition name '../../escaped'");
        assertThatThrownBy(() -> copyWith(ok, "tickPeriod", Duration.ofMillis(1)))
                .hasMessageContaining("tick.period.ms = 1");
        assertThatThrownBy(() -> copyWith(ok, "controlEventsCapacity", 0))
                .hasMessageContaining("control.events.capacity = 0");
        assertThat(copyWith(ok, "asyncThreads", 8).asyncThreads()).isEqualTo(8);
    }

    /** Calls the canonical constructor with every component of {@code c} but one. */
    private static SluiceConfig copyWith(SluiceConfig c, String component, Object value) {
        var components = SluiceConfig.class.getRecordComponents();
        Object[] args = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
                args[i] = components[i].getName().equals(component)
                        ? value
                        : components[i].getAccessor().invoke(c);
            }
            return SluiceConfig.class.getDeclaredConstructor(types).newInstance(args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw (RuntimeException) e.getCause();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void withoutControlsDropsControllersAndTheirOptions() {
        SluiceConfig c = SluiceConfig.builder(Path.of("/tmp/x"))
                .controls("admission")
                .controlOption("admission", "k1", "0.3")
                .build();
        SluiceConfig bare = c.toBuilder().withoutControls().build();
        assertThat(bare.controls()).isEmpty();
        assertThat(bare.controlOptions("admission")).isEmpty();
        assertThat(c.controlOptions("admission")).containsEntry("k1", "0.3");
    }

    @Test
    void aNullControllerListIsAConfigExceptionLikeEveryOtherNullSetting() {
        assertThatThrownBy(() -> SluiceConfig.builder(dir).controls((List<String>) null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("controls must not be null");
    }

    @Test
    void aMissingOrNonUtf8ConfigFileIsNamedAsSuch() throws IOException {
        Path missing = dir.resolve("nope.properties");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(missing))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config file " + missing + " does not exist");
        Path latin1 = dir.resolve("latin1.properties");
        Files.write(latin1, new byte[] {'p', '=', (byte) 0xE9, '\n'});
        assertThatThrownBy(() -> SluiceConfig.fromProperties(latin1))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("config file " + latin1 + " is not valid UTF-8");
    }

    /** Probe findings, 2026-11-28: each was accepted (or threw a NullPointerException). */
    @Test
    void aTrailingCommaATinyQuotaAndNullPropertiesAreRefusedNamingTheProblem() {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("data.dir", dir.resolve("d").toString());
        p.setProperty("partitions", "a,b,");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(p, dir))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("partitions");
        assertThat(SluiceConfig.splitList("a,")).containsExactly("a", "");
        assertThat(SluiceConfig.splitList("a, b")).containsExactly("a", "b");
        assertThat(SluiceConfig.splitList("")).isEmpty();
        assertThatThrownBy(() -> dev.sluice.core.quota.PartitionQuota.of(0, 1e-300))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("wcu");
        // a request pays before it runs: a rate under which one unit cannot fit in the burst plus the wait admits
        // nothing, ever, and is refused when configured (a README walkthrough, 2026-11-29)
        assertThatThrownBy(() -> dev.sluice.core.quota.PartitionQuota.of(0.001, 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rcu = 0.001 with quota.burst.ms = 1000 and quota.max.wait.ms = 1000 admits no"
                        + " request: one unit takes 1000 s");
        assertThat(dev.sluice.core.quota.PartitionQuota.of(0.5, 0).rcu()).isEqualTo(0.5);
        assertThatThrownBy(() -> dev.sluice.core.quota.PartitionQuota.parse(
                        "alpha", java.util.Map.of("wcu", "1", "quota.burst.ms", "1", "over.quota", "refuse")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("partition.alpha.")
                .hasMessageContaining("over.quota = refuse admits no request");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(null, dir))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("must not be null");
        assertThatThrownBy(() -> dev.sluice.core.quota.PartitionQuota.parse("a", null))
                .isInstanceOf(ConfigException.class);
    }
}
