package dev.sluice.bench;

import dev.sluice.core.ConfigReference;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code sluice config}: prints the configuration reference generated from the code (the README embeds the same). */
@Command(
        name = "config",
        mixinStandardHelpOptions = true,
        description =
                "Print the configuration reference: node keys, profiles, controllers and Env options on the classpath.")
public final class ConfigCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.out.print(ConfigReference.markdown());
        return 0;
    }
}
