package dev.sluice.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** SCAN MATCH patterns as Redis reads them. */
class GlobTest {
    static boolean m(String pattern, String s) {
        return Glob.matches(pattern.getBytes(UTF_8), s.getBytes(UTF_8));
    }

    @Test
    void redisGlobSyntax() {
        assertThat(m("*", "")).isTrue();
        assertThat(m("user:*", "user:42")).isTrue();
        assertThat(m("user:*", "users:42")).isFalse();
        assertThat(m("h?llo", "hello")).isTrue();
        assertThat(m("h?llo", "hllo")).isFalse();
        assertThat(m("h[ae]llo", "hallo")).isTrue();
        assertThat(m("h[ae]llo", "hillo")).isFalse();
        assertThat(m("h[^e]llo", "hallo")).isTrue();
        assertThat(m("h[^e]llo", "hello")).isFalse();
        assertThat(m("k[0-4]", "k3")).isTrue();
        assertThat(m("k[0-4]", "k7")).isFalse();
        assertThat(m("a\\*b", "a*b")).isTrue();
        assertThat(m("a\\*b", "axb")).isFalse();
        assertThat(m("*a*b*", "xxaxxbxx")).isTrue();
        assertThat(m("*a*b*", "xxbxxaxx")).isFalse();
    }
}
