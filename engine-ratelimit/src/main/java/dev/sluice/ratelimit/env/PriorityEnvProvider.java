package dev.sluice.ratelimit.env;

import dev.sluice.core.config.OptionSet;
import dev.sluice.core.spi.StorageEnv;
import dev.sluice.core.spi.StorageEnvProvider;
import java.util.Map;
import java.util.Optional;

/**
 * ServiceLoader entry ({@code META-INF/services/dev.sluice.core.spi.StorageEnvProvider}) for the native priority Env,
 * name {@code "priority"}. Options are {@link PriorityEnvConfig#OPTIONS}.
 */
public final class PriorityEnvProvider implements StorageEnvProvider {
    public static final String NAME = "priority";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<String> unavailableReason() {
        return PriorityEnv.unavailableReason();
    }

    @Override
    public OptionSet options() {
        return PriorityEnvConfig.OPTIONS;
    }

    @Override
    public void validate(Map<String, String> options) {
        PriorityEnvConfig.fromOptions(options);
    }

    @Override
    public StorageEnv open(Map<String, String> options) {
        return PriorityEnv.open(PriorityEnvConfig.fromOptions(options));
    }
}
