package dev.sluice.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.Random;
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

    /**
     * Patterns with many stars against a long key finish at once. The recursive matcher before 2026-11-27 was exponential
     * here (this case did not finish in minutes) and overflowed the stack on patterns of many thousand stars.
     */
    @Test
    void manyStarsTakeLinearTimeAndNoStack() {
        String key = "a".repeat(8192);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            assertThat(m("*a*a*a*a*a*a*a*a*a*a*b", key)).isFalse();
            assertThat(m("*a*a*a*a*a*a*a*a*a*a*a", key)).isTrue();
            assertThat(m("*a".repeat(20_000) + "*b", key)).isFalse();
            assertThat(m("*?".repeat(8192), key)).isTrue();
            assertThat(m("*?".repeat(8193), key)).isFalse();
        });
    }

    @Test
    void edgeCasesOfClassesAndEscapes() {
        assertThat(m("", "")).isTrue();
        assertThat(m("", "a")).isFalse();
        assertThat(m("**", "")).isTrue();
        assertThat(m("a*", "a")).isTrue();
        assertThat(m("a\\", "a\\")).isTrue(); // a trailing backslash matches itself
        assertThat(m("[a-", "a")).isTrue(); // an unterminated class ends with the pattern
        assertThat(m("[z-a]", "m")).isTrue(); // a reversed range is swapped
        assertThat(m("[\\]]", "]")).isTrue();
        assertThat(m("*[0-9]", "key9")).isTrue();
        assertThat(m("*[0-9]", "key9x")).isFalse();
    }

    /**
     * Redis' util.c reads {@code x-]} as a range ending at {@code ]} and keeps reading the class after it. Until
     * 2026-11-27 Sluice read {@code [a-]} as the members {@code a} and {@code -}: the first three lines failed.
     */
    @Test
    void aDashBeforeTheClosingBracketIsARangeAsInRedis() {
        assertThat(m("[a-]", "-")).isFalse(); // '-' (0x2d) is outside ']'..'a' (0x5d..0x61)
        assertThat(m("[a-]", "_")).isTrue(); // '_' (0x5f) is inside
        assertThat(m("[a-]b", "ab")).isFalse(); // the class runs to the pattern's end: "b" is one of its members
        assertThat(m("[a-]b", "b")).isTrue();
        assertThat(m("[a-]", "a")).isTrue();
        assertThat(m("[a-]]x", "ax")).isTrue(); // the second ']' closes the class
        assertThat(m("[a-]]x", "a]x")).isFalse();
        assertThat(m("[-a]", "-")).isTrue(); // a leading '-' is a member
        assertThat(m("[a\\-z]", "-")).isTrue(); // [a\-z]: the backslash escapes '-', so the members are a, - and z
    }

    /** The matcher agrees with a plain recursive reference on random patterns and keys over a small alphabet. */
    @Test
    void agreesWithARecursiveReference() {
        Random r = new Random(7);
        String[] tokens = {"a", "b", "*", "?", "[ab]", "[^a]", "\\*", "*"};
        for (int n = 0; n < 20_000; n++) {
            StringBuilder p = new StringBuilder();
            for (int i = r.nextInt(7); i > 0; i--) {
                p.append(tokens[r.nextInt(tokens.length)]);
            }
            StringBuilder s = new StringBuilder();
            for (int i = r.nextInt(9); i > 0; i--) {
                s.append("ab*".charAt(r.nextInt(3)));
            }
            byte[] pb = p.toString().getBytes(UTF_8), sb = s.toString().getBytes(UTF_8);
            assertThat(Glob.matches(pb, sb)).as("'%s' vs '%s'", p, s).isEqualTo(reference(pb, 0, sb, 0));
        }
    }

    /** Exponential but obviously right, for the tokens the random test uses. */
    private static boolean reference(byte[] p, int pi, byte[] s, int si) {
        if (pi == p.length) {
            return si == s.length;
        }
        if (p[pi] == '*') {
            for (int k = si; k <= s.length; k++) {
                if (reference(p, pi + 1, s, k)) {
                    return true;
                }
            }
            return false;
        }
        if (si == s.length) {
            return false;
        }
        byte c = s[si];
        if (p[pi] == '?') {
            return reference(p, pi + 1, s, si + 1);
        }
        if (p[pi] == '\\') {
            return p[pi + 1] == c && reference(p, pi + 2, s, si + 1);
        }
        if (p[pi] == '[') {
            int end = pi;
            while (p[end] != ']') {
                end++;
            }
            boolean not = p[pi + 1] == '^';
            boolean hit = false;
            for (int i = pi + (not ? 2 : 1); i < end; i++) {
                hit |= p[i] == c;
            }
            return hit != not && reference(p, end + 1, s, si + 1);
        }
        return p[pi] == c && reference(p, pi + 1, s, si + 1);
    }
}
