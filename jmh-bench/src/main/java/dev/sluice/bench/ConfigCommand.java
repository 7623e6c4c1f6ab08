package dev.sluice.bench;

import dev.sluice.core.ConfigReference;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code sluice config}: prints the configuration reference generated from the code (the README embeds the same). */
@Command(
        name = "config",
        mixinStandardHelpOptions = true,
        version = SluiceCli.VERSION,
        description =
                "Print the configuration reference: node keys, profiles, controllers and Env options on the classpath.")
public final class ConfigCommand implements Callable<Integer> {
    @ParentCommand
    SluiceCli parent;

    @Override
    public Integer call() {
        SluiceCli.of(parent).out.print(ConfigReference.markdown());
        return 0;
    }
}
