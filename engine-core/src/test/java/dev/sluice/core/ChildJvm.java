package dev.sluice.core;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A child JVM on this test's classpath running {@code main}: for kill -9, lock and small-heap tests. */
final class ChildJvm {
    private ChildJvm() {}

    static ProcessBuilder of(Class<?> main, String maxHeap, String... args) {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + maxHeap,
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd);
    }
}
