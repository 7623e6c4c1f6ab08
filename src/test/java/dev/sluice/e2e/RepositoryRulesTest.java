package dev.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ConfigReference;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Rules about the repository itself: the README's configuration reference and the clock ban in controllers. */
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

    private static final Pattern CLOCK = Pattern.compile(
            "System\\.nanoTime|System\\.currentTimeMillis|Thread\\.sleep|Instant\\.now|LocalDateTime\\.now");

    /** Controllers read time only through the injected ticker (CONVENTIONS.md); this fails the build otherwise. */
    @Test
    void controllersNeverReadTheSystemClockOrSleep() throws IOException {
        List<String> offenders = new ArrayList<>();
        List<Path> controllers = new ArrayList<>();
        try (Stream<Path> s = Files.walk(ROOT)) {
            s.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/main/java/"))
                    .forEach(p -> {
                        try {
                            String src = Files.readString(p);
                            if (src.contains("implements ControlLoop")
                                            && !src.contains("implements ControlLoopProvider")
                                    || src.contains("@PureController")) {
                                controllers.add(p);
                                String code =
                                        src.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
                                if (CLOCK.matcher(code).find()) {
                                    offenders.add(ROOT.relativize(p).toString());
                                }
                            }
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
        }
        assertThat(offenders)
                .as("controllers using the system clock or sleeping (use the injected ticker)")
                .isEmpty();
    }
}
