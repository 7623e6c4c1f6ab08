package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's table of server options is the one the code declares. */
class ServerReadmeTest {
    @Test
    void readmeServerOptionsTableIsUpToDate() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String start =
                "<!-- server-options:start (generated from dev.sluice.server.ServerConfig.OPTIONS; do not edit) -->\n";
        String end = "<!-- server-options:end -->";
        int i = readme.indexOf(start);
        int j = readme.indexOf(end);
        assertThat(i).as("README has the server options markers").isNotNegative();
        assertThat(j).isGreaterThan(i);
        assertThat(readme.substring(i + start.length(), j))
                .as("README section Server: regenerate the table from ServerConfig.OPTIONS.referenceTable(\"server.\")")
                .isEqualTo(ServerConfig.OPTIONS.referenceTable("server."));
    }
}
