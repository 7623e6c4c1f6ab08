package dev.sluice.bench.scenario;

import dev.sluice.core.Profiles;
import dev.sluice.core.control.ControlLoopProvider;
import dev.sluice.core.spi.StorageEnvProvider;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * Finds scenarios: a path to a file, or the name of one shipped in the jar ({@code scenarios/NAME.scenario}, listed in
 * {@code scenarios/INDEX}). Also checks a parsed scenario's profile and controller names against what is on the
 * classpath, so a typo fails before the first stack runs.
 */
public final class Scenarios {
    private Scenarios() {}

    /** Names of the scenarios shipped in the jar. */
    public static List<String> shipped() {
        try (InputStream in = resource("scenarios/INDEX")) {
            if (in == null) {
                return List.of();
            }
            List<String> names = new ArrayList<>();
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!l.isBlank() && !l.startsWith("#")) {
                    names.add(l.trim());
                }
            }
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static InputStream resource(String path) {
        return Scenarios.class.getClassLoader().getResourceAsStream(path);
    }

    /** Loads and parses a scenario by file path or shipped name. */
    public static Scenario load(String nameOrPath) {
        Path p = Path.of(nameOrPath);
        if (Files.isRegularFile(p)) {
            try {
                String text = Files.readString(p, StandardCharsets.UTF_8);
                return ScenarioParser.parse(
                        text, p.getFileName().toString(), p.toAbsolutePath().toString());
            } catch (java.nio.charset.CharacterCodingException e) {
                throw new IllegalArgumentException("cannot read scenario file " + p + ": it is not UTF-8 text", e);
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read scenario file " + p + ": " + e.getMessage(), e);
            }
        }
        String res = "scenarios/" + nameOrPath + ".scenario";
        try (InputStream in = nameOrPath.matches("[A-Za-z0-9_-]+") ? resource(res) : null) {
            if (in == null) {
                throw new IllegalArgumentException("no scenario '" + nameOrPath + "': not a file, and not one of the"
                        + " shipped scenarios " + shipped());
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return ScenarioParser.parse(text, nameOrPath + ".scenario", "classpath:" + res);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Checks every stack's profile and controllers against what is registered on the classpath ({@link Profiles#all()},
     * ServiceLoader for controllers); the error names the line.
     */
    public static void checkNames(Scenario sc) {
        TreeSet<String> profiles = new TreeSet<>(Profiles.all().keySet());
        TreeSet<String> controls = new TreeSet<>();
        ServiceLoader.load(ControlLoopProvider.class).forEach(c -> controls.add(c.name()));
        String file = fileName(sc);
        for (StackSpec s : sc.stacks()) {
            int pl = s.keyLines().getOrDefault("profile", s.line());
            if (!profiles.contains(s.profile())) {
                throw new ScenarioException(
                        file,
                        pl,
                        "profile",
                        "[stack " + s.name() + "] unknown profile '" + s.profile() + "'; registered: " + profiles);
            }
            for (String c : s.controls()) {
                if (!controls.contains(c)) {
                    throw new ScenarioException(
                            file,
                            s.keyLines().getOrDefault("controls", s.line()),
                            "controls",
                            "[stack " + s.name() + "] unknown controller '" + c + "'; registered: " + controls);
                }
            }
        }
    }

    static String fileName(Scenario sc) {
        String src = sc.source();
        int slash = Math.max(src.lastIndexOf('/'), src.lastIndexOf(':'));
        return src.substring(slash + 1);
    }

    /**
     * Why the priority Env (and with it device emulation) cannot run here, or empty when it can. Empty also means a
     * provider named "priority" is on the classpath.
     */
    public static Optional<String> priorityEnvUnavailable() {
        for (StorageEnvProvider p : ServiceLoader.load(StorageEnvProvider.class)) {
            if (p.name().equals("priority")) {
                return p.unavailableReason();
            }
        }
        return Optional.of("no StorageEnvProvider named 'priority' on the classpath (engine-ratelimit missing)");
    }
}
