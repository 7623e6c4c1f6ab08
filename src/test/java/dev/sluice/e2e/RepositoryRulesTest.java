package dev.sluice.e2e;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.core.importer.Locations;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.sluice.compaction.cruise.CompactionPriority;
import dev.sluice.core.ConfigReference;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.ratelimit.admission.AdaptiveAdmission;
import dev.sluice.ratelimit.admission.StaticAdmission;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Rules about the repository itself: the README's configuration reference, and the architecture rules (ArchUnit, on
 * the compiled classes of every module): controllers are pure — no engine, no system clock, no threads — and the
 * control and sensor packages stay engine-neutral.
 */
class RepositoryRulesTest {
    static final Path ROOT =
            Path.of(System.getProperty("sluice.root", "..")).toAbsolutePath().normalize();

    @Test
    void readmeConfigurationReferenceMatchesTheCode() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        int s = readme.indexOf(ConfigReference.START);
        int e = readme.indexOf(ConfigReference.END);
        assertThat(s).as("README has the config-reference start marker").isNotNegative();
        assertThat(e).as("README has the config-reference end marker").isGreaterThan(s);
        String embedded =
                readme.substring(s + ConfigReference.START.length(), e).strip();
        assertThat(embedded)
                .as("README configuration reference is stale: paste the output of ./sluice config between the markers")
                .isEqualTo(generatedOnTheMainClasspath().strip());
    }

    /**
     * The reference as {@code ./sluice config} prints it: generated in a child JVM whose classpath has every module's
     * main code but none of the test classes (test-only profiles and controllers must not appear in the README).
     */
    private static String generatedOnTheMainClasspath() throws IOException {
        String cp = java.util.Arrays.stream(
                        System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(entry -> !entry.endsWith("test-classes"))
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        cp,
                        ConfigReference.class.getName())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        try {
            assertThat(p.waitFor()).isZero();
        } catch (InterruptedException ex) {
            throw new AssertionError(ex);
        }
        return out;
    }

    // --- Controllers are pure (DESIGN: sensors -> pure controllers -> thin actuators) -----------------------------

    /**
     * The main classes of every module: each module's {@code target/classes} (so modules the e2e tests do not depend
     * on, such as cassandra-plugin and engine-server, are checked too once the reactor has compiled them) and whatever
     * {@code dev.sluice} main code is on this classpath. Test classes are left out.
     */
    private static JavaClasses mainClassesOfEveryModule() throws IOException {
        Set<Location> locations = new LinkedHashSet<>();
        for (Path classes : moduleClassDirectories()) {
            locations.add(Location.of(classes));
        }
        locations.addAll(Locations.ofPackage("dev.sluice"));
        return new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importLocations(locations);
    }

    /** {@code <module>/target/classes} of every module that has been compiled (holds at least one class file). */
    private static List<Path> moduleClassDirectories() throws IOException {
        try (Stream<Path> modules = Files.list(ROOT)) {
            return modules.filter(m -> Files.isRegularFile(m.resolve("pom.xml")))
                    .map(m -> m.resolve("target/classes"))
                    .filter(Files::isDirectory)
                    .filter(RepositoryRulesTest::holdsClassFiles)
                    .sorted()
                    .toList();
        }
    }

    private static boolean holdsClassFiles(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.anyMatch(f -> f.toString().endsWith(".class"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Implementations of {@link ControlLoop}, and classes nested in one (a helper is held to the same rules). */
    static final DescribedPredicate<JavaClass> CONTROLLERS =
            DescribedPredicate.describe("are controllers (ControlLoop implementations or nested in one)", c -> {
                for (Optional<JavaClass> k = Optional.of(c);
                        k.isPresent();
                        k = k.get().getEnclosingClass()) {
                    if (!k.get().isInterface() && k.get().isAssignableTo(ControlLoop.class)) {
                        return true;
                    }
                }
                return false;
            });

    private static DescribedPredicate<JavaCall<?>> call(String description, Predicate<JavaCall<?>> p) {
        return DescribedPredicate.describe(description, p::test);
    }

    private static boolean owner(JavaCall<?> c, Class<?> type) {
        return c.getTarget().getOwner().isEquivalentTo(type);
    }

    static final DescribedPredicate<JavaCall<?>> READS_THE_SYSTEM_CLOCK_OR_SLEEPS = call(
            "read the system clock or sleep (System.nanoTime/currentTimeMillis, Thread.sleep, java.time now(),"
                    + " Clock.system*, LockSupport.park*)",
            c -> {
                String m = c.getTarget().getName();
                return owner(c, System.class) && (m.equals("nanoTime") || m.equals("currentTimeMillis"))
                        || owner(c, Thread.class) && m.equals("sleep")
                        || c.getTarget().getOwner().getPackageName().equals("java.time") && m.equals("now")
                        || owner(c, java.time.Clock.class) && m.startsWith("system")
                        || owner(c, java.util.concurrent.locks.LockSupport.class) && m.startsWith("park");
            });

    static final DescribedPredicate<JavaCall<?>> STARTS_THREADS_OR_CREATES_EXECUTORS = call(
            "start threads or create executors (new Thread, Thread.start, Executors.*, new <Executor>, new Timer)",
            c -> {
                JavaClass o = c.getTarget().getOwner();
                boolean ctor = c.getTarget().getName().equals(JavaConstructor.CONSTRUCTOR_NAME);
                return o.isAssignableTo(Thread.class)
                                && (ctor || c.getTarget().getName().equals("start"))
                        || owner(c, java.util.concurrent.Executors.class)
                        || ctor && o.isAssignableTo(java.util.concurrent.Executor.class)
                        || ctor && o.isAssignableTo(java.util.Timer.class);
            });

    static final ArchRule CONTROLLERS_DO_NOT_TOUCH_AN_ENGINE = noClasses()
            .that(CONTROLLERS)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.rocksdb..", "org.apache.cassandra..")
            .because("controllers decide from the engine-neutral snapshot; actuators touch the engine");

    static final ArchRule CONTROLLERS_DO_NOT_READ_THE_CLOCK = noClasses()
            .that(CONTROLLERS)
            .should()
            .callCodeUnitWhere(READS_THE_SYSTEM_CLOCK_OR_SLEEPS)
            .because("time reaches a controller only as decide(snapshot, nowNanos), so tests can script it");

    static final ArchRule CONTROLLERS_DO_NOT_START_THREADS = noClasses()
            .that(CONTROLLERS)
            .should()
            .callCodeUnitWhere(STARTS_THREADS_OR_CREATES_EXECUTORS)
            .because("the control plane's tick thread is the only thread a controller runs on");

    static final List<ArchRule> PURITY_RULES = List.of(
            CONTROLLERS_DO_NOT_TOUCH_AN_ENGINE, CONTROLLERS_DO_NOT_READ_THE_CLOCK, CONTROLLERS_DO_NOT_START_THREADS);

    /** The control plane's types and the snapshot are engine-neutral (the Cassandra plugin reuses them). */
    static final ArchRule CONTROL_AND_SENSOR_TYPES_ARE_ENGINE_NEUTRAL = noClasses()
            .that()
            .resideInAnyPackage("dev.sluice.core.control..", "dev.sluice.core.sensor..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.rocksdb..");

    @Test
    void controllersArePure() throws IOException {
        JavaClasses classes = mainClassesOfEveryModule();
        List<String> controllers = classes.stream()
                .filter(c -> !c.isInterface() && c.isAssignableTo(ControlLoop.class))
                .map(JavaClass::getName)
                .sorted()
                .toList();
        assertThat(controllers)
                .as("the rules must see the known controllers (admission, static-admission,"
                        + " cruise-compaction-priority), else they check nothing")
                .contains(
                        AdaptiveAdmission.class.getName(),
                        StaticAdmission.class.getName(),
                        CompactionPriority.class.getName());
        for (Path dir : moduleClassDirectories()) {
            String uri = dir.toUri().toString();
            assertThat(classes.stream()
                            .anyMatch(c -> c.getSource()
                                    .map(src -> src.getUri().toString().startsWith(uri))
                                    .orElse(false)))
                    .as("classes imported from %s", ROOT.relativize(dir))
                    .isTrue();
        }
        for (ArchRule rule : PURITY_RULES) {
            rule.check(classes);
        }
    }

    @Test
    void controlAndSensorPackagesDoNotDependOnRocksDb() throws IOException {
        JavaClasses classes = mainClassesOfEveryModule();
        assertThat(classes.stream().filter(c -> c.getPackageName().startsWith("dev.sluice.core.control")))
                .as("control classes imported")
                .isNotEmpty();
        CONTROL_AND_SENSOR_TYPES_ARE_ENGINE_NEUTRAL.check(classes);
    }

    // --- The engine-neutral split: what the Cassandra plugin jar ships (docs/architecture.md "Engine-neutral split")
    // --

    /**
     * The engine-neutral classes: the control plane, snapshot, actions and options, the admission SPI, and the
     * controller packages. cassandra-plugin's shade filters ship exactly these (plus its own classes) without
     * rocksdbjni; keep this list and the filters in cassandra-plugin/pom.xml in step.
     */
    static final DescribedPredicate<JavaClass> ENGINE_NEUTRAL = DescribedPredicate.describe(
            "are engine-neutral (core control/sensor/config/quota, the admission and read-cache SPIs, ratelimit.admission, compaction.. except compaction.rocksdb)",
            k -> {
                JavaClass c = k.isArray() ? k.getBaseComponentType() : k; // RequestKind[] is RequestKind
                String pkg = c.getPackageName();
                String top = c.getName().contains("$")
                        ? c.getName().substring(0, c.getName().indexOf('$'))
                        : c.getName();
                return pkg.startsWith("dev.sluice.core.control")
                        || pkg.startsWith("dev.sluice.core.sensor")
                        || pkg.startsWith("dev.sluice.core.config")
                        || pkg.startsWith("dev.sluice.core.quota")
                        || pkg.startsWith("dev.sluice.ratelimit.admission")
                        || (pkg.startsWith("dev.sluice.compaction") && !pkg.startsWith("dev.sluice.compaction.rocksdb"))
                        || Set.of(
                                        "dev.sluice.core.spi.AdmissionGate",
                                        "dev.sluice.core.spi.IoControl",
                                        "dev.sluice.core.spi.IoPolicy",
                                        "dev.sluice.core.spi.ReadCache",
                                        "dev.sluice.core.QuotaExceededException",
                                        "dev.sluice.core.RequestKind",
                                        "dev.sluice.core.ConfigException",
                                        "dev.sluice.core.SluiceException",
                                        "dev.sluice.core.OverloadedException")
                                .contains(top);
            });

    static final DescribedPredicate<JavaClass> SLUICE_BUT_NOT_ENGINE_NEUTRAL = DescribedPredicate.describe(
            "are Sluice classes outside the engine-neutral set (the RocksDB binding: NodeImpl, RocksPartition,"
                    + " RocksActuators, profiles, the priority Env, ...)",
            k -> {
                JavaClass c = k.isArray() ? k.getBaseComponentType() : k;
                return c.getPackageName().startsWith("dev.sluice")
                        && !c.getPackageName().startsWith("dev.sluice.cassandra")
                        && !ENGINE_NEUTRAL.test(c);
            });

    /** The engine-neutral classes touch no engine, and need nothing of Sluice outside their set (the jar is whole). */
    static final ArchRule ENGINE_NEUTRAL_CLASSES_TOUCH_NO_ENGINE = noClasses()
            .that(ENGINE_NEUTRAL)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.rocksdb..", "org.apache.cassandra..")
            .orShould()
            .dependOnClassesThat(SLUICE_BUT_NOT_ENGINE_NEUTRAL)
            .because("the Cassandra plugin jar ships them without rocksdbjni and must load them on a Cassandra node");

    /** The plugin uses only the engine-neutral Sluice classes, and nothing of RocksDB. */
    static final ArchRule CASSANDRA_PLUGIN_USES_ONLY_ENGINE_NEUTRAL_CLASSES = noClasses()
            .that()
            .resideInAPackage("dev.sluice.cassandra..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.rocksdb..")
            .orShould()
            .dependOnClassesThat(SLUICE_BUT_NOT_ENGINE_NEUTRAL)
            .because("the plugin jar carries no rocksdbjni and no RocksDB binding (cassandra-plugin/pom.xml)");

    @Test
    void theCassandraPluginAndTheControllersAreEngineNeutral() throws IOException {
        JavaClasses classes = mainClassesOfEveryModule();
        assertThat(classes.stream().map(JavaClass::getName))
                .as("the plugin's and the controllers' classes must be imported, else the rules check nothing")
                .contains(
                        "dev.sluice.cassandra.SluiceCompactionStrategy",
                        "dev.sluice.cassandra.CassandraActuators",
                        AdaptiveAdmission.class.getName(),
                        CompactionPriority.class.getName(),
                        "dev.sluice.core.control.ControlPlane");
        ENGINE_NEUTRAL_CLASSES_TOUCH_NO_ENGINE.check(classes);
        CASSANDRA_PLUGIN_USES_ONLY_ENGINE_NEUTRAL_CLASSES.check(classes);
    }

    /** The split rules report the RocksDB binding and an engine import, and leave the pure fixture alone. */
    @Test
    void theSplitRulesCatchAnEngineDependency() throws IOException {
        JavaClasses classes = mainClassesOfEveryModule();
        EvaluationResult binding = noClasses()
                .that()
                .haveFullyQualifiedName("dev.sluice.core.NodeImpl")
                .should()
                .dependOnClassesThat(SLUICE_BUT_NOT_ENGINE_NEUTRAL)
                .orShould()
                .dependOnClassesThat()
                .resideInAnyPackage("org.rocksdb..")
                .evaluate(classes);
        assertThat(binding.hasViolation())
                .as("NodeImpl uses RocksPartition and org.rocksdb")
                .isTrue();
        JavaClasses fixtures = new ClassFileImporter().importPackages("dev.sluice.e2e.archfixture");
        EvaluationResult engine = noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.rocksdb..", "org.apache.cassandra..")
                .evaluate(fixtures);
        assertThat(String.join("\n", engine.getFailureReport().getDetails()))
                .contains("ImpureController")
                .doesNotContain("PureController");
    }

    /** Each rule reports a controller that breaks it, and leaves alone one that keeps it. */
    @Test
    void thePurityRulesCatchAnImpureController() {
        JavaClasses fixtures = new ClassFileImporter().importPackages("dev.sluice.e2e.archfixture");
        assertThat(fixtures.stream().map(JavaClass::getSimpleName)).contains("ImpureController", "PureController");

        EvaluationResult engine = CONTROLLERS_DO_NOT_TOUCH_AN_ENGINE.evaluate(fixtures);
        assertThat(engine.hasViolation()).isTrue();
        assertThat(String.join("\n", engine.getFailureReport().getDetails()))
                .contains("org.rocksdb.Options")
                .doesNotContain("PureController");

        EvaluationResult clock = CONTROLLERS_DO_NOT_READ_THE_CLOCK.evaluate(fixtures);
        String clockReport = String.join("\n", clock.getFailureReport().getDetails());
        assertThat(clockReport)
                .contains(
                        "System.nanoTime()",
                        "System.currentTimeMillis()",
                        "Instant.now()",
                        "Clock.systemUTC()",
                        "Thread.sleep(long)",
                        "ImpureController$Helper.now()")
                .doesNotContain("PureController");

        EvaluationResult threads = CONTROLLERS_DO_NOT_START_THREADS.evaluate(fixtures);
        String threadReport = String.join("\n", threads.getFailureReport().getDetails());
        assertThat(threadReport)
                .contains("Thread.<init>", "Thread.start()", "Executors.newSingleThreadExecutor()")
                .doesNotContain("PureController");
    }

    /**
     * Lines that cite something outside the repository: the private design notes it was built from, or work sessions
     * instead of commits and dates. Users cannot follow such a reference; code and docs cite docs/, commits and papers.
     */
    static final java.util.regex.Pattern OUTSIDE_CITATION = java.util.regex.Pattern.compile(
            "\\.\\./shared/|\\b(DESIGN|SCHEDULING|CONVENTIONS)\\.md\\b|\\b[Ss]essions? [0-9]|\\bsession-[0-9]");

    @Test
    void codeAndDocsCiteOnlyWhatIsInTheRepository() throws IOException, InterruptedException {
        assertThat(OUTSIDE_CITATION.matcher("see DESIGN.md §3.3").find()).isTrue();
        assertThat(OUTSIDE_CITATION.matcher("measured in session 4").find()).isTrue();
        assertThat(OUTSIDE_CITATION
                        .matcher("see docs/architecture.md §3.3 (YCSB's session store)")
                        .find())
                .isFalse();
        Process git = new ProcessBuilder("git", "-C", ROOT.toString(), "ls-files", "-z")
                .redirectErrorStream(true)
                .start();
        String listing = new String(git.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        org.junit.jupiter.api.Assumptions.assumeTrue(
                git.waitFor() == 0, "not a git checkout: the tracked files cannot be listed");
        List<String> offending = new ArrayList<>();
        int scanned = 0;
        for (String name : listing.split("\0")) {
            if (name.isEmpty()
                    || name.endsWith(".png")
                    || name.endsWith(".jar")
                    || name.endsWith("RepositoryRulesTest.java")) {
                continue;
            }
            Path f = ROOT.resolve(name);
            if (!Files.isRegularFile(f)) {
                continue;
            }
            byte[] bytes = Files.readAllBytes(f);
            String text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
            scanned++;
            String[] lines = text.split("\n", -1);
            for (int n = 0; n < lines.length; n++) {
                if (OUTSIDE_CITATION.matcher(lines[n]).find()) {
                    offending.add(name + ":" + (n + 1) + ": " + lines[n].strip());
                }
            }
        }
        assertThat(scanned).as("tracked files scanned").isGreaterThan(100);
        assertThat(offending)
                .as("cite docs/, commits, dates or papers instead of files outside the repository or work sessions")
                .isEmpty();
    }
}
