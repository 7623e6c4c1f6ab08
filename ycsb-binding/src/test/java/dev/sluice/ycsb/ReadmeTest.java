package dev.sluice.ycsb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module README's property table documents every binding property (surefire runs in the module directory). */
class ReadmeTest {
    @Test
    void readmeDocumentsEveryBindingPropertyWithItsDefault() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        for (BindingProperties.Option o : BindingProperties.OPTIONS) {
            String row = "| `" + o.key() + "` | ";
            assertThat(readme).as("README row for " + o.key()).contains(row);
            String def = o.defaultValue().startsWith("(") ? o.defaultValue() : "`" + o.defaultValue() + "`";
            assertThat(readme).as("README default of " + o.key()).contains(row + def + " |");
        }
        for (String w : YcsbMain.SHIPPED_WORKLOADS) {
            assertThat(readme).contains("| `" + w + "` |");
        }
    }
}
